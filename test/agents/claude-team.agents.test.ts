// The real Claude Code's agent teams under macs (issue 32, "Teammates and
// subagents"; docs/hooks.md "Agent teams"). The bug: a supervised lead's
// teammates ran in panes of the session that macs did not supervise: untagged,
// no agent of their own, their hooks (which carry the lead's name through its
// `--settings`) refused as "came from pane %3, not from worker-1's pane", so
// macs saw none of their states or permission prompts. Strategy: `macs start`
// with one real Claude Code worker, run with teams on and `--teammate-mode
// tmux`, against the scripted model server; the model calls the Agent tool
// twice with a `name` (a team of two). Teammates log in with an
// `apiKeyHelper` in the shared CLAUDE_CONFIG_DIR (the lead's key variable is
// not forwarded to them), and their first turn is held until macs has
// adopted both, so the hooks of that turn are the adopted teammates' own.
// Each must show in `macs status --json` as `worker-1/<name>` (agent
// `worker-1.<name>`, its pane tagged), its hooks recorded on its own log, the
// lead unchanged in its own pane; bob's permission prompt (shown in the
// lead's pane) is raised from the screen and allowed with `macs respond`; a
// teammate's pane killed ends it.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findEvents } from '../helpers/macs.js';
import { readSessionFile, readStateFile, tmuxOn } from '../helpers/session.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  DUMMY_KEY,
  startClaudeSession,
  submitPrompt,
  WORKER,
  type ClaudeSession,
} from './claude-session.js';
import { agent } from './pins.js';
import {
  isToolResult,
  lastToolUse,
  lastUserText,
  type Script,
} from './servers/anthropic.js';

const VERSION = agent('claude').version;

interface Pane {
  id: string;
  pid: string;
  window: string;
  tag: string;
}

async function listPanes(socket: string): Promise<Pane[]> {
  const out = await tmuxOn(
    socket,
    'list-panes',
    '-a',
    '-F',
    '#{pane_id}\t#{pane_pid}\t#{window_name}\t#{@macs_agent}',
  );
  return (out ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id = '', pid = '', window = '', tag = ''] = line.split('\t');
      return { id, pid, window, tag };
    });
}

/** The command line of a pane's process (`ps`, as a person reads it). */
function argsOf(pid: string): string {
  return execFileSync('ps', ['-o', 'args=', '-p', pid]).toString().trim();
}

interface StatusAgent {
  name: string;
  state: string;
  pane: string | null;
  teammate?: { lead: string; name: string; shownAs: string };
  usage: { outputTokens: number | null } | null;
}

describe(`the real Claude Code ${VERSION}: agent teams in tmux mode`, () => {
  let session: ClaudeSession | undefined;

  afterEach(async () => {
    await session?.stop();
    session = undefined;
  });

  it('adopts a team of two as worker-1/<name> agents; their hooks are their own; a pane killed ends its teammate', async () => {
    let release: () => void = () => undefined;
    const adopted = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The lead's model: a named Agent call per teammate, then a text answer.
    // A teammate's first turn waits until macs adopted both.
    const script: Script = (request) => {
      const done = lastToolUse(request);
      const text = lastUserText(request);
      if (text.includes('Make a team') && !isToolResult(request))
        return {
          kind: 'tool',
          name: 'Agent',
          input: {
            description: 'alice helps',
            prompt: 'Say hi as teammate one',
            name: 'alice',
          },
        };
      if (isToolResult(request) && done?.input.name === 'alice')
        return {
          kind: 'tool',
          name: 'Agent',
          input: {
            description: 'bob helps',
            prompt: 'Say hi as teammate two',
            name: 'bob',
          },
        };
      if (text.includes('Say hi as teammate one'))
        return { kind: 'text', text: 'Hi.', hold: adopted };
      // Bob's first turn runs a command Claude Code asks permission for.
      if (text.includes('Say hi as teammate two') && !isToolResult(request))
        return {
          kind: 'tool',
          name: 'Bash',
          input: { command: 'touch bob.txt', description: 'Leave a mark' },
          hold: adopted,
        };
      return { kind: 'text', text: 'The team is working.' };
    };
    const s = await startClaudeSession(script, {
      env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' },
      worker: {
        command: [agent('claude').bin, '--teammate-mode', 'tmux'],
      },
      claudeSettings: { apiKeyHelper: `echo ${DUMMY_KEY}` },
    });
    session = s;
    const before = await listPanes(s.socket);
    const lead = before.find((p) => p.id === s.pane);
    expect(lead?.tag).toBe(WORKER);
    const status = async (): Promise<StatusAgent[]> => {
      const run = await s.macs(['status', '--json']);
      return (JSON.parse(run.stdout) as { agents: StatusAgent[] }).agents;
    };

    await submitPrompt(s, 'Make a team of two');
    let agents: StatusAgent[] = [];
    try {
      await waitFor(
        async () => {
          agents = await status();
          return agents.filter((a) => a.teammate).length === 2;
        },
        { timeout: 90_000, interval: 500, message: 'two teammates adopted' },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await s.explain()}`);
    } finally {
      release();
    }

    // Both under the lead, as worker-1/<name>, in panes of their own.
    expect(agents.map((a) => a.teammate?.shownAs ?? a.name)).toEqual([
      WORKER,
      `${WORKER}/alice`,
      `${WORKER}/bob`,
    ]);
    const alice = agents.find((a) => a.name === `${WORKER}.alice`);
    const bob = agents.find((a) => a.name === `${WORKER}.bob`);
    expect(alice?.teammate?.lead).toBe(WORKER);
    const panes = await listPanes(s.socket);
    for (const t of [alice, bob]) {
      const pane = panes.find((p) => p.id === t?.pane);
      expect(pane?.tag).toBe(t?.name);
      expect(pane?.window).toBe(lead?.window);
      expect(argsOf(pane?.pid ?? '0')).toContain(
        `--agent-name ${t?.teammate?.name ?? '?'}`,
      );
    }

    // No hidden server of the lead's.
    expect(
      await tmuxOn(`claude-swarm-${lead?.pid ?? '?'}`, 'list-sessions'),
    ).toBeUndefined();

    // Their hooks (the lead's --settings) are recorded as their own: the
    // held turn's Stop ran after the adoption.
    const stopped = (name: string) =>
      waitFor(
        () => findEvents(s.home, 'hook.Stop').some((e) => e.agent === name),
        { timeout: 60_000, interval: 200, message: `${name}'s Stop hook` },
      );
    await stopped(`${WORKER}.alice`);
    // Bob's permission prompt: Claude Code shows it in the lead's pane
    // (`Bash command · from the bob agent`) and runs no PermissionRequest
    // hook for it; macs raises it from the lead's screen, decided through
    // macs like any approval.
    let asked: string | undefined;
    try {
      await waitFor(
        () => {
          asked = findEvents(s.home, 'request.detected').find(
            (e) => e.agent === WORKER,
          )?.requestId;
          return Boolean(asked);
        },
        { timeout: 60_000, interval: 200, message: "bob's permission prompt" },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await s.explain()}`);
    }
    const open = JSON.parse((await s.macs(['status', '--json'])).stdout) as {
      requests: { id: string; body: string }[];
    };
    expect(open.requests.find((r) => r.id === asked)?.body).toContain(
      'from the bob agent',
    );
    const allow = await s.macs(['respond', asked ?? '', 'allow']);
    expect(allow.exitCode, allow.stderr).toBe(0);
    await waitFor(() => existsSync(path.join(s.home, 'bob.txt')), {
      timeout: 60_000,
      interval: 200,
      message: "bob's command ran",
    });
    expect(
      findEvents(s.home, 'request.delivered').find((e) => e.requestId === asked)
        ?.data,
    ).toMatchObject({ decision: 'allow', decidedBy: 'person' });
    await stopped(`${WORKER}.bob`);
    expect(
      findEvents(s.home, 'error').filter(
        (e) =>
          e.agent === WORKER &&
          `${e.data?.message as string}`.includes('refused') &&
          findEvents(s.home, 'teammate.adopted').every(
            (a) => String(a.ts) < String(e.ts),
          ),
      ),
    ).toEqual([]);
    // The lead is unchanged: its own pane, the only agent of the record.
    expect(readStateFile(s.home, WORKER)?.pane).toBe(s.pane);
    expect(readSessionFile(s.home)?.agents.map((a) => a.name)).toEqual([
      WORKER,
    ]);

    // The doors: `macs status` lists them under the lead, `macs send` takes
    // `<lead>/<teammate>`.
    const text = await s.macs(['status']);
    expect(text.stdout).toMatch(
      /^worker-1 .*\n {2}worker-1\/alice .*\n {2}worker-1\/bob /m,
    );
    try {
      await waitFor(
        async () =>
          (await status()).find((a) => a.name === `${WORKER}.bob`)?.state ===
          'idle',
        { timeout: 60_000, interval: 500, message: 'bob idle' },
      );
    } catch (error) {
      const screen = await tmuxOn(
        s.socket,
        'capture-pane',
        '-p',
        '-t',
        bob?.pane ?? '?',
      );
      const events = findEvents(s.home, 'state.changed').filter(
        (e) => e.agent === `${WORKER}.bob`,
      );
      throw new Error(
        `${(error as Error).message}\n--- bob:\n${screen ?? ''}\n${JSON.stringify(events)}`,
      );
    }
    const sent = await s.macs([
      'send',
      `${WORKER}/bob`,
      'Thanks, bob',
      '--timeout',
      '30',
    ]);
    expect(sent.exitCode, sent.stderr).toBe(0);
    await waitFor(
      () =>
        s.server.requests.some((r) => lastUserText(r).includes('Thanks, bob')),
      { timeout: 60_000, interval: 200, message: 'bob got the message' },
    );

    // Bob's model calls are his usage (his own transcript, named by his hooks).
    await waitFor(
      async () =>
        ((await status()).find((a) => a.name === `${WORKER}.bob`)?.usage
          ?.outputTokens ?? 0) > 0,
      { timeout: 30_000, interval: 500, message: "bob's usage" },
    );

    // A teammate's pane killed: its end is recorded, and status says so.
    await tmuxOn(s.socket, 'kill-pane', '-t', alice?.pane ?? '?');
    await waitFor(
      () =>
        findEvents(s.home, 'teammate.ended').some(
          (e) => e.agent === `${WORKER}.alice`,
        ),
      { timeout: 30_000, interval: 200, message: "alice's end recorded" },
    );
    await waitFor(
      async () =>
        (await status()).find((a) => a.name === `${WORKER}.alice`)?.state ===
        'dead',
      { timeout: 30_000, interval: 500, message: 'alice dead in status' },
    );
    expect(
      (await status()).find((a) => a.name === `${WORKER}.bob`)?.state,
    ).not.toBe('dead');
  }, 240_000);
});
