import { describe, expect, it } from 'vitest';
import { protectArgvArg } from '../../src/tmux/run.js';

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
