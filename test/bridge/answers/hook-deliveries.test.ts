import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHookDeliveries,
  type HookDeliveries,
} from '../../../src/bridge/answers/hook-deliveries.js';
import type { EventInput } from '../../../src/events/types.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { claimPath, claimRequest } from '../../../src/state/claim.js';
import { recordStep } from '../../../src/state/ledger.js';
import { createSerialQueue } from '../../../src/state/serial.js';
import { freshAgentState } from '../../../src/state/store.js';
import type {
  AgentStateFile,
  RequestRecord,
} from '../../../src/state/types.js';

describe('hook deliveries (Stop-hook claims and prompt confirmations)', () => {
  let paths: HomePaths;
  let state: AgentStateFile;
  let emitted: Omit<EventInput, 'agent'>[];
  let finished: string[];
  let deliveries: HookDeliveries;

  beforeEach(() => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-hd-')));
    state = freshAgentState('w1', 'claude');
    emitted = [];
    finished = [];
    deliveries = createHookDeliveries({
      paths,
      serial: createSerialQueue(),
      current: () => state,
      emit: (e) => {
        emitted.push(e);
        return Promise.resolve();
      },
      saveNow: () => Promise.resolve(),
      finish: (record) => {
        delete state.requests[record.id];
        finished.push(record.id);
        return Promise.resolve();
      },
    });
  });
  afterEach(() => {
    rmSync(paths.home, { recursive: true, force: true });
  });

  function answered(id: string): RequestRecord {
    const now = new Date().toISOString();
    const record: RequestRecord = {
      id,
      agent: 'w1',
      type: 'question',
      priority: 'normal',
      attributes: {},
      bodyHash: '0'.repeat(40),
      body: 'b',
      stage: 'answered',
      detectedAt: now,
      answeredAt: now,
      response: {
        instructions: 'go on',
        notes: '',
        source: 'outbox',
        receivedAt: now,
        raw: 'go on',
      },
    };
    state.requests[id] = record;
    return record;
  }

  it('an answer a Stop hook claimed is delivered, and its typing called off', async () => {
    const record = answered('w1-q1');
    const signal = deliveries.signalFor(record.id);
    await claimRequest(paths, record.id, 'hook');
    expect(await deliveries.deliveredByHook(record)).toBe(true);
    await deliveries.reconcileClaims();
    expect(signal.aborted).toBe(true);
    expect(record.stage).toBe('delivered');
    expect(record.deliveredAt).toBeDefined();
    expect(state.counters.delivered).toBe(1);
    expect(finished).toEqual([record.id]);
    expect(emitted).toEqual([
      {
        type: 'request.delivered',
        requestId: record.id,
        data: { method: 'stop-hook', chars: 'go on'.length },
      },
    ]);
  });

  it('records a Stop-hook delivery once, and only of an open answered request', async () => {
    const record = answered('w1-q2');
    await deliveries.markDeliveredByHook(record);
    await deliveries.markDeliveredByHook(record);
    expect(state.counters.delivered).toBe(1);
    const routed = answered('w1-q3');
    routed.stage = 'routed';
    await deliveries.markDeliveredByHook(routed);
    expect(routed.stage).toBe('routed');
    expect(finished).toEqual([record.id]);
  });

  it("the bridge's own claim lets it type; the hook's does not", async () => {
    const mine = answered('w1-q4');
    expect(await deliveries.claimForTyping(mine)).toBe(true);
    expect(existsSync(claimPath(paths, mine.id))).toBe(true);
    expect(await deliveries.deliveredByHook(mine)).toBe(false);
    const theirs = answered('w1-q5');
    await claimRequest(paths, theirs.id, 'hook');
    expect(await deliveries.claimForTyping(theirs)).toBe(false);
  });

  it('a prompt accepted after the typing confirms a delivered answer', async () => {
    const record = answered('w1-q6');
    expect(await deliveries.claimForTyping(record)).toBe(true);
    const observation = {
      event: 'UserPromptSubmit',
      ts: new Date().toISOString(),
      lastPromptAt: new Date(Date.now() + 5).toISOString(),
    };
    // Not yet submitted: waits for a later check.
    record.stage = 'delivering';
    await deliveries.applyConfirmations(observation);
    expect(record.stage).toBe('delivering');
    record.stage = 'delivered';
    delete state.requests[record.id];
    state.recent = [
      {
        id: record.id,
        type: 'question',
        stage: 'delivered',
        detectedAt: record.detectedAt,
        firstLine: 'b',
      },
    ];
    await deliveries.applyConfirmations(observation);
    expect(record.stage).toBe('confirmed');
    expect(record.confirmedAt).toBe(observation.lastPromptAt);
    expect(state.recent[0]?.stage).toBe('confirmed');
    expect(emitted.map((e) => e.type)).toEqual(['request.confirmed']);
    // Confirmed once only.
    await deliveries.applyConfirmations(observation);
    expect(emitted).toHaveLength(1);
  });

  it('a late prompt cannot move back a request recorded meanwhile', async () => {
    // The bug (issue 23): a prompt the hook saw after the typing assigned
    // `confirmed` straight onto the record once its turn in `serial` came,
    // whatever had been recorded while it waited. Strategy: hold the queue
    // with a step that records the delivered request `unconfirmed` (a
    // restart), let the confirmation queue up behind it, then release.
    const serial = createSerialQueue();
    deliveries = createHookDeliveries({
      paths,
      serial,
      current: () => state,
      emit: (e) => {
        emitted.push(e);
        return Promise.resolve();
      },
      saveNow: () => Promise.resolve(),
      finish: () => Promise.resolve(),
    });
    const record = answered('w1-q9');
    expect(await deliveries.claimForTyping(record)).toBe(true);
    recordStep(record, { type: 'delivering', at: new Date().toISOString() });
    recordStep(record, { type: 'delivered', at: new Date().toISOString() });
    let release = (): void => undefined;
    let held: Promise<void> = Promise.resolve();
    await new Promise<void>((started) => {
      held = serial(
        () =>
          new Promise<void>((resolve) => {
            release = () => {
              recordStep(record, { type: 'unconfirmed' });
              resolve();
            };
            started();
          }),
      );
    });
    const confirming = deliveries.applyConfirmations({
      event: 'UserPromptSubmit',
      ts: new Date().toISOString(),
      lastPromptAt: new Date(Date.now() + 5).toISOString(),
    });
    release();
    await held;
    await confirming;
    expect(record.stage).toBe('unconfirmed');
    expect(record.confirmedAt).toBeUndefined();
    expect(emitted).toEqual([
      {
        type: 'request.step-refused',
        requestId: 'w1-q9',
        data: { step: 'confirmed', from: 'unconfirmed', to: 'confirmed' },
      },
    ]);
  });

  it('a prompt from before the typing confirms nothing', async () => {
    const record = answered('w1-q7');
    const before = new Date(Date.now() - 60_000).toISOString();
    expect(await deliveries.claimForTyping(record)).toBe(true);
    record.stage = 'delivered';
    await deliveries.applyConfirmations({
      event: 'UserPromptSubmit',
      ts: before,
      lastPromptAt: before,
    });
    await deliveries.applyConfirmations(undefined);
    expect(record.stage).toBe('delivered');
    expect(emitted).toEqual([]);
  });
});
