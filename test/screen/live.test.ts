import { afterEach, describe, expect, it } from 'vitest';
import type { ReaderEvent } from '../../src/screen/fingerprint.js';
import { createCommittedLayer } from '../../src/screen/committed.js';
import {
  createSeenPrints,
  fingerprintRequest,
} from '../../src/screen/fingerprint.js';
import { createLiveLayer, LIVE_STABLE_MS } from '../../src/screen/live.js';
import { createScreen, type Screen } from '../../src/screen/terminal.js';

const START = '<<CONTROLLER_REQUEST id=a>>';
const END = '<<CONTROLLER_REQUEST_END>>';
const REQUEST = { attributes: { id: 'a', type: 'question' }, body: 'which?' };

const screens: Screen[] = [];
afterEach(() => {
  for (const screen of screens.splice(0)) screen.dispose();
});

function setup(options: { cols?: number; rows?: number } = {}) {
  const screen = createScreen({
    cols: options.cols ?? 40,
    rows: options.rows ?? 8,
    scrollback: 100,
  });
  screens.push(screen);
  const seen = createSeenPrints();
  const committed = createCommittedLayer({
    screen,
    parserOptions: {},
    historyLines: 50,
    seen,
  });
  const clock = { ms: 0 };
  const live = createLiveLayer({
    screen,
    committed,
    parserOptions: {},
    seen,
    now: () => clock.ms,
  });
  return { screen, committed, live, seen, clock };
}

const lines = (...text: string[]) => text.map((l) => `${l}\r\n`).join('');

function requests(events: ReaderEvent[]) {
  return events
    .filter((e) => e.type === 'request')
    .map((e) => ({ attributes: e.attributes, body: e.body }));
}

const NOW = { settle: false, resized: false };

describe('createLiveLayer', () => {
  it('reports a block written in order at once, and remembers it', async () => {
    const { screen, live, seen } = setup();
    await screen.write(lines(START, 'which?', END));
    expect(requests(live.scan(NOW))).toEqual([REQUEST]);
    expect(seen.has(fingerprintRequest(REQUEST.attributes, 'which?'))).toBe(
      true,
    );
    expect(live.scan(NOW)).toEqual([]);
    expect(live.hasHeld()).toBe(false);
  });

  it('holds a block the cursor has moved on from until it stayed the same for LIVE_STABLE_MS', async () => {
    const { screen, live, clock } = setup();
    await screen.write(lines(START, 'which?', END, 'more', 'and more'));
    expect(live.scan(NOW)).toEqual([]);
    expect(live.hasHeld()).toBe(true);
    clock.ms = LIVE_STABLE_MS - 1;
    expect(live.scan(NOW)).toEqual([]);
    clock.ms = LIVE_STABLE_MS;
    expect(requests(live.scan(NOW))).toEqual([REQUEST]);
    expect(live.hasHeld()).toBe(false);
  });

  it('reports a stable block above which the cursor stands only when output settles', async () => {
    const { screen, live, clock } = setup();
    // A redraw half done: the cursor went back to the top.
    await screen.write(`${lines(START, 'which?', END)}\x1b[H`);
    expect(live.scan(NOW)).toEqual([]);
    clock.ms = LIVE_STABLE_MS;
    expect(live.scan(NOW)).toEqual([]);
    expect(requests(live.scan({ settle: true, resized: false }))).toEqual([
      REQUEST,
    ]);
  });

  it('restarts the wait when the block changes', async () => {
    const { screen, live, clock } = setup();
    await screen.write(`${lines(START, 'which?', END)}\x1b[H`);
    live.scan(NOW);
    clock.ms = LIVE_STABLE_MS;
    await screen.write(`\x1b[2;1Hwhat?\x1b[K\x1b[H`);
    expect(live.scan({ settle: true, resized: false })).toEqual([]);
    clock.ms = 2 * LIVE_STABLE_MS;
    expect(requests(live.scan({ settle: true, resized: false }))).toEqual([
      { ...REQUEST, body: 'what?' },
    ]);
  });

  it('after a resize, holds even a block written in order', async () => {
    const { screen, live, clock } = setup();
    await screen.write(lines(START, 'which?', END));
    expect(live.scan({ settle: false, resized: true })).toEqual([]);
    expect(live.hasHeld()).toBe(true);
    live.clearHeld();
    expect(live.hasHeld()).toBe(false);
    clock.ms = LIVE_STABLE_MS;
    live.scan({ settle: false, resized: true });
    clock.ms = 2 * LIVE_STABLE_MS;
    expect(requests(live.scan({ settle: false, resized: true }))).toEqual([
      REQUEST,
    ]);
  });

  it('forgets held blocks no longer on screen', async () => {
    const { screen, live } = setup();
    await screen.write(`${lines(START, 'which?', END)}\x1b[H`);
    live.scan(NOW);
    expect(live.hasHeld()).toBe(true);
    await screen.write('\x1b[2J');
    expect(live.scan(NOW)).toEqual([]);
    expect(live.hasHeld()).toBe(false);
  });

  it('completes a block whose start has been committed', async () => {
    const { screen, committed, live } = setup({ rows: 4 });
    await screen.write(lines(START, 'one', 'two', 'three', 'four', END));
    expect(committed.commit()).toEqual([]);
    expect(committed.openText()).not.toBe('');
    expect(requests(live.scan(NOW))).toEqual([
      { ...REQUEST, body: 'one\ntwo\nthree\nfour' },
    ]);
  });

  it('joins wrapped rows into logical lines from the first row not committed', async () => {
    const { screen, committed, live } = setup({ cols: 10, rows: 4 });
    await screen.write(lines('a', 'b', 'c', 'abcdefghijklmno'));
    committed.commit();
    const shown = live.lines();
    expect(shown.map((line) => line.text)).toEqual([
      'c',
      'abcdefghijklmno',
      '',
    ]);
    expect(shown[1]?.lastRow).toBe(shown[0]!.lastRow + 2);
    expect(committed.end()).toBe(shown[0]?.lastRow);
  });
});
