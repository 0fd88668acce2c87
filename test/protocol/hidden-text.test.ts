import { describe, expect, it } from 'vitest';
import { createHiddenTextTracker } from '../../src/protocol/hidden-text.js';

const hides = (...chunks: string[]): boolean => {
  const tracker = createHiddenTextTracker();
  return chunks.map((c) => tracker.feed(c)).some(Boolean);
};

describe('hidden text in a worker’s output', () => {
  it('flags text written concealed (SGR 8), alone or among other parameters', () => {
    expect(hides('ok \x1b[8mrm -rf /\x1b[0m')).toBe(true);
    expect(hides('\x1b[1;8;31msecret')).toBe(true);
    expect(hides('\x1b[8m\x1b[28mvisible')).toBe(false);
  });

  it('flags text in its background’s colour, however the colour is written', () => {
    expect(hides('\x1b[30;40mblack on black')).toBe(true);
    expect(hides('\x1b[97;107mwhite')).toBe(true);
    expect(hides('\x1b[38;5;16m\x1b[48;5;16mx')).toBe(true);
    expect(hides('\x1b[38;2;1;2;3;48;2;1;2;3mx')).toBe(true);
    expect(hides('\x1b[38:2::1:2:3m\x1b[48:2::1:2:3mx')).toBe(true);
    // 30 and 38;5;0 are the same palette entry.
    expect(hides('\x1b[30m\x1b[48;5;0mx')).toBe(true);
  });

  it('does not flag ordinary colours, spaces, or a pen reset before the text', () => {
    expect(hides('\x1b[31;40mred on black')).toBe(false);
    expect(hides('\x1b[30;40m   \x1b[0mplain')).toBe(false);
    expect(hides('\x1b[30;40m\x1b[mafter reset')).toBe(false);
    expect(hides('\x1b[30;40m\x1b[39mdefault fg')).toBe(false);
    expect(hides('plain text with [8m but no escape')).toBe(false);
  });

  it('follows the pen across chunks, as a terminal does', () => {
    const tracker = createHiddenTextTracker();
    expect(tracker.feed('\x1b[8m')).toBe(false);
    expect(tracker.feed('hidden')).toBe(true);
    expect(tracker.feed('\x1b[0mshown')).toBe(false);
  });
});
