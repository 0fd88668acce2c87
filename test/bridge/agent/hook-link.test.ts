import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createHookLink,
  type HookLink,
} from '../../../src/bridge/agent/hook-link.js';
import {
  createHookApprovals,
  type HookApprovals,
} from '../../../src/bridge/approvals/hook-approvals.js';
import {
  createHookDeliveries,
  type HookDeliveries,
} from '../../../src/bridge/answers/hook-deliveries.js';
import { inactiveReason } from '../../../src/state/hook-observation.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import type { EventInput } from '../../../src/events/types.js';
import { createSilentLogger } from '../../../src/log/logger.js';
import { claimRequest } from '../../../src/state/claim.js';
import { writeFileAtomic, ensurePrivateDir } from '../../../src/home/fs.js';
import {
  decideOnce,
  hookRequestsDir,
  readDecision,
  writeObservation,
  type HookRequestFile,
} from '../../../src/state/hook-files.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { createSerialQueue } from '../../../src/state/serial.js';
import { freshAgentState } from '../../../src/state/store.js';
import type {
  AgentStateFile,
  RequestRecord,
} from '../../../src/state/types.js';
import { waitFor } from '../../helpers/wait-for.js';

describe('hook link (the bridge side of the hooks)', () => {
  let paths: HomePaths;
  let state: AgentStateFile;
  let emitted: Omit<EventInput, 'agent'>[];
  let finished: string[];
  let routed: string[];
  let link: HookLink;
  let approvals: HookApprovals;
  let deliveries: HookDeliveries;

  beforeEach(() => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-link-')));
    state = freshAgentState('w1', 'claude');
    emitted = [];
    finished = [];
    routed = [];
    link = makeLink();
  });
  afterEach(async () => {
    await link.stop();
    rmSync(paths.home, { recursive: true, force: true });
  });

  /** The link, and the stages it hands what it saw to, wired as the supervisor wires them. */
  function makeLink(config = ConfigSchema.parse({ backstopMs: 20 })) {
    const host = {
      agent: 'w1',
      paths,
      config,
      log: createSilentLogger(),
      serial: createSerialQueue(),
      current: () => state,
      emit: (e: Omit<EventInput, 'agent'>) => {
        emitted.push(e);
        return Promise.resolve();
      },
      saveNow: () => Promise.resolve(),
      finish: (record: RequestRecord) => {
        delete state.requests[record.id];
        finished.push(record.id);
        return Promise.resolve();
      },
      route: (record: RequestRecord) => {
        record.stage = 'routed';
        routed.push(record.id);
        return Promise.resolve();
      },
    };
    approvals = createHookApprovals(host);
    deliveries = createHookDeliveries(host);
    return createHookLink({
      ...host,
      preset: 'claude',
      refreshState: () => Promise.resolve(),
      hookSeen: async (seen) => {
        switch (seen.type) {
          case 'call':
            return deliveries.reconcileClaims();
          case 'prompt':
            return deliveries.applyConfirmations(seen.observation);
          case 'requests':
            await approvals.pickUp();
            await approvals.expire();
        }
      },
    });
  }

  const types = () => emitted.map((e) => e.type);

  function answered(
    id: string,
    instructions: string,
    origin?: 'hook',
  ): RequestRecord {
    const now = new Date().toISOString();
    const record: RequestRecord = {
      id,
      agent: 'w1',
      type: origin ? 'approval' : 'question',
      priority: 'normal',
      attributes: {},
      bodyHash: '0'.repeat(40),
      body: 'b',
      stage: 'answered',
      detectedAt: now,
      answeredAt: now,
      response: {
        instructions,
        notes: '',
        source: 'outbox',
        receivedAt: now,
        raw: instructions,
      },
      ...(origin ? { origin } : {}),
    };
    state.requests[id] = record;
    return record;
  }

  it('waits for hooks at start, then says they are active when one calls', async () => {
    await link.start();
    expect(state.hooks?.status).toBe('waiting');
    await writeObservation(paths, 'w1', {
      event: 'SessionStart',
      state: 'idle',
      ts: new Date().toISOString(),
    });
    await waitFor(() => state.hooks?.status === 'active', {
      message: 'active',
    });
    expect(types()).toContain('hooks.active');
    expect(inactiveReason('w1', 30_000)).toMatch(
      /30s.*macs hooks install w1.*trust/,
    );
  });

  it('turns a hook request into an approval routed like any other', async () => {
    await link.start();
    const request: HookRequestFile = {
      id: 'w1-approval-abc',
      agent: 'w1',
      type: 'approval',
      event: 'PreToolUse',
      tool: 'Bash',
      subject: 'git push',
      rule: 'ask-0',
      body: 'w1 wants to run git push',
      createdAt: new Date().toISOString(),
      timeoutSec: 60,
      default: 'deny',
    };
    const dir = hookRequestsDir(paths, 'w1');
    await ensurePrivateDir(dir);
    await writeFileAtomic(
      path.join(dir, `${request.id}.json`),
      JSON.stringify(request),
    );
    await waitFor(() => routed.includes(request.id), { message: 'routed' });
    expect(state.requests[request.id]).toMatchObject({
      type: 'approval',
      origin: 'hook',
      priority: 'high',
      body: request.body,
      attributes: { tool: 'Bash', rule: 'ask-0', hook: 'PreToolUse' },
    });
    expect(readdirSync(dir)).toEqual([]);
    expect(
      emitted.find((e) => e.type === 'request.detected')?.data,
    ).toMatchObject({ origin: 'hook' });
  });

  it('writes the decision for the waiting hook, and never types it', async () => {
    const record = answered(
      'w1-approval-1',
      'deny: wait for the release',
      'hook',
    );
    await approvals.decide(record);
    // An answer in the outbox with no tool call behind it: a person's.
    expect(await readDecision(paths, record.id)).toMatchObject({
      decision: 'deny',
      by: 'person',
      via: 'outbox',
      reason: 'deny: wait for the release',
    });
    expect(record.stage).toBe('delivered');
    expect(record.decision).toMatchObject({
      decision: 'deny',
      decidedBy: 'person',
      via: 'outbox',
    });
    expect(finished).toEqual([record.id]);
    expect(emitted.find((e) => e.type === 'request.delivered')?.data).toEqual({
      method: 'decision',
      decision: 'deny',
      decidedBy: 'person',
      via: 'outbox',
    });
  });

  it.each([
    [{ source: 'exec:codex' }, 'controller', 'exec:codex'],
    [{ source: 'controller:%3' }, 'controller', 'controller:%3'],
    [
      { source: 'outbox/w1-a.txt', by: 'mcp:decide_approval' },
      'controller',
      'mcp:decide_approval',
    ],
    [{ source: 'outbox/w1-a.txt' }, 'person', 'outbox'],
  ])('records who decided an answer from %j', async (from, by, via) => {
    const record = answered('w1-approval-who', 'allow', 'hook');
    if (record.response) Object.assign(record.response, from);
    await approvals.decide(record);
    expect(record.decision).toMatchObject({ decidedBy: by, via });
    expect(await readDecision(paths, record.id)).toMatchObject({ by, via });
  });

  it('decides by an allow rule at once, before routing, and records the rule', async () => {
    await link.stop();
    link = makeLink(
      ConfigSchema.parse({
        backstopMs: 20,
        policy: { allow: [{ name: 'tests', pattern: '^npm test$' }] },
      }),
    );
    await link.start();
    const dir = hookRequestsDir(paths, 'w1');
    const write = (id: string, subject: string) =>
      writeFileAtomic(
        path.join(dir, `${id}.json`),
        JSON.stringify({
          id,
          agent: 'w1',
          type: 'approval',
          event: 'PermissionRequest',
          tool: 'Bash',
          subject,
          fingerprint: '0123456789abcdef',
          body: `may I run ${subject}?`,
          createdAt: new Date().toISOString(),
          timeoutSec: 60,
          default: 'dialog',
        } satisfies HookRequestFile),
      );
    await write('w1-approval-t', 'npm test');
    await write('w1-approval-p', 'npm publish');
    await waitFor(() => routed.includes('w1-approval-p'), {
      message: 'the other one routed',
    });
    await waitFor(() => finished.includes('w1-approval-t'), {
      message: 'decided by rule',
    });
    expect(routed).toEqual(['w1-approval-p']);
    expect(await readDecision(paths, 'w1-approval-t')).toMatchObject({
      decision: 'allow',
      by: 'rule',
      via: 'tests',
      fingerprint: '0123456789abcdef',
    });
    expect(
      emitted.find(
        (e) =>
          e.type === 'request.delivered' && e.requestId === 'w1-approval-t',
      )?.data,
    ).toMatchObject({ decision: 'allow', decidedBy: 'rule', via: 'tests' });
  });

  it('expires an approval whose waiting hook process is gone, so no decision is taken later', async () => {
    // A pid that is certainly not running: a child that has exited.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    await link.start();
    const record = answered('w1-approval-gone', '', 'hook');
    record.stage = 'routed';
    record.approval = {
      source: 'PermissionRequest',
      tool: 'Bash',
      subject: 'npm publish',
      fingerprint: '0123456789abcdef',
      hookPid: gone,
    };
    await waitFor(() => finished.includes(record.id), { message: 'expired' });
    expect(record.stage).toBe('expired');
    expect(await readDecision(paths, record.id)).toMatchObject({
      by: 'timeout',
    });
    expect(
      emitted.find((e) => e.type === 'request.expired')?.data?.reason,
    ).toMatch(/no longer waiting/);
  });

  it('an answer after the hook gave up does not change what the agent was told', async () => {
    const record = answered('w1-approval-2', 'allow', 'hook');
    await decideOnce(paths, {
      id: record.id,
      decision: 'deny',
      by: 'timeout',
      reason: 'no answer in 60s',
      decidedAt: new Date().toISOString(),
    });
    await approvals.decide(record);
    expect(await readDecision(paths, record.id)).toMatchObject({
      decision: 'deny',
      by: 'timeout',
    });
    expect(record.stage).toBe('expired');
    expect(types()).toContain('request.expired');
  });

  it('closes an approval the hook stopped waiting for', async () => {
    await link.start();
    const record = answered('w1-approval-3', '', 'hook');
    record.stage = 'routed';
    await decideOnce(paths, {
      id: record.id,
      decision: 'deny',
      by: 'timeout',
      reason: 'no answer',
      decidedAt: new Date().toISOString(),
    });
    await waitFor(() => finished.includes(record.id), { message: 'expired' });
    expect(record.stage).toBe('expired');
  });

  it('whoever claims first delivers: a Stop hook claim stops the typing', async () => {
    await link.start();
    const mine = answered('w1-q1', 'typed');
    expect(await deliveries.claimForTyping(mine)).toBe(true);
    expect(await deliveries.claimForTyping(mine)).toBe(true); // our own claim (a restarted bridge)
    const raced = answered('w1-q0', 'claimed by the hook first');
    await claimRequest(paths, raced.id, 'hook');
    expect(await deliveries.deliveredByHook(raced)).toBe(true);
    expect(await deliveries.claimForTyping(raced)).toBe(false);
    const theirs = answered('w1-q2', 'handed over');
    const signal = deliveries.signalFor(theirs.id);
    await claimRequest(paths, theirs.id, 'hook');
    // The hook's observation makes the bridge notice at once.
    await writeObservation(paths, 'w1', {
      event: 'Stop',
      state: 'working',
      delivered: theirs.id,
      ts: new Date().toISOString(),
    });
    await waitFor(() => finished.includes(theirs.id), {
      message: 'marked delivered',
    });
    expect(signal.aborted).toBe(true);
    expect(
      emitted.find(
        (e) => e.type === 'request.delivered' && e.requestId === theirs.id,
      ),
    ).toMatchObject({ data: { method: 'stop-hook' } });
    // Both answers the hook claimed are delivered, the bridge's own is not.
    expect(finished.sort()).toEqual([raced.id, theirs.id].sort());
    expect(existsSync(path.join(paths.runtime, 'claims', mine.id))).toBe(true);
  });

  it('a UserPromptSubmit after typing confirms the delivery', async () => {
    await link.start();
    const record = answered('w1-q3', 'go on');
    expect(await deliveries.claimForTyping(record)).toBe(true);
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
    await writeObservation(paths, 'w1', {
      event: 'UserPromptSubmit',
      state: 'working',
      ts: new Date().toISOString(),
      lastPromptAt: new Date(Date.now() + 5).toISOString(),
    });
    await waitFor(() => types().includes('request.confirmed'), {
      message: 'confirmed',
    });
    expect(record.stage).toBe('confirmed');
    expect(state.recent[0]?.stage).toBe('confirmed');
  });

  it('hook state wins over the screen', async () => {
    await link.start();
    await writeObservation(paths, 'w1', {
      event: 'UserPromptSubmit',
      state: 'working',
      ts: new Date().toISOString(),
    });
    expect(await link.resolveState('idle')).toEqual({
      state: 'working',
      source: 'hook',
    });
    expect(await link.resolveState('working')).toEqual({
      state: 'working',
      source: 'hook',
    });
  });
});
