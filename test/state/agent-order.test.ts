// A fleet of 32 agents named a1…a32 was listed a1, a10, a11, …, a19, a2,
// a20, … at every door (names sorted as strings). Strategy: the one
// comparator orders numbers as numbers, whatever LANG says, and the state
// files of a home come back in that order.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compareAgentNames } from '../../src/state/agent-order.js';
import { readAllAgentStates } from '../../src/state/pending.js';
import { freshAgentState, saveAgentState } from '../../src/state/store.js';
import { resolveHomePaths } from '../../src/home/paths.js';

describe('compareAgentNames', () => {
  it('orders the numbers in names as numbers', () => {
    expect(
      ['a10', 'a2', 'a1', 'b1', 'h1/a10', 'h1/a9', 'a1-x'].sort(
        compareAgentNames,
      ),
    ).toEqual(['a1', 'a1-x', 'a2', 'a10', 'b1', 'h1/a9', 'h1/a10']);
  });

  it('is a total order: different names never compare equal', () => {
    expect(compareAgentNames('a01', 'a1')).not.toBe(0);
    expect(compareAgentNames('a1', 'a1')).toBe(0);
  });
});

describe('readAllAgentStates', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("returns a home's agents in that order", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'macs-order-'));
    const paths = resolveHomePaths(dir);
    for (const agent of ['a10', 'a2', 'a1', 'a11'])
      await saveAgentState(paths, freshAgentState(agent, 'generic'));
    expect((await readAllAgentStates(paths)).map((s) => s.agent)).toEqual([
      'a1',
      'a2',
      'a10',
      'a11',
    ]);
  });
});
