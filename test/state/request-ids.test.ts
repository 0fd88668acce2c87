import { readFileSync, utimesSync, existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import {
  claimRequestId,
  pruneRequestIds,
  requestIdsDir,
  schedulePruneRequestIds,
} from '../../src/state/request-ids.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

// Regression (issue 16, item 3): agent `w` asking `1-r` and agent `w-1`
// asking `r` both made `w-1-r`; the second overwrote the first's inbox body
// and an answer went to whichever bridge read it first.
describe('request ids are unique across agents', () => {
  let cleanup: () => void;
  let paths: HomePaths;
  beforeEach(() => {
    const made = makeTempHome('macs-ids-');
    cleanup = made.cleanup;
    paths = resolveHomePaths(made.home);
  });
  afterEach(() => cleanup());

  it('gives the second agent a suffixed id, and each agent its own id again', async () => {
    expect(await claimRequestId(paths, 'w', 'w-1-r')).toBe('w-1-r');
    expect(await claimRequestId(paths, 'w-1', 'w-1-r')).toBe('w-1-r.2');
    expect(await claimRequestId(paths, 'w', 'w-1-r')).toBe('w-1-r');
    expect(await claimRequestId(paths, 'w-1', 'w-1-r')).toBe('w-1-r.2');
    expect(await claimRequestId(paths, 'w-1-r', 'w-1-r')).toBe('w-1-r.3');
    expect(
      readFileSync(path.join(requestIdsDir(paths), 'w-1-r.2'), 'utf8'),
    ).toBe('w-1\n');
  });

  it('claims made at once have one winner per id', async () => {
    const agents = Array.from({ length: 8 }, (_, i) => `a${i}`);
    const ids = await Promise.all(
      agents.map((agent) => claimRequestId(paths, agent, 'same-id')),
    );
    expect(new Set(ids).size).toBe(agents.length);
  });

  it('prunes only its own old claims that are not open', async () => {
    await claimRequestId(paths, 'w', 'w-old');
    await claimRequestId(paths, 'w', 'w-open');
    await claimRequestId(paths, 'x', 'x-old');
    const old = new Date(Date.now() - 40 * 24 * 3_600_000);
    for (const id of ['w-old', 'w-open', 'x-old'])
      utimesSync(path.join(requestIdsDir(paths), id), old, old);
    await pruneRequestIds(paths, new Map([['w', new Set(['w-open'])]]));
    const has = (id: string) => existsSync(path.join(requestIdsDir(paths), id));
    expect([has('w-old'), has('w-open'), has('x-old')]).toEqual([
      false,
      true,
      true,
    ]);
  });

  it('prunes the agents of one process in one pass, later, with the ids open then', async () => {
    for (const [agent, id] of [
      ['a', 'a-old'],
      ['a', 'a-opened-later'],
      ['b', 'b-old'],
      ['c', 'c-old'],
    ] as const)
      await claimRequestId(paths, agent, id);
    const old = new Date(Date.now() - 40 * 24 * 3_600_000);
    for (const id of ['a-old', 'a-opened-later', 'b-old', 'c-old'])
      utimesSync(path.join(requestIdsDir(paths), id), old, old);
    const openOfA = new Set<string>();
    schedulePruneRequestIds(paths, 'a', () => openOfA, 20);
    schedulePruneRequestIds(paths, 'b', () => new Set(), 20);
    // Opened after the call, before the pass: kept.
    openOfA.add('a-opened-later');
    const has = (id: string) => existsSync(path.join(requestIdsDir(paths), id));
    await waitFor(() => !has('a-old') && !has('b-old'), {
      message: 'the old claims of a and b pruned',
    });
    // c never asked for a prune: its claim stays.
    expect([has('a-opened-later'), has('c-old')]).toEqual([true, true]);
  });
});
