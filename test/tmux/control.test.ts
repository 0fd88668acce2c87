import { describe, expect, it } from 'vitest';
import {
  createBlockParser,
  formatControlCommand,
  quoteControlArg,
} from '../../src/tmux/control.js';

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

describe('createBlockParser', () => {
  it('returns a block with its lines, ok or error, and who sent it', () => {
    const parser = createBlockParser();
    expect(parser.push('%begin 1700000000 12 1')).toEqual({});
    expect(parser.push('line one')).toEqual({});
    expect(parser.push('%end looks like this but is text')).toEqual({});
    expect(parser.push('%end 1700000000 12 1')).toEqual({
      block: {
        ok: true,
        lines: ['line one', '%end looks like this but is text'],
        fromClient: true,
      },
    });
    parser.push('%begin 1700000000 13 0');
    parser.push("can't find pane: %9");
    expect(parser.push('%error 1700000000 13 0')).toEqual({
      block: { ok: false, lines: ["can't find pane: %9"], fromClient: false },
    });
  });

  it('ends a block only on the %end of its own command number', () => {
    const parser = createBlockParser();
    parser.push('%begin 1700000000 20 1');
    expect(parser.push('%end 1700000000 19 1')).toEqual({});
    expect(parser.push('%end 1700000000 20 1').block?.lines).toEqual([
      '%end 1700000000 19 1',
    ]);
  });

  it('skips notifications between blocks and reports %exit', () => {
    const parser = createBlockParser();
    expect(parser.push('%session-changed $0 main')).toEqual({});
    expect(parser.push('%window-renamed @1 zsh')).toEqual({});
    expect(parser.push('%exit')).toEqual({ exit: true });
    expect(parser.push('%exit server exited')).toEqual({ exit: true });
  });

  it('reports any other line outside a block: the stream is out of step', () => {
    const parser = createBlockParser();
    expect(parser.push('stray text')).toEqual({ stray: 'stray text' });
    expect(parser.push('%end 1700000000 5 1')).toEqual({
      stray: '%end 1700000000 5 1',
    });
    expect(parser.push('%error 1700000000 5 1')).toEqual({
      stray: '%error 1700000000 5 1',
    });
  });
});
