import { describe, expect, it } from 'vitest';
import {
  BRANCH_CACHE_MS,
  cachedBranches,
} from '../../src/backends/context-collector.js';

describe('cachedBranches', () => {
  it('asks git once per folder within the cache time, then again', async () => {
    const asked: string[] = [];
    let clock = 1_000;
    const read = cachedBranches(
      (cwd) => {
        asked.push(cwd);
        return Promise.resolve(`branch-of-${cwd}-${asked.length}`);
      },
      () => clock,
    );
    expect(await read('/a')).toBe('branch-of-/a-1');
    expect(await read('/a')).toBe('branch-of-/a-1');
    expect(await read('/b')).toBe('branch-of-/b-2');
    clock += BRANCH_CACHE_MS;
    expect(await read('/a')).toBe('branch-of-/a-3');
    expect(asked).toEqual(['/a', '/b', '/a']);
  });

  it('turns a failing read into no branch, without throwing', async () => {
    const read = cachedBranches(() => Promise.reject(new Error('no git')));
    expect(await read('/x')).toBeUndefined();
  });
});
