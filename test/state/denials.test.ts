// Appeals and workaround detection (issue 32): denials are recorded for an
// appeal, three alike in a row are reported once, and an overturned
// appeal's allowance lets its one call through exactly once. Strategy: the
// pure rules on hand-made denials, the files in a temporary home.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import {
  grantAllowance,
  readDenials,
  recordDenial,
  repeatedDenials,
  similarDenials,
  takeAllowance,
  type DenialRecord,
} from '../../src/state/denials.js';

const denial = (
  subject: string,
  more: Partial<DenialRecord> = {},
): DenialRecord => ({
  at: '2025-06-01T12:00:00.000Z',
  tool: 'Bash',
  subject,
  fingerprint: '0123456789abcdef',
  rule: 'rm-everything',
  ...more,
});

describe('similar denials', () => {
  it('are the same tool with the same rule or commands alike', () => {
    expect(similarDenials(denial('rm -rf ~'), denial('rm -r -f ~/'))).toBe(
      true,
    );
    expect(
      similarDenials(
        denial('git push --force origin main', { rule: 'a' }),
        denial('git push -f origin main', { rule: 'b' }),
      ),
    ).toBe(true);
    expect(
      similarDenials(
        denial('cat .env', { rule: 'a' }),
        denial('npm publish', { rule: 'b' }),
      ),
    ).toBe(false);
    expect(
      similarDenials(denial('rm -rf ~'), denial('rm -rf ~', { tool: 'Read' })),
    ).toBe(false);
  });

  it('three alike in a row repeat; two, or one unlike, do not', () => {
    const a = denial('rm -rf ~');
    expect(repeatedDenials([a, a])).toBeUndefined();
    expect(repeatedDenials([a, a, a])).toHaveLength(3);
    expect(
      repeatedDenials([a, a, denial('npm publish', { rule: 'x' })]),
    ).toBeUndefined();
    expect(repeatedDenials([a, a, { ...a, reported: true }])).toBeUndefined();
  });
});

describe('denial and allowance files', () => {
  let paths: HomePaths;
  beforeEach(() => {
    paths = resolveHomePaths(
      mkdtempSync(path.join(os.tmpdir(), 'macs-denials-')),
    );
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  it('reports three alike once, then needs three more', async () => {
    const d = denial('rm -rf ~');
    expect(await recordDenial(paths, 'w1', d)).toBeUndefined();
    expect(await recordDenial(paths, 'w1', d)).toBeUndefined();
    expect(await recordDenial(paths, 'w1', d)).toHaveLength(3);
    expect(await recordDenial(paths, 'w1', d)).toBeUndefined();
    expect(await recordDenial(paths, 'w1', d)).toBeUndefined();
    expect(await recordDenial(paths, 'w1', d)).toHaveLength(3);
    expect(await readDenials(paths, 'w1')).toHaveLength(6);
  });

  it('an allowance is taken once, for its own call only', async () => {
    await grantAllowance(paths, 'w1', {
      fingerprint: 'aaaaaaaaaaaaaaaa',
      appeal: 'w1-a-1',
      reason: 'fine',
      at: 'now',
    });
    expect(
      await takeAllowance(paths, 'w1', 'bbbbbbbbbbbbbbbb'),
    ).toBeUndefined();
    expect(
      await takeAllowance(paths, 'w2', 'aaaaaaaaaaaaaaaa'),
    ).toBeUndefined();
    const taken = await Promise.all([
      takeAllowance(paths, 'w1', 'aaaaaaaaaaaaaaaa'),
      takeAllowance(paths, 'w1', 'aaaaaaaaaaaaaaaa'),
    ]);
    expect(taken.filter(Boolean)).toEqual([
      expect.objectContaining({ appeal: 'w1-a-1', reason: 'fine' }),
    ]);
  });
});
