import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BackendRequest } from '../../../src/backends/types.js';
import { newSlot } from '../../../src/bridge/fleet/agent-slot.js';
import type { SharedBackend } from '../../../src/bridge/fleet/types.js';
import { DEFAULT_DELIVERY_RULES } from '../../../src/typist/typist.js';
import {
  answerHandler,
  backendFor,
} from '../../../src/bridge/fleet/slot-backend.js';
import type { Supervisor } from '../../../src/bridge/supervisor.js';
import { createEventLog } from '../../../src/events/log.js';
import type { EventInput } from '../../../src/events/types.js';
import { ensureHomeDirs } from '../../../src/home/fs.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { createSilentLogger } from '../../../src/log/logger.js';
import {
  freshAgentState,
  readAgentState,
  saveAgentState,
} from '../../../src/state/store.js';
import { makeRecord } from '../../state/home-fixture.js';

const profile = {
  preset: 'generic',
  rules: DEFAULT_DELIVERY_RULES,
  classify: () => 'idle' as const,
};

const request = (bodyHash: string): BackendRequest =>
  ({ id: 'w1-r1', agent: 'w1', bodyHash, body: 'x' }) as BackendRequest;

describe('backendFor: the shared backend as one worker sees it', () => {
  it('hands requests on, but closes an echo of the first message example without asking', async () => {
    const submitted: BackendRequest[] = [];
    const backend = {
      name: 'file',
      submit: (r: BackendRequest) => {
        submitted.push(r);
        return Promise.resolve();
      },
      rescan: () => Promise.resolve(),
    } as unknown as SharedBackend;
    const slot = newSlot({
      name: 'w1',
      role: 'worker',
      profile,
      firstMessage: {
        text: '…',
        exampleHashes: new Set(['example-hash']),
        sent: true,
      },
    });
    const events: EventInput[] = [];
    const view = backendFor(slot, {
      backend,
      emit: (e) => {
        events.push(e);
        return Promise.resolve();
      },
    });
    await view.submit(request('real-hash'));
    expect(submitted.map((r) => r.bodyHash)).toEqual(['real-hash']);
    // The echo is answered at once, with nothing: a value the submit
    // returns, which the supervisor takes once the request is routed.
    expect(await view.submit(request('example-hash'))).toEqual({
      backend: 'file',
      recorded: false,
      answered: { id: 'w1-r1', text: '', source: 'macs:protocol-example' },
    });
    expect(submitted).toHaveLength(1);
    expect(events[0]?.type).toBe('warning');
  });
});

describe('answerHandler: answers for an agent of the fleet', () => {
  let paths: HomePaths;
  beforeEach(async () => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-sb-')));
    await ensureHomeDirs(paths);
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  const deps = () => ({
    paths,
    events: createEventLog(paths),
    log: createSilentLogger(),
  });

  it('go to its supervisor while it runs', async () => {
    const slot = newSlot({ name: 'w1', role: 'worker', profile });
    slot.supervisor = {
      onAnswer: () => Promise.resolve('accepted'),
    } as unknown as Supervisor;
    const handle = answerHandler(slot, deps());
    expect(await handle({ id: 'w1-r1', text: 'go', source: 'outbox' })).toBe(
      'accepted',
    );
  });

  it('wait while it is dead, but a dismissal is done at once', async () => {
    const state = freshAgentState('w1', 'generic');
    state.requests['w1-q-17'] = makeRecord({
      id: 'w1-q-17',
      agent: 'w1',
      stage: 'routed',
    });
    await saveAgentState(paths, state);
    const slot = newSlot({ name: 'w1', role: 'worker', profile });
    const handle = answerHandler(slot, deps());
    expect(await handle({ id: 'w1-q-17', text: 'go', source: 'outbox' })).toBe(
      'already-answered',
    );
    expect(
      await handle({
        id: 'w1-q-17',
        text: '',
        source: 'outbox',
        dismiss: { reason: 'not needed', by: 'person' },
      }),
    ).toBe('accepted');
    const after = await readAgentState(paths, 'w1');
    expect(after?.requests['w1-q-17']).toBeUndefined();
    expect(after?.recent[0]).toMatchObject({
      id: 'w1-q-17',
      stage: 'dismissed',
    });
    expect(
      await handle({
        id: 'w1-q-99',
        text: '',
        source: 'outbox',
        dismiss: { reason: '', by: '' },
      }),
    ).toBe('unknown-request');
    await slot.lock?.();
  });
});
