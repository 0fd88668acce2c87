import { describe, expect, it } from 'vitest';
import {
  formatControlCommand,
  quoteControlArg,
} from '../../src/tmux/control-command.js';

describe('quoteControlArg', () => {
  it.each([
    ['plain', '"plain"'],
    ['', '""'],
    ['a b', '"a b"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['$HOME', '"\\$HOME"'],
    ['~/x', '"\\~/x"'],
    ['C:\\users', '"C:\\\\users"'],
    ['a;', '"a;"'],
    ['#{pane_id}', '"#{pane_id}"'],
    ['one\ntwo', '"one\\ntwo"'],
    ['tab\there', '"tab\\there"'],
    ['cr\r', '"cr\\r"'],
    ['\x1b[31m', '"\\033[31m"'],
    ['\x7f', '"\\177"'],
    ['héllo 🎉', '"héllo 🎉"'],
  ])('%j is written %s', (value, expected) => {
    expect(quoteControlArg(value)).toBe(expected);
  });

  it('refuses a NUL, which no tmux argument can hold', () => {
    expect(() => quoteControlArg('a\0b')).toThrow(/NUL/);
  });

  it('never leaves a raw newline, so a command stays one line', () => {
    const line = formatControlCommand(['send-keys', '-l', '--', 'a\nb\r\nc']);
    expect(line).not.toMatch(/[\r\n]/);
    expect(line).toBe('"send-keys" "-l" "--" "a\\nb\\r\\nc"');
  });

  it('refuses an empty command (an empty line detaches the client)', () => {
    expect(() => formatControlCommand([])).toThrow(/empty/);
  });
});
