import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHookApprovals,
  type HookApprovals,
} from '../../../src/bridge/approvals/hook-approvals.js';
import { ConfigSchema, type MacsConfig } from '../../../src/config/schema.js';
import type { EventInput } from '../../../src/events/types.js';
import { ensurePrivateDir, writeFileAtomic } from '../../../src/home/fs.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { createSilentLogger } from '../../../src/log/logger.js';
import {
  decideOnce,
  hookRequestsDir,
  readDecision,
  type HookRequestFile,
} from '../../../src/state/hook-files.js';
import { createSerialQueue } from '../../../src/state/serial.js';
import { freshAgentState } from '../../../src/state/store.js';
import type {
  AgentStateFile,
  RequestRecord,
} from '../../../src/state/types.js';

describe('hook approvals', () => {
  let paths: HomePaths;
  let state: AgentStateFile;
  let emitted: Omit<EventInput, 'agent'>[];
  let finished: string[];
  let routed: string[];
  let config: MacsConfig;
  let approvals: HookApprovals;

  beforeEach(async () => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-ha-')));
    await ensurePrivateDir(hookRequestsDir(paths, 'w1'));
    state = freshAgentState('w1', 'claude');
    emitted = [];
    finished = [];
    routed = [];
    config = ConfigSchema.parse({});
    approvals = createHookApprovals({
      agent: 'w1',
      paths,
      get config() {
        return config;
      },
      log: createSilentLogger(),
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
      route: (record) => {
        record.stage = 'routed';
        routed.push(record.id);
        return Promise.resolve();
      },
    });
  });
  afterEach(() => {
    rmSync(paths.home, { recursive: true, force: true });
  });

  const dir = () => hookRequestsDir(paths, 'w1');

  function write(name: string, content: unknown): Promise<void> {
    return writeFileAtomic(path.join(dir(), name), JSON.stringify(content));
  }

  function request(fields: Partial<HookRequestFile> = {}): HookRequestFile {
    return {
      id: 'w1-approval-a',
      agent: 'w1',
      type: 'approval',
      event: 'PreToolUse',
      tool: 'Bash',
      subject: 'git push',
      body: 'w1 wants to run git push',
      createdAt: new Date().toISOString(),
      timeoutSec: 60,
      default: 'deny',
      ...fields,
    };
  }

  it('takes a request file as a detected, counted and routed approval', async () => {
    await write('w1-approval-a.json', request());
    await approvals.pickUp();
    expect(routed).toEqual(['w1-approval-a']);
    expect(state.counters.detected).toBe(1);
    expect(state.requests['w1-approval-a']).toMatchObject({
      origin: 'hook',
      type: 'approval',
      approval: { source: 'PreToolUse', tool: 'Bash', subject: 'git push' },
    });
    expect(readdirSync(dir())).toEqual([]);
    expect(emitted.map((e) => e.type)).toEqual(['request.detected']);
  });

  it("drops another agent's request, and one it has seen already", async () => {
    await write(
      'w1-approval-x.json',
      request({ id: 'w1-approval-x', agent: 'w2' }),
    );
    state.recent = [
      {
        id: 'w1-approval-old',
        type: 'approval',
        stage: 'delivered',
        detectedAt: new Date().toISOString(),
        firstLine: '',
      },
    ];
    await write('w1-approval-old.json', request({ id: 'w1-approval-old' }));
    await write('notes.txt', 'not a request');
    await approvals.pickUp();
    expect(readdirSync(dir())).toEqual(['notes.txt']);
    expect(state.requests).toEqual({});
    expect(emitted).toEqual([
      {
        type: 'warning',
        data: {
          message: 'ignored a malformed hook request w1-approval-x.json',
        },
      },
    ]);
  });

  it('a deny rule decides before any answerer', async () => {
    config = ConfigSchema.parse({
      policy: { deny: [{ name: 'no-push', pattern: '^git push' }] },
    });
    await write('w1-approval-a.json', request());
    await approvals.pickUp();
    expect(routed).toEqual([]);
    expect(finished).toEqual(['w1-approval-a']);
    expect(await readDecision(paths, 'w1-approval-a')).toMatchObject({
      decision: 'deny',
      by: 'rule',
      via: 'no-push',
    });
    expect(emitted.map((e) => e.type)).toEqual([
      'request.detected',
      'request.answered',
      'request.delivered',
    ]);
  });

  it('writes the decision once: a later answer finds the hook gone', async () => {
    await write('w1-approval-a.json', request());
    await approvals.pickUp();
    const record = state.requests['w1-approval-a'] as RequestRecord;
    record.stage = 'answered';
    record.response = {
      instructions: 'allow',
      notes: '',
      source: 'exec:codex',
      receivedAt: new Date().toISOString(),
      raw: 'allow',
    };
    await approvals.decide(record);
    expect(record.stage).toBe('delivered');
    expect(record.decision).toMatchObject({
      decision: 'allow',
      decidedBy: 'controller',
      via: 'exec:codex',
    });
    expect(await readDecision(paths, record.id)).toMatchObject({
      decision: 'allow',
      by: 'controller',
      fingerprint: record.approval?.fingerprint,
    });
    // The same answer again, late: the decision already stands, and the
    // delivered request is not moved back to `expired` (it was the race of
    // issue 23: a direct assignment did that); the refusal is an event.
    emitted.length = 0;
    await approvals.decide(record);
    expect(record.stage).toBe('delivered');
    expect(emitted.map((e) => e.type)).toEqual(['request.step-refused']);
    expect(emitted[0]?.data).toEqual({
      step: 'closed',
      from: 'delivered',
      to: 'expired',
    });
  });

  it('closes an approval whose hook timed out or is gone', async () => {
    await write('w1-approval-a.json', request());
    await write(
      'w1-approval-b.json',
      request({
        id: 'w1-approval-b',
        pid: spawnSync(process.execPath, ['-e', '0']).pid,
      }),
    );
    await approvals.pickUp();
    await decideOnce(paths, {
      id: 'w1-approval-a',
      decision: 'deny',
      by: 'timeout',
      reason: 'no answer in 60s',
      decidedAt: new Date().toISOString(),
    });
    await approvals.expire();
    expect(finished.sort()).toEqual(['w1-approval-a', 'w1-approval-b']);
    expect(
      emitted
        .filter((e) => e.type === 'request.expired')
        .map((e) => e.data?.reason),
    ).toEqual(['no answer in 60s', expect.stringMatching(/no longer waiting/)]);
  });
});
