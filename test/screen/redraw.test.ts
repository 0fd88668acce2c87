import { describe, expect, it } from 'vitest';
import {
  clearsScrollback,
  findSizeHint,
  HINT_CARRY_CHARS,
  type HintScreen,
} from '../../src/screen/redraw.js';

const NORMAL: HintScreen = { buffer: 'normal', cols: 80, rows: 24 };
const ALTERNATE: HintScreen = { buffer: 'alternate', cols: 80, rows: 24 };

describe('clearsScrollback', () => {
  it('is true for ED3 and RIS only', () => {
    expect(clearsScrollback('a\x1b[3Jb')).toBe(true);
    expect(clearsScrollback('\x1bc')).toBe(true);
    expect(clearsScrollback('\x1b[2J\x1b[H')).toBe(false);
    expect(clearsScrollback('plain')).toBe(false);
  });
});

describe('findSizeHint', () => {
  it('points at the first redraw sequence, or -1', () => {
    expect(findSizeHint('', 'plain text\r\n', NORMAL)).toBe(-1);
    expect(findSizeHint('', 'ab\x1b[3J\x1b[?1049h', NORMAL)).toBe(2);
    expect(findSizeHint('', 'x\x1b[?47h', NORMAL)).toBe(1);
    expect(findSizeHint('', 'x\x1b[?1047h', NORMAL)).toBe(1);
  });

  it('counts ED2 only on the alternate screen', () => {
    expect(findSizeHint('', 'ab\x1b[2J', NORMAL)).toBe(-1);
    expect(findSizeHint('', 'ab\x1b[2J', ALTERNATE)).toBe(2);
  });

  it('points at a cursor position outside the current size', () => {
    expect(findSizeHint('', '\x1b[24;80H', NORMAL)).toBe(-1);
    expect(findSizeHint('', 'a\x1b[25;1H', NORMAL)).toBe(1);
    expect(findSizeHint('', 'ab\x1b[1;81f', NORMAL)).toBe(2);
    // The earlier of a cursor position and a redraw sequence.
    expect(findSizeHint('', 'a\x1b[30;1Hb\x1bc', NORMAL)).toBe(1);
    expect(findSizeHint('', 'a\x1bcb\x1b[30;1H', NORMAL)).toBe(1);
  });

  it('finishes a sequence begun in the carry, and skips one the carry holds whole', () => {
    expect(findSizeHint('xy\x1b[3', 'J rest', NORMAL)).toBe(0);
    expect(findSizeHint('\x1b[3J', 'rest', NORMAL)).toBe(-1);
    expect(findSizeHint('\x1b[99;', '1H', NORMAL)).toBe(0);
    expect(findSizeHint('\x1b[99;1H', 'x\x1bc', NORMAL)).toBe(1);
  });

  it('keeps a carry long enough for the longest cursor position', () => {
    expect(HINT_CARRY_CHARS).toBeGreaterThanOrEqual('\x1b[999;999H'.length);
  });
});
