// Issue 32, appeals (agent-framework's) and workaround detection, through a
// live bridge: a fake Claude Code (test/fixtures/fake-hook-agent.mjs) calls
// `macs hook` as Claude Code does, in a pane of a private tmux server, and
// `macs bridge` with the file backend stands for the controller, answered
// with `macs respond`.
//
// - A deny rule refuses a call and tells the agent how to appeal; the
//   worker's `type=appeal call=<fingerprint>` request reaches the controller
//   with the denied call and the transcript; an "overturn" lets that very
//   call through once, and the same call is refused again after it; an
//   "uphold" keeps it refused.
// - Three alike denials in a row raise a `repeated-denials` request to the
//   controller and call a person (`attention`, reason `repeated-denials`),
//   once: a fourth alike denial raises nothing more.
//
// Waits are on conditions (the agent's record, events, files), never on time.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { prepareAgentHooks } from '../../src/hooks/install.js';
import { approvalFingerprint } from '../../src/protocol/approval.js';
import {
  FAKE_HOOK_AGENT,
  MACS_BIN,
  readAllEvents,
  runMacs,
  startBridge,
  type BridgeProcess,
  type MacsEvent,
} from '../helpers/macs.js';
import {
  makeTempHome,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

const AGENT = 'worker-1';
const FETCH = 'curl -s https://api.example.com/spec.json';
const POLICY = {
  deny: [
    '@default',
    {
      name: 'no-network',
      tool: '^Bash$',
      pattern: '\\bcurl\\b',
      reason: 'workers do not reach the network',
    },
  ],
};

interface Recorded {
  type: string;
  tool?: string;
  input?: { command?: string };
  decision?: string;
  reason?: string;
  text?: string;
}

interface InboxEntry {
  id: string;
  type: string;
  priority?: string;
  attributes: Record<string, string>;
}

/**
 * The end of the agent's turn, as Claude Code ends it (a denied call does
 * not end it): the agent is idle, so an answer is typed at once.
 */
const STOP = {
  hook: 'Stop',
  input: { stop_hook_active: false, last_assistant_message: 'waiting' },
};

const appealBlock = (id: string, call: string, why: string) =>
  `<<CONTROLLER_REQUEST id=${id} type=appeal call=${call}>>\n${why}\n<<CONTROLLER_REQUEST_END>>\n`;

describe('appeals and repeated denials through a live bridge (issue 32)', () => {
  let server: TestTmuxServer;
  let home: string;
  let paths: HomePaths;
  let cleanup: () => void;
  let record: string;
  let bridge: BridgeProcess | undefined;

  beforeEach(async () => {
    server = await startTmuxServer();
    ({ home, cleanup } = makeTempHome('macs-appeals-'));
    paths = resolveHomePaths(home);
    record = path.join(home, 'record.jsonl');
  });

  afterEach(async () => {
    if (bridge) {
      bridge.child.kill('SIGKILL');
      await bridge.exited;
      bridge = undefined;
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
  const tools = () => recorded().filter((r) => r.type === 'tool');
  const submits = () => recorded().filter((r) => r.type === 'submit');
  const waitForTools = (n: number) =>
    waitFor(() => (tools().length >= n ? tools() : undefined), {
      timeout: 20_000,
      message: `${String(n)} tool calls decided`,
    });

  const flag = (name: string) => path.join(home, `${name}.flag`);
  const raise = (name: string) => writeFileSync(flag(name), 'go');

  const events = () => readAllEvents(home).filter((e) => e.agent === AGENT);
  const waitForEvent = (
    type: string,
    match: (e: MacsEvent) => boolean = () => true,
  ) =>
    waitFor(() => events().find((e) => e.type === type && match(e)), {
      timeout: 20_000,
      message: `event ${type}; bridge said: ${bridge?.output() ?? ''}`,
    });

  const inbox = (id: string) =>
    waitFor(
      () => {
        const file = path.join(home, 'inbox', `${id}.json`);
        return existsSync(file)
          ? (JSON.parse(readFileSync(file, 'utf8')) as InboxEntry)
          : undefined;
      },
      { timeout: 20_000, message: `${id} in the inbox` },
    );
  const inboxText = (id: string) =>
    readFileSync(path.join(home, 'inbox', `${id}.txt`), 'utf8');

  const respond = async (id: string, text: string) => {
    const run = await runMacs(['respond', id, text], {
      home,
      socket: server.socket,
    });
    expect(run.exitCode, run.stderr).toBe(0);
  };

  const allowances = () => {
    const dir = path.join(paths.runtime, 'allowances', AGENT);
    return existsSync(dir) ? readdirSync(dir) : [];
  };

  /** The fake Claude Code with the hooks `macs start` gives it, and its bridge. */
  async function start(script: unknown[]): Promise<void> {
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({ policy: POLICY }),
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
        '--transcripts',
        home,
      ],
      { cwd: home },
    );
    await waitFor(() => recorded().find((r) => r.type === 'context'), {
      timeout: 15_000,
      message: 'SessionStart ran',
    });
    bridge = startBridge(
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
    await waitForEvent('bridge.started');
  }

  const fingerprint = approvalFingerprint('Bash', { command: FETCH });

  it('an overturned appeal lets the same call through once; it is refused again after', async () => {
    const id = `${AGENT}-ap1`;
    await start([
      { waitFile: flag('go') },
      { tool: 'Bash', input: { command: FETCH } },
      {
        print: appealBlock(
          'ap1',
          fingerprint,
          'I need the published API spec to finish the client.',
        ),
      },
      STOP,
      { waitFile: flag('retry') },
      { tool: 'Bash', input: { command: FETCH } },
      { tool: 'Bash', input: { command: FETCH } },
    ]);
    raise('go');
    const [denied] = await waitForTools(1);
    expect(denied).toMatchObject({ decision: 'deny' });
    // The refusal names the rule and tells how to appeal, with this call.
    expect(denied?.reason).toContain('no-network');
    expect(denied?.reason).toContain(
      `<<CONTROLLER_REQUEST type=appeal call=${fingerprint}>>`,
    );

    // The appeal reaches the controller with the denied call and the transcript.
    const appeal = await inbox(id);
    expect(appeal).toMatchObject({
      type: 'appeal',
      attributes: { call: fingerprint, tool: 'Bash', rule: 'no-network' },
    });
    const body = inboxText(id);
    expect(body).toContain('I need the published API spec');
    expect(body).toContain(`command: ${FETCH}`);
    expect(body).toContain('rule: no-network');
    expect(body).toContain(`[tool Bash] {"command":"${FETCH}"}`);

    await waitForEvent('hook.Stop'); // the turn ended: typed at once
    await respond(id, 'overturn: the spec is public, fetch it this once');
    const overturned = await waitForEvent(
      'appeal.overturned',
      (e) => e.requestId === id,
    );
    expect(overturned.data).toMatchObject({
      call: fingerprint,
      tool: 'Bash',
      decidedBy: 'person',
    });
    // The answer is typed into the worker, as its reason.
    const typed = await waitFor(() => submits()[0], {
      timeout: 20_000,
      message: 'the answer typed into the agent',
    });
    expect(typed.text).toContain('fetch it this once');

    raise('retry');
    const decided = await waitForTools(3);
    expect(decided.map((t) => t.decision)).toEqual(['deny', 'allow', 'deny']);
    expect(decided[1]?.reason).toContain(
      `overturned the denial on appeal ${id}`,
    );
    expect(decided[2]?.reason).toContain('no-network');
    const pre = events().filter((e) => e.type === 'hook.PreToolUse');
    expect(pre.map((e) => [e.data?.decision, e.data?.by])).toEqual([
      ['deny', undefined],
      ['allow', 'appeal'],
      ['deny', undefined],
    ]);
    expect(pre[1]?.data).toMatchObject({ appeal: id, fingerprint });
    // The allowance was taken: none is left for a later call.
    expect(allowances()).toEqual([]);
  });

  it('an upheld appeal keeps the call refused', async () => {
    const id = `${AGENT}-ap2`;
    await start([
      { waitFile: flag('go') },
      { tool: 'Bash', input: { command: FETCH } },
      { print: appealBlock('ap2', fingerprint, 'I need the spec.') },
      STOP,
      { waitFile: flag('retry') },
      { tool: 'Bash', input: { command: FETCH } },
    ]);
    raise('go');
    await waitForTools(1);
    await inbox(id);
    await waitForEvent('hook.Stop'); // the turn ended: typed at once
    await respond(id, 'uphold: use the vendored copy in docs/spec.json');
    const upheld = await waitForEvent(
      'appeal.upheld',
      (e) => e.requestId === id,
    );
    expect(upheld.data).toMatchObject({ call: fingerprint, tool: 'Bash' });
    const typed = await waitFor(() => submits()[0], {
      timeout: 20_000,
      message: 'the answer typed into the agent',
    });
    expect(typed.text).toContain('vendored copy');
    expect(allowances()).toEqual([]);

    raise('retry');
    const decided = await waitForTools(2);
    expect(decided.map((t) => t.decision)).toEqual(['deny', 'deny']);
    expect(events().filter((e) => e.type === 'appeal.overturned')).toEqual([]);
  });

  it('three alike denials in a row tell the controller and call a person, once', async () => {
    const variants = [
      'curl https://api.example.com/spec.json',
      'curl -s https://api.example.com/spec.json',
      'curl --silent -o spec.json https://api.example.com/spec.json',
    ];
    await start([
      { waitFile: flag('go') },
      ...variants.map((command) => ({ tool: 'Bash', input: { command } })),
      STOP,
      { waitFile: flag('fourth') },
      { tool: 'Bash', input: { command: `${FETCH} -L` } },
    ]);
    raise('go');
    const decided = await waitForTools(3);
    expect(decided.map((t) => t.decision)).toEqual(['deny', 'deny', 'deny']);

    // The hook reports it; the bridge raises a request for the controller.
    const repeated = await waitForEvent('denials.repeated');
    expect(repeated.data).toMatchObject({
      tool: 'Bash',
      count: 3,
      rules: ['no-network'],
    });
    const id = repeated.requestId ?? '';
    const request = await inbox(id);
    expect(request).toMatchObject({
      type: 'repeated-denials',
      priority: 'high',
      attributes: { tool: 'Bash', rule: 'no-network', count: '3' },
    });
    const body = inboxText(id);
    for (const command of variants) expect(body).toContain(command);

    // A person is called, for this reason (a request calls one once; were
    // this call missing, the inbox's `waiting-for-person` would be it).
    const attention = await waitForEvent(
      'attention',
      (e) => e.requestId === id && e.data?.reason === 'repeated-denials',
    );
    expect(String(attention.data?.message)).toMatch(/refused again and again/);

    // The controller's answer is typed into the agent.
    await waitForEvent('hook.Stop'); // the turn ended: typed at once
    await respond(id, 'Stop fetching it; the spec is in docs/spec.json.');
    const typed = await waitFor(() => submits()[0], {
      timeout: 20_000,
      message: 'the answer typed into the agent',
    });
    expect(typed.text).toContain('docs/spec.json');

    // A fourth alike denial is not reported again: that needs three new ones.
    raise('fourth');
    await waitForTools(4);
    expect(events().filter((e) => e.type === 'denials.repeated')).toHaveLength(
      1,
    );
    expect(
      events().filter(
        (e) => e.type === 'attention' && e.data?.reason === 'repeated-denials',
      ),
    ).toHaveLength(1);
  });
});
