// Issue 31: a hub's live view drew its whole frame once for each host's first
// read, a few hundred ms apart (each link's ssh handshake), while its code was
// not yet compiled: the dearest frames of its first minute. Strategy: the
// draws asked for before every first read ended (or before the wait ran out)
// are one draw; after, each is drawn at once; none after close.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { holdFirstDraws } from '../../src/remote/host-watch.js';

describe('holdFirstDraws', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('draws the first reads once, when all are read', () => {
    const onDraw = vi.fn();
    const hold = holdFirstDraws(onDraw, 3_000);
    hold.draw();
    hold.draw();
    hold.draw();
    expect(onDraw).not.toHaveBeenCalled();
    hold.release();
    expect(onDraw).toHaveBeenCalledTimes(1);
    hold.draw();
    expect(onDraw).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(5_000);
    expect(onDraw).toHaveBeenCalledTimes(2);
  });

  it('draws what was read when a host is slow, then each read at once', () => {
    const onDraw = vi.fn();
    const hold = holdFirstDraws(onDraw, 3_000);
    hold.draw();
    vi.advanceTimersByTime(2_999);
    expect(onDraw).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onDraw).toHaveBeenCalledTimes(1);
    hold.draw();
    expect(onDraw).toHaveBeenCalledTimes(2);
    hold.release(); // the slow host's first read ended: nothing held
    expect(onDraw).toHaveBeenCalledTimes(2);
  });

  it('draws nothing when nothing was read, and nothing after close', () => {
    const onDraw = vi.fn();
    const quiet = holdFirstDraws(onDraw, 3_000);
    quiet.release();
    expect(onDraw).not.toHaveBeenCalled();
    const closed = holdFirstDraws(onDraw, 3_000);
    closed.draw();
    closed.close();
    vi.advanceTimersByTime(5_000);
    closed.release();
    closed.draw();
    expect(onDraw).not.toHaveBeenCalled();
  });
});
