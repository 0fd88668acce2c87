import { describe, expect, it } from 'vitest';
import { sanitizeText } from '../../src/protocol/sanitize.js';

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
