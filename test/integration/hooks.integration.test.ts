import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareAgentHooks } from '../../src/hooks/install.js';
import { readClaim } from '../../src/state/claim.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { SnapshotSchema } from '../../src/state/snapshot-schema.js';
import { readAgentState } from '../../src/state/store.js';
import {
  FAKE_HOOK_AGENT,
  MACS_BIN,
  readAllEvents,
  runMacs,
  startBridge,
  type BridgeProcess,
} from '../helpers/macs.js';
import {
  childEnv,
  makeTempHome,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

const AGENT = 'worker-1';

interface Recorded {
  type: string;
  event?: string;
  text?: string;
  reason?: string;
  decision?: string;
  tool?: string;
  exitCode?: number;
  stdout?: string;
}

describe('hooks end to end: a fake Claude Code calling `macs hook`', () => {
  let server: TestTmuxServer;
  let home: string;
  let paths: HomePaths;
  let cleanup: () => void;
  let record: string;
  const bridges: BridgeProcess[] = [];

  beforeEach(async () => {
    server = await startTmuxServer();
    ({ home, cleanup } = makeTempHome('macs-hooks-'));
    paths = resolveHomePaths(home);
    record = path.join(home, 'record.jsonl');
  });

  afterEach(async () => {
    for (const b of bridges.splice(0)) {
      b.child.kill('SIGKILL');
      await b.exited;
    }
    await server.kill();
    cleanup();
  });

  const recorded = (): Recorded[] =>
    existsSync(record)
      ? readFileSync(record, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Recorded)
      : [];

  const flag = (name: string) => path.join(home, `${name}.flag`);
  const raise = (name: string) => writeFileSync(flag(name), 'go');

  /** Start the fake agent the way `macs start` would: with its per-agent settings file. */
  async function startAgent(
    script: unknown[],
    policy?: Record<string, unknown>,
  ) {
    if (policy)
      writeFileSync(
        path.join(home, 'macs.config.json'),
        JSON.stringify({ policy }),
      );
    const { args } = await prepareAgentHooks({
      agent: AGENT,
      hooks: 'claude',
      paths,
      askTimeoutSec: 30,
      macsCommand: [process.execPath, MACS_BIN],
    });
    const scriptFile = path.join(home, 'script.json');
    writeFileSync(scriptFile, JSON.stringify(script));
    const pane = await server.spawnPane(
      [
        process.execPath,
        FAKE_HOOK_AGENT,
        ...args,
        '--script',
        scriptFile,
        '--record',
        record,
      ],
      { cwd: home },
    );
    // SessionStart ran and its reply (the worker protocol) reached the agent.
    const context = await waitFor(
      () => recorded().find((r) => r.type === 'context'),
      { timeout: 15_000, message: 'SessionStart context' },
    );
    expect(context.text).toContain('<<CONTROLLER_REQUEST');
    return pane;
  }

  function bridge(pane: string): BridgeProcess {
    const b = startBridge(
      [
        '--worker-pane',
        pane,
        '--agent',
        AGENT,
        '--backend',
        'file',
        '--preset',
        'claude',
        '--quiet',
      ],
      { home, socket: server.socket },
    );
    bridges.push(b);
    return b;
  }

  const events = () => readAllEvents(home).filter((e) => e.agent === AGENT);
  const waitForEvent = (
    type: string,
    match: (e: ReturnType<typeof events>[number]) => boolean = () => true,
  ) =>
    waitFor(() => events().find((e) => e.type === type && match(e)), {
      timeout: 20_000,
      message: `event ${type}`,
    });

  const stateOf = () => readAgentState(paths, AGENT);

  it('tracks the agent state from its hooks, hook over screen, and records each hook', async () => {
    const pane = await startAgent([
      { waitFile: flag('turn') },
      // A turn that draws no spinner: the screen says idle, the hooks say working.
      {
        turn: {
          prompt: 'work quietly',
          untilFile: flag('done'),
          busyMs: 0,
          quiet: true,
        },
      },
    ]);
    const b = bridge(pane);
    await waitFor(async () => (await stateOf())?.hooks?.status === 'active', {
      timeout: 15_000,
      message: `hooks active; bridge said: ${b.output()}`,
    });
    await waitFor(async () => (await stateOf())?.state === 'idle', {
      timeout: 15_000,
      message: 'idle after SessionStart',
    });
    raise('turn');
    await waitFor(
      async () => {
        const s = await stateOf();
        return s?.state === 'working' && s.stateSource === 'hook';
      },
      { timeout: 15_000, message: 'working from UserPromptSubmit' },
    );
    const disagreement = await waitForEvent('state.disagreement');
    expect(disagreement.data).toMatchObject({
      hook: 'working',
      screen: 'idle',
      winner: 'hook',
    });
    expect((await stateOf())?.state).toBe('working');
    raise('done');
    await waitFor(
      async () => {
        const s = await stateOf();
        return s?.state === 'idle' && s.stateSource === 'hook';
      },
      { timeout: 15_000, message: 'idle from Stop' },
    );
    const types = events().map((e) => e.type);
    for (const t of [
      'hook.SessionStart',
      'hook.UserPromptSubmit',
      'hook.Stop',
      'hooks.active',
    ])
      expect(types).toContain(t);
    // Every hook call exited 0.
    expect(
      recorded()
        .filter((r) => r.type === 'hook')
        .every((r) => r.exitCode === 0),
    ).toBe(true);
  });

  it('delivers a queued answer through the Stop hook, without typing', async () => {
    const pane = await startAgent([
      {
        print:
          '<<CONTROLLER_REQUEST id=q-1 type=question>>\nWhich option, (a) or (b)?\n<<CONTROLLER_REQUEST_END>>\n',
      },
      {
        turn: {
          prompt: 'keep working meanwhile',
          untilFile: flag('answered'),
        },
      },
    ]);
    bridge(pane);
    const id = `${AGENT}-q-1`;
    await waitFor(() => existsSync(path.join(home, 'inbox', `${id}.json`)), {
      timeout: 20_000,
      message: 'inbox file',
    });
    const respond = await runMacs(
      [
        'respond',
        id,
        'WORKER INSTRUCTIONS:\nTake option (b).\n\nNOTES:\nnot for the worker',
      ],
      { home, socket: server.socket },
    );
    expect(respond.exitCode, respond.stderr).toBe(0);
    await waitForEvent('request.answered', (e) => e.requestId === id);
    raise('answered'); // the turn ends: Claude Code runs its Stop hook
    const block = await waitFor(
      () => recorded().find((r) => r.type === 'stop-block'),
      {
        timeout: 20_000,
        message: 'a Stop hook block',
      },
    );
    expect(block.reason).toContain('Take option (b).');
    expect(block.reason).not.toContain('not for the worker');
    const delivered = await waitForEvent(
      'request.delivered',
      (e) => e.requestId === id,
    );
    expect(delivered.data).toMatchObject({ method: 'stop-hook' });
    await waitForEvent('request.archived', (e) => e.requestId === id);
    expect(await readClaim(paths, id)).toMatchObject({ by: 'hook' });
    // Nothing was typed into the pane, and it was handed over exactly once.
    expect(recorded().filter((r) => r.type === 'submit')).toEqual([]);
    expect(recorded().filter((r) => r.type === 'stop-block')).toHaveLength(1);
    expect(events().filter((e) => e.type === 'request.delivered')).toHaveLength(
      1,
    );

    const stats = await runMacs(
      ['events', '--stats', '--json', '--agent', AGENT],
      {
        home,
        socket: server.socket,
      },
    );
    expect(stats.exitCode, stats.stderr).toBe(0);
    const parsed = JSON.parse(stats.stdout) as {
      requests: number;
      latency: { span: string }[];
    };
    expect(parsed.requests).toBe(1);
    expect(parsed.latency.map((l) => l.span)).toContain('answered→delivered');
  });

  it('confirms a typed answer when the agent reports it with UserPromptSubmit', async () => {
    const pane = await startAgent([
      {
        print:
          '<<CONTROLLER_REQUEST id=q-2>>\nMay I run the migration?\n<<CONTROLLER_REQUEST_END>>\n',
      },
    ]);
    bridge(pane);
    const id = `${AGENT}-q-2`;
    await waitFor(() => existsSync(path.join(home, 'inbox', `${id}.json`)), {
      timeout: 20_000,
      message: 'inbox file',
    });
    // The agent is idle at its prompt: the answer is typed, as for any agent.
    await runMacs(['respond', id, 'Yes, run it.'], {
      home,
      socket: server.socket,
    });
    const submitted = await waitFor(
      () => recorded().find((r) => r.type === 'submit'),
      { timeout: 20_000, message: 'the typed answer' },
    );
    expect(submitted.text).toBe('Yes, run it.');
    const confirmed = await waitForEvent(
      'request.confirmed',
      (e) => e.requestId === id,
    );
    expect(confirmed.data).toMatchObject({
      via: 'hook',
      event: 'UserPromptSubmit',
    });
    const day = readdirSync(path.join(home, 'archive'))[0] ?? '';
    const archived = JSON.parse(
      readFileSync(path.join(home, 'archive', day, `${id}.json`), 'utf8'),
    ) as { stage: string; confirmedAt?: string };
    expect(archived.stage).toBe('confirmed');
    expect(archived.confirmedAt).toMatch(/^\d{4}-/);
    const types = events()
      .filter((e) => e.requestId === id)
      .map((e) => e.type);
    expect(types.indexOf('request.confirmed')).toBeGreaterThan(
      types.indexOf('request.delivered'),
    );
  });

  it('denies a PreToolUse for rm -rf / with a reason the agent sees', async () => {
    const pane = await startAgent([
      { waitFile: flag('go') },
      {
        tool: 'Bash',
        input: { command: 'rm -rf /', description: 'clean up' },
      },
      { tool: 'Bash', input: { command: 'ls -la' } },
    ]);
    bridge(pane);
    raise('go');
    const tools = await waitFor(
      () => {
        const list = recorded().filter((r) => r.type === 'tool');
        return list.length >= 2 ? list : undefined;
      },
      { timeout: 20_000, message: 'two tool calls' },
    );
    expect(tools[0]).toMatchObject({ decision: 'deny' });
    expect(tools[0]?.reason).toMatch(/rm-everything.*delete everything/);
    expect(tools[1]).toMatchObject({ decision: 'none' });
    const hookEvents = events().filter((e) => e.type === 'hook.PreToolUse');
    expect(hookEvents.map((e) => e.data?.decision)).toEqual(['deny', 'pass']);
  });

  it('sends an `ask` command to the controller and allows or denies it by the answer', async () => {
    const pane = await startAgent(
      [
        { waitFile: flag('go') },
        { tool: 'Bash', input: { command: 'git push origin main' } },
        { tool: 'Bash', input: { command: 'git push origin release' } },
      ],
      { ask: ['\\bgit\\s+push\\b'], askTimeoutSec: 30 },
    );
    bridge(pane);
    // Without a running bridge nobody could answer, and the hook denies at once.
    await waitForEvent('bridge.started');
    raise('go');
    const approval = async (except?: string) =>
      waitFor(
        () => {
          const dir = path.join(home, 'inbox');
          return existsSync(dir)
            ? readdirSync(dir)
                .filter((f) => f.endsWith('.json'))
                .map(
                  (f) =>
                    JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as {
                      id: string;
                      type: string;
                    },
                )
                .find((m) => m.id !== except)
            : undefined;
        },
        { timeout: 20_000, message: 'an approval in the inbox' },
      );

    const first = await approval();
    expect(first.type).toBe('approval');
    const body = readFileSync(
      path.join(home, 'inbox', `${first.id}.txt`),
      'utf8',
    );
    expect(body).toContain('git push origin main');
    const allow = await runMacs(
      ['respond', first.id ?? '', 'allow: CI is green'],
      {
        home,
        socket: server.socket,
      },
    );
    expect(allow.exitCode, allow.stderr).toBe(0);
    await waitFor(
      () => recorded().filter((r) => r.type === 'tool').length >= 1,
      {
        timeout: 20_000,
        message: 'the first decision',
      },
    );

    const second = await approval(first.id);
    const deny = await runMacs(
      ['respond', second.id ?? '', 'deny: not before the release'],
      {
        home,
        socket: server.socket,
      },
    );
    expect(deny.exitCode, deny.stderr).toBe(0);
    const tools = await waitFor(
      () => {
        const list = recorded().filter((r) => r.type === 'tool');
        return list.length >= 2 ? list : undefined;
      },
      { timeout: 20_000, message: 'the second decision' },
    );
    expect(tools[0]).toMatchObject({ decision: 'allow' });
    expect(tools[0]?.reason).toContain('CI is green');
    expect(tools[1]).toMatchObject({ decision: 'deny' });
    expect(tools[1]?.reason).toContain('not before the release');
    const delivered = events().filter((e) => e.type === 'request.delivered');
    expect(delivered.map((e) => e.data?.decision)).toEqual(['allow', 'deny']);
    expect(delivered.every((e) => e.data?.method === 'decision')).toBe(true);
    // Nothing was typed into the agent.
    expect(recorded().filter((r) => r.type === 'submit')).toEqual([]);
  });
  /** The approval requests waiting in the inbox. */
  const inboxApprovals = () => {
    const dir = path.join(home, 'inbox');
    return existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => f.endsWith('.json'))
          .map(
            (f) =>
              JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as {
                id: string;
                type: string;
                attributes: Record<string, string>;
              },
          )
      : [];
  };

  it('turns a PermissionRequest into an approval request and decides it through the hook reply, typing nothing', async () => {
    const pane = await startAgent(
      [
        { waitFile: flag('go') },
        {
          permission: 'Bash',
          input: { command: 'npm publish', description: 'Publish the package' },
        },
      ],
      { askTimeoutSec: 30 },
    );
    bridge(pane);
    await waitForEvent('bridge.started');
    raise('go');
    const approval = await waitFor(() => inboxApprovals()[0], {
      timeout: 20_000,
      message: 'the approval in the inbox',
    });
    expect(approval.type).toBe('approval');
    expect(approval.attributes).toMatchObject({
      tool: 'Bash',
      hook: 'PermissionRequest',
    });
    expect(approval.attributes.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    const body = readFileSync(
      path.join(home, 'inbox', `${approval.id}.txt`),
      'utf8',
    );
    expect(body).toContain('Command: npm publish');
    const deny = await runMacs(
      ['respond', approval.id, 'deny: publishing is for the release job'],
      { home, socket: server.socket },
    );
    expect(deny.exitCode, deny.stderr).toBe(0);
    const decided = await waitFor(
      () => recorded().find((r) => r.type === 'permission'),
      { timeout: 20_000, message: 'the decision reached the agent' },
    );
    expect(decided).toMatchObject({ decision: 'deny' });
    expect(decided.reason).toContain('publishing is for the release job');
    const delivered = await waitForEvent('request.delivered');
    expect(delivered.data).toMatchObject({
      method: 'decision',
      decision: 'deny',
    });
    // Nothing was typed into the agent.
    expect(recorded().filter((r) => r.type === 'submit')).toEqual([]);
  });

  it('expires the approval when the person answers the dialog on screen first; a later answer is never applied', async () => {
    const pane = await startAgent(
      [
        { waitFile: flag('go') },
        {
          permission: 'Bash',
          input: { command: 'make deploy' },
          answerFile: flag('person'),
        },
      ],
      { askTimeoutSec: 60 },
    );
    bridge(pane);
    await waitForEvent('bridge.started');
    raise('go');
    const approval = await waitFor(() => inboxApprovals()[0], {
      timeout: 20_000,
      message: 'the approval in the inbox',
    });
    // The person presses Enter in the dialog before the controller decides.
    raise('person');
    const expired = await waitForEvent(
      'request.expired',
      (e) => e.requestId === approval.id,
    );
    expect(String(expired.data?.reason)).toMatch(/went on/);
    const late = await waitFor(
      () => recorded().find((r) => r.type === 'permission-late'),
      { timeout: 20_000, message: 'the hook ended' },
    );
    // The hook replied nothing: it never decided a prompt already answered.
    expect(late.decision).toBe('dialog');
    expect(recorded().find((r) => r.type === 'permission')).toMatchObject({
      decision: 'person',
    });
    const answer = await runMacs(['respond', approval.id, 'allow'], {
      home,
      socket: server.socket,
    });
    expect(answer.exitCode).not.toBe(0);
    expect(events().filter((e) => e.type === 'request.delivered')).toEqual([]);
  });
  it('decides by the rules of the config first (deny, then allow), and only the rest reaches a person', async () => {
    const pane = await startAgent(
      [
        { waitFile: flag('go') },
        { permission: 'Bash', input: { command: 'npm test' } },
        { permission: 'Bash', input: { command: 'git push -f origin main' } },
        { permission: 'Bash', input: { command: 'npm publish' } },
      ],
      {
        askTimeoutSec: 30,
        allow: [
          { name: 'tests', tool: '^Bash$', pattern: '^npm test$' },
          '^git ',
        ],
      },
    );
    bridge(pane);
    await waitForEvent('bridge.started');
    raise('go');
    // The first two never reach an answerer.
    const byRule = await waitFor(
      () => {
        const list = recorded().filter((r) => r.type === 'permission');
        return list.length >= 2 ? list : undefined;
      },
      { timeout: 20_000, message: 'two decisions by rule' },
    );
    expect(byRule.map((r) => r.decision)).toEqual(['allow', 'deny']);
    expect(byRule[1]?.reason).toContain('force-push');
    const approval = await waitFor(() => inboxApprovals()[0], {
      timeout: 20_000,
      message: 'the third approval in the inbox',
    });
    expect(inboxApprovals()).toHaveLength(1);
    const answer = await runMacs(['respond', approval.id, 'allow: go'], {
      home,
      socket: server.socket,
    });
    expect(answer.exitCode, answer.stderr).toBe(0);
    await waitFor(
      () => recorded().filter((r) => r.type === 'permission').length >= 3,
      { timeout: 20_000, message: 'the third decision' },
    );
    const delivered = await waitFor(
      () => {
        const list = events().filter((e) => e.type === 'request.delivered');
        return list.length >= 3 ? list : undefined;
      },
      { timeout: 20_000, message: 'three decisions recorded' },
    );
    expect(
      delivered.map((e) => [e.data?.decision, e.data?.decidedBy, e.data?.via]),
    ).toEqual([
      ['allow', 'rule', 'tests'],
      ['deny', 'rule', 'force-push'],
      ['allow', 'person', 'outbox'],
    ]);
    // Decided by rule: never routed to an answerer.
    const routed = events().filter((e) => e.type === 'request.routed');
    expect(routed.map((e) => e.requestId)).toEqual([approval.id]);
  });
  it('the controller decides a PermissionRequest through MCP; status and the archive say who decided', async () => {
    const pane = await startAgent(
      [
        { waitFile: flag('go') },
        { permission: 'Bash', input: { command: 'npm run migrate' } },
      ],
      { askTimeoutSec: 60 },
    );
    bridge(pane);
    await waitForEvent('bridge.started');
    const env = childEnv({
      MACS_HOME: home,
      MACS_TMUX_SOCKET: server.socket,
    });
    const client = new Client({ name: 'macs-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MACS_BIN, 'mcp'],
        env: Object.fromEntries(
          Object.entries(env).filter(
            (e): e is [string, string] => e[1] !== undefined,
          ),
        ),
        cwd: home,
        stderr: 'pipe',
      }),
    );
    try {
      const waiting = client.callTool(
        {
          name: 'wait_for_request',
          arguments: { type: 'approval', timeout_sec: 60 },
        },
        undefined,
        { timeout: 90_000 },
      );
      raise('go');
      const got = (await waiting) as {
        structuredContent?: { request?: { id: string; body: string } };
      };
      const request = got.structuredContent?.request;
      expect(request?.body).toContain('npm run migrate');
      const decided = (await client.callTool({
        name: 'decide_approval',
        arguments: {
          id: request?.id ?? '',
          decision: 'allow',
          reason: 'the migration is reviewed',
        },
      })) as { isError?: boolean; content: { text?: string }[] };
      expect(decided.isError, JSON.stringify(decided)).toBeFalsy();
      expect(decided.content[0]?.text).toMatch(/typing nothing/);
    } finally {
      await client.close();
    }
    const permission = await waitFor(
      () => recorded().find((r) => r.type === 'permission'),
      { timeout: 20_000, message: 'the decision reached the agent' },
    );
    expect(permission.decision).toBe('allow');
    const delivered = await waitForEvent('request.delivered');
    expect(delivered.data).toMatchObject({
      decision: 'allow',
      decidedBy: 'controller',
      via: 'mcp:decide_approval',
    });
    // The archived record says who decided.
    // (Archived right after the delivery is recorded: waited for.)
    const id = delivered.requestId ?? '';
    const archived = await waitFor(
      () => {
        const day = readdirSync(path.join(home, 'archive'))[0] ?? '';
        const file = path.join(home, 'archive', day, `${id}.json`);
        return existsSync(file)
          ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)
          : undefined;
      },
      { timeout: 10_000, message: 'the archived approval' },
    );
    expect(archived.decision).toMatchObject({
      decision: 'allow',
      decidedBy: 'controller',
      via: 'mcp:decide_approval',
    });
    expect(archived.approval).toMatchObject({
      source: 'PermissionRequest',
      tool: 'Bash',
      subject: 'npm run migrate',
    });
    // So does macs status, as JSON and as text.
    const json = await runMacs(['status', '--json'], {
      home,
      socket: server.socket,
    });
    expect(json.exitCode, json.stderr).toBe(0);
    const snapshot = SnapshotSchema.parse(JSON.parse(json.stdout));
    expect(snapshot.approvals[0]).toMatchObject({
      id,
      agent: AGENT,
      decision: 'allow',
      decidedBy: 'controller',
      via: 'mcp:decide_approval',
    });
    const text = await runMacs(['status'], { home, socket: server.socket });
    expect(text.stdout).toContain('recent approvals:');
    expect(text.stdout).toMatch(
      new RegExp(`${id}  allow by controller \\(mcp:decide_approval\\)`),
    );
  });
});
