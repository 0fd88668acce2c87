import { existsSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  attentionDir,
  claimAttention,
  createPauseGate,
  isDeliveryPaused,
  pauseFilePath,
  pruneAttention,
  readPausedAgents,
  setDeliveryPaused,
} from '../../src/state/person-controls.js';
import { createHomeFixture } from './home-fixture.js';

describe('control files', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  it('pauses and resumes delivery with .macs/control/<agent>.paused', async () => {
    expect(isDeliveryPaused(fx.paths, 'worker-1')).toBe(false);
    await setDeliveryPaused(fx.paths, 'worker-1', true);
    expect(pauseFilePath(fx.paths, 'worker-1')).toBe(
      path.join(fx.home, '.macs', 'control', 'worker-1.paused'),
    );
    expect(isDeliveryPaused(fx.paths, 'worker-1')).toBe(true);
    expect([...(await readPausedAgents(fx.paths))]).toEqual(['worker-1']);
    await setDeliveryPaused(fx.paths, 'worker-1', false);
    await setDeliveryPaused(fx.paths, 'worker-1', false); // idempotent
    expect(isDeliveryPaused(fx.paths, 'worker-1')).toBe(false);
    expect([...(await readPausedAgents(fx.paths))]).toEqual([]);
  });

  it('the pause gate reports a held delivery once per request, again after a resume', async () => {
    const held: string[] = [];
    const gate = createPauseGate(fx.paths, 'worker-1', (id) => held.push(id));
    expect(gate('r1')).toBe(false);
    await setDeliveryPaused(fx.paths, 'worker-1', true);
    expect([gate('r1'), gate('r1'), gate('r2')]).toEqual([true, true, true]);
    expect(held).toEqual(['r1', 'r2']);
    await setDeliveryPaused(fx.paths, 'worker-1', false);
    expect(gate('r1')).toBe(false);
    await setDeliveryPaused(fx.paths, 'worker-1', true);
    expect(gate('r1')).toBe(true);
    expect(held).toEqual(['r1', 'r2', 'r1']);
  });

  it('claims attention exactly once per request, and prunes only old markers of closed requests', async () => {
    expect(await claimAttention(fx.paths, 'worker-1-q-1')).toBe(true);
    expect(await claimAttention(fx.paths, 'worker-1-q-1')).toBe(false);
    expect(await claimAttention(fx.paths, 'worker-1-q-2')).toBe(true);
    const old = path.join(attentionDir(fx.paths), 'worker-1-q-1');
    const twoHoursAgo = new Date(Date.now() - 7_200_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    await pruneAttention(fx.paths, new Set());
    expect(existsSync(old)).toBe(false);
    // Recent markers stay even when closed: another view may not have seen the request yet.
    expect(existsSync(path.join(attentionDir(fx.paths), 'worker-1-q-2'))).toBe(
      true,
    );
  });
});
