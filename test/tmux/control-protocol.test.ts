import { describe, expect, it } from 'vitest';
import { createBlockParser } from '../../src/tmux/control-protocol.js';

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
