import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEvents } from '../../src/events/log.js';
import { runHook, type HookRunDeps } from '../../src/hooks/runner.js';
import { HOOK_STDIN_MAX_BYTES } from '../../src/hooks/stdin.js';
import { claimRequest, readClaim } from '../../src/state/claim.js';
import {
  decideOnce,
  hookRequestsDir,
  readDecision,
  readObservation,
} from '../../src/state/hook-files.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { freshAgentState, saveAgentState } from '../../src/state/store.js';
import type { RequestRecord } from '../../src/state/types.js';
import { waitForHookRequest } from '../helpers/hook-requests.js';

const base = (event: string) => ({
  session_id: 's-1',
  transcript_path: '/tmp/t.jsonl',
  cwd: '/work/repo',
  permission_mode: 'default',
  hook_event_name: event,
});

describe('macs hook (runner)', () => {
  let paths: HomePaths;
  let out: string[];

  beforeEach(() => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-hook-')));
    out = [];
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  function deps(input: string, env: NodeJS.ProcessEnv = {}): HookRunDeps {
    return {
      env: { MACS_HOME: paths.home, ...env },
      cwd: '/',
      readStdin: () => Promise.resolve(input),
      stdinIsTTY: false,
      write: (line) => out.push(line),
    };
  }

  const run = (
    event: string,
    input: unknown,
    env: NodeJS.ProcessEnv = { MACS_AGENT: 'w1' },
  ) =>
    runHook(
      { event },
      deps(typeof input === 'string' ? input : JSON.stringify(input), env),
    );

  async function saveState(
    records: RequestRecord[] = [],
    pane?: string,
    agent = 'w1',
  ) {
    const s = freshAgentState(agent, 'claude');
    if (pane) s.pane = pane;
    for (const r of records) s.requests[r.id] = r;
    await saveAgentState(paths, s);
  }

  function answeredRecord(id: string, instructions: string): RequestRecord {
    const now = new Date().toISOString();
    return {
      id,
      agent: 'w1',
      workerId: id.slice(3),
      type: 'question',
      priority: 'normal',
      attributes: {},
      bodyHash: '0'.repeat(40),
      body: 'question',
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
    };
  }

  function pretendBridgeRunning(agent = 'w1') {
    mkdirSync(paths.state, { recursive: true });
    writeFileSync(path.join(paths.state, `${agent}.lock`), `${process.pid}\n`);
  }

  it('SessionStart: prints the worker protocol as context, records the event and the state', async () => {
    const result = await run('SessionStart', {
      ...base('SessionStart'),
      source: 'startup',
    });
    expect(result.agent).toBe('w1');
    expect(out).toHaveLength(1);
    const reply = JSON.parse(out[0] ?? '');
    expect(reply.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(reply.hookSpecificOutput.additionalContext).toContain(
      '<<CONTROLLER_REQUEST',
    );
    expect(reply.hookSpecificOutput.additionalContext).toContain('agent "w1"');
    expect(await readObservation(paths, 'w1')).toMatchObject({
      event: 'SessionStart',
      state: 'idle',
    });
    expect(
      (await readEvents(paths, { agent: 'w1' })).map((e) => e.type),
    ).toEqual(['hook.SessionStart']);
  });

  it('SessionStart in the controller (MACS_ROLE=controller): its role as context, no worker protocol', async () => {
    await run(
      'SessionStart',
      { ...base('SessionStart'), source: 'startup' },
      { MACS_AGENT: 'w1', MACS_ROLE: 'controller' },
    );
    const context = JSON.parse(out[0] ?? '').hookSpecificOutput
      .additionalContext as string;
    expect(context).toContain('you are their controller, agent "w1"');
    expect(context).not.toContain('<<CONTROLLER_REQUEST');
  });

  it('finds its agent by $TMUX_PANE in the recorded state, and carries the prompt time forward', async () => {
    await saveState([], '%7', 'w7');
    await run(
      'UserPromptSubmit',
      { ...base('UserPromptSubmit'), prompt: 'hi' },
      { TMUX_PANE: '%7' },
    );
    expect(out).toEqual([]);
    const first = await readObservation(paths, 'w7');
    expect(first).toMatchObject({
      event: 'UserPromptSubmit',
      state: 'working',
    });
    expect(first?.lastPromptAt).toBeDefined();
    await run(
      'PreToolUse',
      {
        ...base('PreToolUse'),
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
      },
      { TMUX_PANE: '%7' },
    );
    const second = await readObservation(paths, 'w7');
    expect(second).toMatchObject({ event: 'PreToolUse', state: 'working' });
    expect(second?.lastPromptAt).toBe(first?.lastPromptAt);
  });

  it('with no agent to be found: no output, and no .macs/ made in a foreign folder', async () => {
    const result = await run('Stop', base('Stop'), { TMUX_PANE: '%99' });
    expect(result.error).toMatch(/no agent is recorded for pane %99/);
    expect(out).toEqual([]);
    expect(existsSync(paths.runtime)).toBe(false);
    mkdirSync(paths.runtime);
    await run('Stop', base('Stop'), {});
    const errors = await readEvents(paths, { agent: 'hooks' });
    expect(errors[0]).toMatchObject({
      type: 'error',
      data: { where: 'hook', event: 'Stop' },
    });
  });

  it('never makes .macs/ in a project when no home was given', async () => {
    const project = path.join(paths.home, 'project');
    mkdirSync(project);
    const result = await runHook(
      { event: 'SessionStart' },
      {
        ...deps(JSON.stringify(base('SessionStart'))),
        env: { MACS_AGENT: 'w1' },
        cwd: project,
      },
    );
    expect(result.error).toMatch(/not a macs home/);
    expect(out).toEqual([]);
    expect(existsSync(path.join(project, '.macs'))).toBe(false);
  });

  it.each(['', 'garbage', '{"hook_event_name":', '[]'])(
    'bad stdin %j: exit quietly with an error event',
    async (raw) => {
      const result = await run('Stop', raw);
      expect(out).toEqual([]);
      expect(result.reply).toBeUndefined();
      expect((await readEvents(paths, { agent: 'w1' }))[0]).toMatchObject({
        type: 'error',
        data: { where: 'hook', event: 'Stop' },
      });
    },
  );

  it('an invalid event name or agent name is an error event, never an exception', async () => {
    mkdirSync(paths.runtime);
    await runHook({ event: '../../etc' }, deps('{}', { MACS_AGENT: 'w1' }));
    await runHook({ event: 'Stop' }, deps('{}', { MACS_AGENT: '../evil' }));
    expect(out).toEqual([]);
    expect((await readEvents(paths)).map((e) => e.type)).toEqual([
      'error',
      'error',
    ]);
  });

  // Issue 16, item 9: `macs hook` held all of stdin (394 MB for 100 MB of
  // JSON). It asks for at most HOOK_STDIN_MAX_BYTES and records an error.
  it('reads a bounded stdin: too much input is an error event, and the hook still exits quietly', async () => {
    await saveState();
    const asked: (number | undefined)[] = [];
    const result = await runHook(
      { event: 'Stop' },
      {
        ...deps('', { MACS_AGENT: 'w1' }),
        readStdin: (maxBytes) => {
          asked.push(maxBytes);
          return Promise.reject(
            new Error(`input longer than ${String(maxBytes)} bytes; not read`),
          );
        },
      },
    );
    expect(asked).toEqual([HOOK_STDIN_MAX_BYTES]);
    expect(out).toEqual([]);
    expect(result.error).toMatch(/input longer than/);
    expect(
      (await readEvents(paths, { type: 'error' }))[0]?.data?.message,
    ).toMatch(/input longer than 8388608 bytes/);
  });

  it('Stop hands a queued answer over once, claimed against the bridge', async () => {
    await saveState([answeredRecord('w1-q1', 'Migrate after the API change.')]);
    await run('Stop', { ...base('Stop'), stop_hook_active: false });
    expect(JSON.parse(out[0] ?? '')).toEqual({
      hookSpecificOutput: {
        hookEventName: 'Stop',
        additionalContext:
          'The controller answered your request q1:\n\nMigrate after the API change.',
      },
    });
    expect(await readClaim(paths, 'w1-q1')).toMatchObject({ by: 'hook' });
    expect(await readObservation(paths, 'w1')).toMatchObject({
      state: 'working',
      delivered: 'w1-q1',
      consecutiveBlocks: 1,
    });
    // The state file still says `answered` (only the bridge writes it): the claim stops a second hand-over.
    out.length = 0;
    await run('Stop', { ...base('Stop'), stop_hook_active: true });
    expect(out).toEqual([]);
    expect(await readObservation(paths, 'w1')).toMatchObject({
      state: 'idle',
      consecutiveBlocks: 0,
    });
  });

  // Regression (issue 16, item 7): `macs hook Stop --agent <other>` from any
  // process took the other agent's queued answer, even for an agent whose
  // preset has no hooks. A hook speaks for its agent only from its pane.
  it('a hook from another pane, or for a preset without hooks, is refused: no hand-over, no state', async () => {
    await saveState([answeredRecord('w1-q1', 'for w1 only')], '%3');
    await run('Stop', base('Stop'), { MACS_AGENT: 'w1', TMUX_PANE: '%9' });
    await run('Stop', base('Stop'), { MACS_AGENT: 'w1' });
    expect(out).toEqual([]);
    expect(await readClaim(paths, 'w1-q1')).toBeUndefined();
    expect(await readObservation(paths, 'w1')).toBeUndefined();
    const errors = (await readEvents(paths, { type: 'error' })).map((e) =>
      String(e.data?.message),
    );
    expect(errors).toEqual([
      "hook Stop refused: it came from pane %9, not from w1's pane %3",
      "hook Stop refused: it came from outside tmux, not from w1's pane %3",
    ]);
    // From its own pane it works.
    await run('Stop', base('Stop'), { MACS_AGENT: 'w1', TMUX_PANE: '%3' });
    expect(JSON.parse(out[0] ?? '{}')).toMatchObject({
      hookSpecificOutput: { hookEventName: 'Stop' },
    });

    const generic = freshAgentState('g1', 'generic');
    generic.pane = '%4';
    generic.requests['g1-q1'] = answeredRecord('g1-q1', 'typed, not handed');
    await saveAgentState(paths, generic);
    out.length = 0;
    await run('Stop', base('Stop'), { MACS_AGENT: 'g1', TMUX_PANE: '%4' });
    expect(out).toEqual([]);
    expect(await readClaim(paths, 'g1-q1')).toBeUndefined();
  });

  it('Stop does not hand over an answer the bridge is already typing', async () => {
    await saveState([answeredRecord('w1-q1', 'typed by the bridge')]);
    await claimRequest(paths, 'w1-q1', 'bridge');
    await run('Stop', base('Stop'));
    expect(out).toEqual([]);
    expect(await readObservation(paths, 'w1')).toMatchObject({ state: 'idle' });
  });

  it('PreToolUse: rm -rf / is denied with a reason', async () => {
    await run('PreToolUse', {
      ...base('PreToolUse'),
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf /' },
      tool_use_id: 'toolu_1',
    });
    const reply = JSON.parse(out[0] ?? '');
    expect(reply.hookSpecificOutput).toMatchObject({
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
    });
    expect(reply.hookSpecificOutput.permissionDecisionReason).toMatch(
      /rm-everything/,
    );
  });

  describe('approvals', () => {
    const gitPush = {
      ...base('PreToolUse'),
      tool_name: 'Bash',
      tool_input: { command: 'git push origin main' },
      tool_use_id: 'toolu_2',
    };
    const config = (policy: Record<string, unknown>) =>
      writeFileSync(
        path.join(paths.home, 'macs.config.json'),
        JSON.stringify({ policy: { ask: ['\\bgit\\s+push\\b'], ...policy } }),
      );

    it('with no bridge running, the default applies at once', async () => {
      config({ askDefault: 'deny' });
      // At once: had it waited, the reason would be the timeout's.
      await run('PreToolUse', gitPush);
      const reply = JSON.parse(out[0] ?? '');
      expect(reply.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(reply.hookSpecificOutput.permissionDecisionReason).toMatch(
        /no macs bridge is running/,
      );
    });

    it('waits for the decision the bridge writes', async () => {
      config({ askTimeoutSec: 30 });
      pretendBridgeRunning();
      const hook = run('PreToolUse', gitPush);
      const { file, request } = await waitForHookRequest(paths, 'w1');
      expect(request).toMatchObject({
        agent: 'w1',
        type: 'approval',
        tool: 'Bash',
        subject: 'git push origin main',
        default: 'deny',
        timeoutSec: 30,
      });
      await decideOnce(paths, {
        id: request?.id ?? '',
        decision: 'allow',
        by: 'controller',
        reason: 'allow: CI is green',
        decidedAt: new Date().toISOString(),
      });
      await hook;
      const reply = JSON.parse(out[0] ?? '');
      expect(reply.hookSpecificOutput).toEqual({
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason:
          'The controller approved this: allow: CI is green',
      });
      expect(existsSync(file)).toBe(false);
    });

    it('gives up at the timeout with the configured default, recorded so a late answer cannot change it', async () => {
      config({ askTimeoutSec: 1, askDefault: 'allow' });
      pretendBridgeRunning();
      await run('PreToolUse', gitPush);
      const reply = JSON.parse(out[0] ?? '');
      expect(reply.hookSpecificOutput.permissionDecision).toBe('allow');
      expect(reply.hookSpecificOutput.permissionDecisionReason).toMatch(
        /within 1s/,
      );
      const events = await readEvents(paths, { agent: 'w1' });
      const id =
        events.find((e) => e.type === 'hook.PreToolUse')?.requestId ?? '';
      expect(await readDecision(paths, id)).toMatchObject({
        by: 'timeout',
        decision: 'allow',
      });
      expect(readdirSync(hookRequestsDir(paths, 'w1'))).toEqual([]);
    });
  });

  describe('PermissionRequest approvals', () => {
    const publish = {
      ...base('PermissionRequest'),
      tool_name: 'Bash',
      tool_input: { command: 'npm publish', description: 'Publish' },
      permission_suggestions: [],
    };
    const config = (policy: Record<string, unknown>) =>
      writeFileSync(
        path.join(paths.home, 'macs.config.json'),
        JSON.stringify({ policy }),
      );
    async function requestFile() {
      return (await waitForHookRequest(paths, 'w1')).request;
    }

    it("with no bridge running, replies nothing at once: Claude Code's dialog stays for a person", async () => {
      // At once: had it waited, the event below would not say noBridge.
      await run('PermissionRequest', publish);
      expect(out).toEqual([]);
      expect(await readObservation(paths, 'w1')).toMatchObject({
        event: 'PermissionRequest',
        state: 'approval',
      });
      const events = await readEvents(paths, { agent: 'w1' });
      expect(
        events.find((e) => e.type === 'hook.PermissionRequest'),
      ).toMatchObject({
        data: { decision: 'dialog', by: 'timeout', noBridge: true },
      });
    });

    it('asks through a hook request carrying the fingerprint and its pid, and replies with the decision', async () => {
      config({ askTimeoutSec: 30 });
      pretendBridgeRunning();
      const hook = run('PermissionRequest', publish);
      const request = await requestFile();
      expect(request).toMatchObject({
        event: 'PermissionRequest',
        tool: 'Bash',
        subject: 'npm publish',
        default: 'dialog',
        pid: process.pid,
      });
      expect(request.fingerprint).toMatch(/^[0-9a-f]{16}$/);
      // While it waits, the agent shows as waiting for approval.
      expect(await readObservation(paths, 'w1')).toMatchObject({
        event: 'PermissionRequest',
        state: 'approval',
      });
      await decideOnce(paths, {
        id: request.id,
        decision: 'deny',
        fingerprint: request.fingerprint ?? '',
        by: 'controller',
        reason: 'deny: not from a worker',
        decidedAt: new Date().toISOString(),
      });
      await hook;
      expect(JSON.parse(out[0] ?? '')).toEqual({
        hookSpecificOutput: {
          hookEventName: 'PermissionRequest',
          decision: {
            behavior: 'deny',
            message: 'The controller refused this: deny: not from a worker',
          },
        },
      });
    });

    it('never applies a decision made for another prompt (its fingerprint differs)', async () => {
      config({ askTimeoutSec: 30 });
      pretendBridgeRunning();
      const hook = run('PermissionRequest', publish);
      const request = await requestFile();
      await decideOnce(paths, {
        id: request.id,
        decision: 'allow',
        fingerprint: '0123456789abcdef',
        by: 'controller',
        reason: 'allow',
        decidedAt: new Date().toISOString(),
      });
      await hook;
      expect(out).toEqual([]);
      const events = await readEvents(paths, { agent: 'w1' });
      expect(
        events.find((e) => e.type === 'hook.PermissionRequest'),
      ).toMatchObject({ data: { decision: 'dialog', mismatch: true } });
    });

    it('stops waiting when the agent went on (the dialog was answered at the screen), so a later decision is refused', async () => {
      config({ askTimeoutSec: 30 });
      pretendBridgeRunning();
      const hook = run('PermissionRequest', publish);
      const request = await requestFile();
      // A person pressed Enter on the dialog: the tool ran.
      await run('PostToolUse', {
        ...base('PostToolUse'),
        tool_name: 'Bash',
        tool_input: { command: 'npm publish' },
      });
      await hook;
      expect(out).toEqual([]);
      // The agent's newer state is not overwritten by the undecided approval.
      expect(await readObservation(paths, 'w1')).toMatchObject({
        event: 'PostToolUse',
        state: 'working',
      });
      const stands = await readDecision(paths, request.id);
      expect(stands).toMatchObject({ decision: 'dialog', by: 'timeout' });
      expect(stands?.reason).toMatch(/went on \(PostToolUse\)/);
      const late = await decideOnce(paths, {
        id: request.id,
        decision: 'allow',
        by: 'controller',
        reason: 'allow',
        decidedAt: new Date().toISOString(),
      });
      expect(late.first).toBe(false);
    });
  });

  it('an unreadable config still answers (default policy) and says so', async () => {
    writeFileSync(path.join(paths.home, 'macs.config.json'), '{ nope');
    await run('PreToolUse', {
      ...base('PreToolUse'),
      tool_name: 'Bash',
      tool_input: { command: 'git push -f' },
    });
    expect(JSON.parse(out[0] ?? '').hookSpecificOutput.permissionDecision).toBe(
      'deny',
    );
    const events = await readEvents(paths, { agent: 'w1' });
    expect(events.map((e) => e.type).sort()).toEqual([
      'error',
      'hook.PreToolUse',
    ]);
  });

  // The hook caches the validated config (config-cache.ts). A config broken
  // after a good one was cached must be reported as before, with the
  // default policy applied, never answered from the cache.
  it('a config broken after a good one was cached is reported, not read from the cache', async () => {
    const configFile = path.join(paths.home, 'macs.config.json');
    mkdirSync(paths.runtime, { mode: 0o700 });
    // A policy that lets force pushes through: the cached config.
    writeFileSync(configFile, JSON.stringify({ policy: { deny: [] } }));
    const push = {
      ...base('PreToolUse'),
      tool_name: 'Bash',
      tool_input: { command: 'git push -f' },
    };
    await run('PreToolUse', push);
    expect(out).toEqual([]);
    expect(existsSync(path.join(paths.runtime, 'cache', 'config.json'))).toBe(
      true,
    );
    writeFileSync(configFile, JSON.stringify({ policy: { deny: 'all' } }));
    await run('PreToolUse', push);
    expect(JSON.parse(out[0] ?? '').hookSpecificOutput.permissionDecision).toBe(
      'deny',
    );
    const errors = (await readEvents(paths, { agent: 'w1' })).filter(
      (e) => e.type === 'error',
    );
    expect(errors.map((e) => e.data?.message)).toEqual([
      `config unreadable, using the default policy: invalid config in ${configFile}:\n  policy.deny: expected array, received string`,
    ]);
  });

  it('Codex notify takes its JSON as an argument', async () => {
    await runHook(
      {
        event: 'notify',
        payload: '{"type":"agent-turn-complete","thread-id":"t1"}',
        agent: 'cx',
      },
      deps(''),
    );
    expect(out).toEqual([]);
    expect(await readObservation(paths, 'cx')).toMatchObject({
      event: 'notify',
      state: 'idle',
    });
  });
});
