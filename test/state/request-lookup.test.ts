// readPendingRequest (issue 21, "Speed": answer_request on a host read a
// whole snapshot, every agent's files, to find one request). Strategy: the
// same home read both ways; for each pending request whose id is claimed,
// the lookup gives exactly the request the whole snapshot shows, and it
// gives nothing (so findRequest reads the snapshot) when the claim or the
// record is missing or names another agent.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimRequestId, requestIdsDir } from '../../src/state/request-ids.js';
import { readPendingRequest } from '../../src/state/request-lookup.js';
import { createSnapshotReader } from '../../src/state/snapshot.js';
import { createHomeFixture, makeRecord } from './home-fixture.js';

describe('readPendingRequest', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  const at = new Date('2025-03-01T12:00:00.000Z');

  beforeEach(async () => {
    fx = createHomeFixture();
    // worker-1: one in the inbox, one at another answerer; worker-2: one
    // with an answer; worker-3: many agents' worth of noise.
    await fx.writeState('worker-1', (s) => {
      s.requests['worker-1-q-17'] = makeRecord();
      s.requests['worker-1-q-18'] = makeRecord({
        id: 'worker-1-q-18',
        workerId: 'q-18',
        backend: 'exec',
      });
    });
    fx.writeInboxMeta('worker-1-q-17', {
      id: 'worker-1-q-17',
      context: { cwd: '/p' },
    });
    await fx.writeState('worker-2', (s) => {
      s.requests['worker-2-q-1'] = makeRecord({
        id: 'worker-2-q-1',
        agent: 'worker-2',
        workerId: 'q-1',
        stage: 'answered',
        response: {
          instructions: 'Yes.',
          notes: '',
          raw: 'Yes.',
          source: 'outbox',
          receivedAt: '2025-03-01T11:59:00.000Z',
        },
      });
    });
    for (const n of [1, 2, 3])
      await fx.writeState(`noise-${n}`, (s) => {
        s.requests[`noise-${n}-r`] = makeRecord({
          id: `noise-${n}-r`,
          agent: `noise-${n}`,
        });
      });
    for (const [agent, id] of [
      ['worker-1', 'worker-1-q-17'],
      ['worker-1', 'worker-1-q-18'],
      ['worker-2', 'worker-2-q-1'],
    ] as const)
      await claimRequestId(fx.paths, agent, id);
  });
  afterEach(() => fx.cleanup());

  it('gives the request exactly as the whole snapshot shows it', async () => {
    const snapshot = await createSnapshotReader(fx.paths).read(at);
    for (const id of ['worker-1-q-17', 'worker-1-q-18', 'worker-2-q-1']) {
      const whole = snapshot.requests.find((r) => r.id === id);
      expect(whole).toBeDefined();
      expect(await readPendingRequest(fx.paths, id, at)).toEqual(whole);
    }
  });

  it('gives nothing without a claim, for a finished request, a claim of another agent, or a bad id', async () => {
    // noise-1-r is pending but its id was never claimed.
    expect(await readPendingRequest(fx.paths, 'noise-1-r', at)).toBeUndefined();
    await claimRequestId(fx.paths, 'worker-3', 'worker-3-q-9');
    expect(
      await readPendingRequest(fx.paths, 'worker-3-q-9', at),
    ).toBeUndefined();
    writeFileSync(path.join(requestIdsDir(fx.paths), 'noise-2-r'), 'noise-3\n');
    expect(await readPendingRequest(fx.paths, 'noise-2-r', at)).toBeUndefined();
    writeFileSync(path.join(requestIdsDir(fx.paths), 'noise-3-r'), '../x\n');
    expect(await readPendingRequest(fx.paths, 'noise-3-r', at)).toBeUndefined();
    expect(await readPendingRequest(fx.paths, '../ids', at)).toBeUndefined();
  });
});
