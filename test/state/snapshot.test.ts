import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setDeliveryPaused } from '../../src/state/person-controls.js';
import {
  buildSnapshot,
  createSnapshotReader,
} from '../../src/state/snapshot.js';
import { SnapshotSchema } from '../../src/state/snapshot-schema.js';
import { createHomeFixture, makeRecord } from './home-fixture.js';

const NOW = new Date('2025-03-01T12:00:00.000Z');

describe('buildSnapshot', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  it('is an empty, valid snapshot for a home where nothing ran', async () => {
    const snapshot = await buildSnapshot(fx.paths, NOW);
    expect(SnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot).toMatchObject({
      version: 1,
      generatedAt: NOW.toISOString(),
      home: fx.home,
      totals: { agents: 0, pending: 0, waitingForPerson: 0, paused: 0 },
      agents: [],
      requests: [],
      events: [],
    });
  });

  it("shows a running session's agents, not those an earlier session left done with", async () => {
    await fx.writeState('worker-1');
    // Not in the session, but alive (a bridge of its own ran it).
    await fx.writeState('elsewhere', (s) => {
      s.state = 'idle';
    });
    // Of an earlier session: ended, nothing open, no bridge.
    await fx.writeState('old-worker', (s) => {
      s.state = 'dead';
    });
    // Not in the session either, but a request of it is still open.
    await fx.writeState('asking', (s) => {
      s.requests['asking-q-1'] = makeRecord({
        id: 'asking-q-1',
        agent: 'asking',
      });
    });
    const names = async () =>
      (await buildSnapshot(fx.paths, NOW)).agents.map((a) => a.name).sort();
    // No session: every agent with a state file.
    expect(await names()).toEqual([
      'asking',
      'elsewhere',
      'old-worker',
      'worker-1',
    ]);
    mkdirSync(path.dirname(fx.paths.sessionFile), { recursive: true });
    writeFileSync(
      fx.paths.sessionFile,
      JSON.stringify({
        id: 's-2',
        createdAt: NOW.toISOString(),
        agents: [{ name: 'worker-1' }],
      }),
    );
    expect(await names()).toEqual(['asking', 'elsewhere', 'worker-1']);
  });

  it('lists the requests refused for their size in the running session, however many events followed', async () => {
    // Issue 25, point 5: a refused block was in `macs inbox` only, not in
    // the snapshot the live view draws. Strategy: a refusal of this session
    // followed by more events than the snapshot carries, one of an earlier
    // session and a block restarted (not refused); only the first is listed.
    const refusal = (ts: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        ts,
        agent: 'worker-1',
        type: 'request.malformed',
        data: {
          reason: 'max-lines',
          lines: 500,
          bytes: 4000,
          firstLine: '<<CONTROLLER_REQUEST id=big>>',
          refused: true,
          message: "worker-1's request was refused: …",
          pane: '%1',
          ...extra,
        },
      });
    fx.writeEvents('worker-1', [
      refusal('2025-03-01T10:00:00.000Z'),
      refusal('2025-03-01T11:50:00.000Z'),
      JSON.stringify({
        ts: '2025-03-01T11:50:01.000Z',
        agent: 'worker-1',
        type: 'request.malformed',
        data: { reason: 'restarted', lines: 1, bytes: 3, firstLine: 'x' },
      }),
      ...Array.from({ length: 80 }, (_, i) =>
        JSON.stringify({
          ts: `2025-03-01T11:55:${String(i % 60).padStart(2, '0')}.000Z`,
          agent: 'worker-1',
          type: 'state.changed',
          data: { to: 'working' },
        }),
      ),
    ]);
    mkdirSync(path.dirname(fx.paths.sessionFile), { recursive: true });
    writeFileSync(
      fx.paths.sessionFile,
      JSON.stringify({ id: 's-3', createdAt: '2025-03-01T11:00:00.000Z' }),
    );
    const snapshot = await buildSnapshot(fx.paths, NOW);
    expect(SnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot.events.some((e) => e.type === 'request.malformed')).toBe(
      false,
    );
    expect(snapshot.refused).toEqual([
      {
        agent: 'worker-1',
        reason: 'max-lines',
        at: '2025-03-01T11:50:00.000Z',
        firstLine: '<<CONTROLLER_REQUEST id=big>>',
        lines: 500,
        bytes: 4000,
        message: "worker-1's request was refused: …",
      },
    ]);
  });

  it('lists decided approvals, newest first, with who decided', async () => {
    await fx.writeState('worker-1', (s) => {
      s.recent = [
        {
          id: 'worker-1-approval-b',
          type: 'approval',
          stage: 'delivered',
          detectedAt: '2025-03-01T11:58:00.000Z',
          deliveredAt: '2025-03-01T11:58:05.000Z',
          firstLine: 'worker-1 asks for permission',
          decision: {
            decision: 'allow',
            decidedBy: 'rule',
            via: 'tests',
            reason: 'allow',
            at: '2025-03-01T11:58:05.000Z',
          },
        },
        {
          id: 'worker-1-q-9',
          type: 'question',
          stage: 'delivered',
          detectedAt: '2025-03-01T11:57:00.000Z',
          firstLine: 'Which branch?',
        },
        {
          id: 'worker-1-approval-a',
          type: 'approval',
          stage: 'delivered',
          detectedAt: '2025-03-01T11:50:00.000Z',
          firstLine: 'May I push?',
          decision: {
            decision: 'deny',
            decidedBy: 'person',
            via: 'outbox',
            reason: 'deny',
            at: '2025-03-01T11:51:00.000Z',
          },
        },
      ];
    });
    const snapshot = await buildSnapshot(fx.paths, NOW);
    expect(SnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot.approvals).toEqual([
      {
        id: 'worker-1-approval-b',
        agent: 'worker-1',
        stage: 'delivered',
        firstLine: 'worker-1 asks for permission',
        decision: 'allow',
        decidedBy: 'rule',
        via: 'tests',
        at: '2025-03-01T11:58:05.000Z',
      },
      expect.objectContaining({
        id: 'worker-1-approval-a',
        decision: 'deny',
        decidedBy: 'person',
      }),
    ]);
  });

  it('reads agents, open requests with context, last answers with notes, pauses and events', async () => {
    await fx.writeState('worker-1', (s) => {
      s.pane = '%3';
      s.state = 'working';
      s.stateSource = 'hook';
      s.stateSince = '2025-03-01T11:59:30.000Z';
      s.requests['worker-1-q-17'] = makeRecord();
      s.requests['worker-1-q-18'] = makeRecord({
        id: 'worker-1-q-18',
        workerId: 'q-18',
        priority: 'high',
        detectedAt: '2025-03-01T11:59:00.000Z',
        stage: 'answered',
        body: '\n  \nMay I delete build/?',
        response: {
          instructions: 'Yes.',
          notes: 'It is generated.',
          source: 'outbox/worker-1-q-18.txt',
          receivedAt: '2025-03-01T11:59:10.000Z',
          raw: 'Yes.\nNOTES:\nIt is generated.',
        },
      });
      s.recent = [
        {
          id: 'worker-1-q-16',
          type: 'question',
          stage: 'delivered',
          detectedAt: '2025-03-01T11:50:00.000Z',
          deliveredAt: '2025-03-01T11:50:08.200Z',
          firstLine: 'Which test runner?',
          instructions: 'vitest',
        },
      ];
      s.counters = { detected: 3, delivered: 1, duplicates: 2, malformed: 1 };
    });
    fx.writeArchive({
      ...makeRecord({
        id: 'worker-1-q-16',
        detectedAt: '2025-03-01T11:50:00.000Z',
      }),
      stage: 'delivered',
      response: {
        instructions: 'vitest',
        notes: 'Keep an eye on flaky tests.',
        source: 'outbox/worker-1-q-16.txt',
        receivedAt: '2025-03-01T11:50:05.000Z',
        raw: 'vitest\nNOTES:\nKeep an eye on flaky tests.',
      },
    });
    fx.writeInboxMeta('worker-1-q-17', {
      id: 'worker-1-q-17',
      context: { branch: 'main', screen: 'line 1\nline 2' },
    });
    await fx.writeState(
      'worker-2',
      (s) => {
        s.state = 'dead';
        s.stateSource = 'pane';
      },
      'codex',
    );
    await setDeliveryPaused(fx.paths, 'worker-2', true);
    // This process holds worker-1's lock: its bridge counts as running.
    writeFileSync(
      path.join(fx.paths.state, 'worker-1.lock'),
      `${process.pid}\n`,
    );
    fx.writeEvents('worker-1', [
      JSON.stringify({
        ts: '2025-03-01T11:58:00.000Z',
        agent: 'worker-1',
        type: 'request.detected',
        requestId: 'worker-1-q-17',
      }),
      '{"ts":"2025-03-01T11:58:0', // a torn line is skipped
    ]);
    fx.writeEvents('worker-2', [
      JSON.stringify({
        ts: '2025-03-01T11:57:00.000Z',
        agent: 'worker-2',
        type: 'state.changed',
        data: { from: 'idle', to: 'dead', source: 'pane' },
      }),
    ]);

    const snapshot = await buildSnapshot(fx.paths, NOW);
    expect(SnapshotSchema.safeParse(snapshot).success).toBe(true);
    expect(snapshot.totals).toEqual({
      agents: 2,
      pending: 2,
      waitingForPerson: 1,
      paused: 1,
    });
    const [w1, w2] = snapshot.agents;
    expect(w1).toMatchObject({
      name: 'worker-1',
      preset: 'claude',
      pane: '%3',
      state: 'working',
      stateSource: 'hook',
      stateAgeMs: 30_000,
      paused: false,
      bridge: { running: true, pid: process.pid },
      counts: {
        pending: 2,
        waitingForPerson: 1,
        detected: 3,
        delivered: 1,
        duplicates: 2,
        malformed: 1,
      },
      lastRoundTripMs: 8200,
      lastResponse: {
        requestId: 'worker-1-q-16',
        stage: 'delivered',
        instructions: 'vitest',
        notes: 'Keep an eye on flaky tests.',
        deliveredAt: '2025-03-01T11:50:08.200Z',
      },
    });
    expect(w2).toMatchObject({
      name: 'worker-2',
      preset: 'codex',
      pane: null,
      state: 'dead',
      paused: true,
      bridge: { running: false, pid: null },
      lastRoundTripMs: null,
      lastResponse: null,
    });
    // High priority first, then oldest first.
    expect(snapshot.requests.map((r) => r.id)).toEqual([
      'worker-1-q-18',
      'worker-1-q-17',
    ]);
    expect(snapshot.requests[0]).toMatchObject({
      firstLine: 'May I delete build/?',
      waitingForPerson: false,
      context: null,
      answer: { instructions: 'Yes.', notes: 'It is generated.' },
    });
    expect(snapshot.requests[1]).toMatchObject({
      waitingForPerson: true,
      ageMs: 120_000,
      backend: 'file',
      context: { branch: 'main', screen: 'line 1\nline 2' },
      answer: null,
    });
    expect(snapshot.events.map((e) => e.type)).toEqual([
      'state.changed',
      'request.detected',
    ]);
    expect(snapshot.events[1]).toEqual({
      ts: '2025-03-01T11:58:00.000Z',
      agent: 'worker-1',
      type: 'request.detected',
      requestId: 'worker-1-q-17',
      data: null,
    });
  });

  it('reads only the end of a long events file, and re-reads it only when it changed', async () => {
    const line = (i: number) =>
      JSON.stringify({
        ts: new Date(
          Date.parse('2025-03-01T00:00:00.000Z') + i * 1000,
        ).toISOString(),
        agent: 'worker-1',
        type: 'state.changed',
        data: { n: i, pad: 'x'.repeat(200) },
      });
    fx.writeEvents(
      'worker-1',
      Array.from({ length: 2000 }, (_, i) => line(i)),
    );
    const reader = createSnapshotReader(fx.paths, { eventLimit: 5 });
    const first = await reader.read(NOW);
    expect(first.events.map((e) => e.data?.n)).toEqual([
      1995, 1996, 1997, 1998, 1999,
    ]);
    appendFileSync(
      path.join(fx.paths.events, 'worker-1.jsonl'),
      `${line(2000)}\n`,
    );
    const second = await reader.read(NOW);
    expect(second.events.at(-1)?.data?.n).toBe(2000);
  });

  it("says when an agent's hooks are not active, and why", async () => {
    await fx.writeState('w-hooks', (state) => {
      state.hooks = {
        status: 'inactive',
        since: '2025-03-01T11:59:30.000Z',
        reason: 'no hook call in 30 s: not installed, or a trust prompt',
      };
    });
    await fx.writeState('w-plain', () => undefined, 'generic');
    const snapshot = await buildSnapshot(fx.paths, NOW);
    expect(SnapshotSchema.safeParse(snapshot).success).toBe(true);
    const byName = new Map(snapshot.agents.map((a) => [a.name, a]));
    expect(byName.get('w-hooks')?.hooks).toEqual({
      status: 'inactive',
      reason: 'no hook call in 30 s: not installed, or a trust prompt',
    });
    expect(byName.get('w-plain')?.hooks).toBeNull();
  });

  it('tolerates a state file from an older bridge without counters or recent', async () => {
    mkdirSync(fx.paths.state, { recursive: true });
    writeFileSync(
      path.join(fx.paths.state, 'old.json'),
      JSON.stringify({
        version: 1,
        agent: 'old',
        preset: 'generic',
        state: 'idle',
        stateSource: 'screen',
        stateSince: '2025-03-01T11:00:00.000Z',
        logOffset: 0,
        updatedAt: '2025-03-01T11:00:00.000Z',
      }),
    );
    const snapshot = await buildSnapshot(fx.paths, NOW);
    expect(SnapshotSchema.safeParse(snapshot).success).toBe(true);
    expect(snapshot.agents[0]?.counts.delivered).toBe(0);
  });
});
