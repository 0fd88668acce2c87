import { describe, expect, it } from 'vitest';
import { shortenCommandLine } from '../../src/cli/shorten.js';

// Issue 25, point 7: `macs start`'s summary cut agent command lines at 80
// characters mid-word with no sign (`… --append-system-prompt-fi`). They are
// cut at a word, or at the column when no word ends late enough, and always
// marked with `…`.
describe('shortenCommandLine', () => {
  it.each([
    [['bash'], 80, 'bash'],
    [['claude', '--model', 'opus'], 17, 'claude --model…'],
    [['claude', '--model', 'opus'], 19, 'claude --model opus'],
    [
      ['node', '/a/very/long/path/to/the/agent/script.mjs'],
      20,
      'node /a/very/long/p…',
    ],
    [['ab', 'cdefghij'], 8, 'ab cdef…'],
  ] as const)('%j in %i: %s', (argv, max, expected) => {
    const out = shortenCommandLine(argv, max);
    expect(out).toBe(expected);
    expect([...out].length).toBeLessThanOrEqual(max);
  });
});
