import { describe, expect, it } from 'vitest';
import { COMMAND_SEPARATOR, protectArgvArg } from '../../src/tmux/run.js';

describe('protectArgvArg', () => {
  it.each([
    ['git add -A;', 'git add -A\\;'],
    [';', '\\;'],
    ['a\\;', 'a\\\\;'],
    ['a;b', 'a;b'],
    [';a', ';a'],
    ['', ''],
    ['plain', 'plain'],
  ])('%j goes to tmux as %j', (arg, expected) => {
    expect(protectArgvArg(arg)).toBe(expected);
  });
});

describe('COMMAND_SEPARATOR', () => {
  it('is the only argument that goes to tmux as a bare `;`', () => {
    expect(protectArgvArg(COMMAND_SEPARATOR)).toBe(';');
    expect(protectArgvArg(';')).not.toBe(';');
  });
});
