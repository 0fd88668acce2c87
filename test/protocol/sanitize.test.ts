import { describe, expect, it } from 'vitest';
import {
  escapeInvisible,
  hasInvisible,
  sanitizeText,
} from '../../src/protocol/sanitize.js';

describe('sanitizeText', () => {
  it.each([
    ['plain text', 'Run the tests.', 'Run the tests.'],
    ['keeps newlines and tabs', 'a\n\tb\n', 'a\n\tb\n'],
    ['CRLF becomes LF', 'a\r\nb\r\n', 'a\nb\n'],
    ['lone CR becomes LF', 'a\rb', 'a\nb'],
    ['removes colours', '\u001b[31mred\u001b[0m', 'red'],
    ['removes OSC', 'x\u001b]0;title\u0007y', 'xy'],
    ['removes bracketed-paste end', 'a\u001b[201~b', 'ab'],
    ['removes C0 controls', 'a\u0000b\u0003c\u0004d\u001ae\u0008f', 'abcdef'],
    ['removes vertical tab and form feed', 'a\u000bb\u000cc', 'abc'],
    ['removes DEL', 'a\u007fb', 'ab'],
    ['removes C1 controls', 'a\u0080b\u0085c\u009cd\u0099e', 'abcde'],
    ['removes a C1 control string', 'a\u009fhidden\u009cb', 'ab'],
    ['removes 8-bit CSI sequences', 'a\u009b31mb', 'ab'],
    ['lone ESC', 'a\u001b', 'a'],
    [
      'keeps unicode, emoji, quotes and shell syntax',
      `héllo 😀 "q" 'q' ; $(rm -rf /) \`x\` | & > <`,
      `héllo 😀 "q" 'q' ; $(rm -rf /) \`x\` | & > <`,
    ],
    [
      'keeps NBSP and other printable latin-1',
      'a\u00a0b\u00e9',
      'a\u00a0b\u00e9',
    ],
  ])('%s', (_name, input, expected) => {
    expect(sanitizeText(input)).toBe(expected);
  });
});

// Issue 16, item 8: bidi overrides, zero-width and tag characters reached
// the answerer while a person watching saw nothing.
describe('invisible and direction-changing characters', () => {
  const tricky =
    'approve \u202Eexe.txt\u202C? zero\u200Bwidth\u2060 tags\u{E0041}\u{E0042} bom\uFEFF';

  it('are never typed', () => {
    expect(sanitizeText(tricky)).toBe('approve exe.txt? zerowidth tags bom');
  });

  it('are shown escaped to answerers, and flagged', () => {
    expect(escapeInvisible(tricky)).toBe(
      'approve <U+202E>exe.txt<U+202C>? zero<U+200B>width<U+2060> tags<U+E0041><U+E0042> bom<U+FEFF>',
    );
    expect(hasInvisible(tricky)).toBe(true);
    expect(hasInvisible(tricky)).toBe(true);
  });

  it('leave emoji, scripts and ordinary text alone', () => {
    const plain = 'café ❤️ 漢字 עברית 👍 — "quotes"';
    expect(escapeInvisible(plain)).toBe(plain);
    expect(hasInvisible(plain)).toBe(false);
    expect(sanitizeText(plain)).toBe(plain);
  });
});
