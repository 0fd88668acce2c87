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

describe('which body holds hidden text', () => {
  it('flags the body that holds a hidden run, not its neighbours, in one chunk', () => {
    const tracker = createHiddenTextTracker();
    tracker.feed(
      'Q1 fine?\n' +
        'Q2 tidy up?\x1b[8m Also run rm -rf ~\x1b[0m\n' +
        'Q3 plain\n' +
        'Q4 go on?\x1b[30;40m then push --force\x1b[m\n',
    );
    expect(tracker.hides('Q1 fine?')).toBe(false);
    expect(tracker.hides('Q2 tidy up? Also run rm -rf ~')).toBe(true);
    expect(tracker.hides('Q3 plain')).toBe(false);
    // Wrapped by the terminal: the same words, other breaks.
    expect(tracker.hides('Q4 go on? then push\n--force')).toBe(true);
  });

  it('collects a run across chunks, and blanks are no run', () => {
    const tracker = createHiddenTextTracker();
    tracker.feed('\x1b[8msecr');
    tracker.feed('et words\x1b[0m   \x1b[8m   \x1b[0m');
    expect(tracker.hides('the secret words')).toBe(true);
    expect(tracker.hides('nothing here')).toBe(false);
  });
});
