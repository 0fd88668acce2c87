import {
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claimPath,
  claimRequest,
  claimsDir,
  pruneClaims,
  readClaim,
} from '../../src/state/claim.js';
import { decideOnce, readDecision } from '../../src/state/hook-files.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';

describe('claims', () => {
  let paths: HomePaths;
  beforeEach(() => {
    paths = resolveHomePaths(
      mkdtempSync(path.join(os.tmpdir(), 'macs-claim-')),
    );
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  it('the first claimer wins; the others see who it was', async () => {
    expect(await claimRequest(paths, 'w1-q1', 'hook')).toEqual({
      type: 'claimed',
    });
    const second = await claimRequest(paths, 'w1-q1', 'bridge');
    expect(second).toMatchObject({
      type: 'taken',
      claim: { requestId: 'w1-q1', by: 'hook', pid: process.pid },
    });
    expect(statSync(claimPath(paths, 'w1-q1')).mode & 0o777).toBe(0o600);
    expect(statSync(claimsDir(paths)).mode & 0o777).toBe(0o700);
  });

  it('exactly one of many racing claims wins, and no temp file is left', async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        claimRequest(paths, 'w1-race', i % 2 ? 'hook' : 'bridge'),
      ),
    );
    expect(results.filter((r) => r.type === 'claimed')).toHaveLength(1);
    expect(readdirSync(claimsDir(paths))).toEqual(['w1-race']);
    expect(await readClaim(paths, 'w1-race')).toBeDefined();
  });

  it('prunes old claims of finished requests only', async () => {
    await claimRequest(paths, 'old-done', 'hook');
    await claimRequest(paths, 'old-open', 'hook');
    await claimRequest(paths, 'new-done', 'hook');
    const old = new Date(Date.now() - 3 * 86_400_000);
    for (const id of ['old-done', 'old-open'])
      utimesSync(claimPath(paths, id), old, old);
    expect(await pruneClaims(paths, new Set(['old-open']), 86_400_000)).toBe(1);
    expect(readdirSync(claimsDir(paths)).sort()).toEqual([
      'new-done',
      'old-open',
    ]);
  });

  it('a decision is made once: a late one does not replace it', async () => {
    const first = await decideOnce(paths, {
      id: 'w1-approval-1',
      decision: 'deny',
      by: 'timeout',
      reason: 'no answer',
      decidedAt: new Date().toISOString(),
    });
    expect(first.first).toBe(true);
    const late = await decideOnce(paths, {
      id: 'w1-approval-1',
      decision: 'allow',
      by: 'controller',
      reason: 'allow',
      decidedAt: new Date().toISOString(),
    });
    expect(late).toMatchObject({
      first: false,
      decision: { decision: 'deny', by: 'timeout' },
    });
    expect(await readDecision(paths, 'w1-approval-1')).toMatchObject({
      decision: 'deny',
    });
  });
});
