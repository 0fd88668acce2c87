// The real Claude Code's agent teams under macs (issue 32, "Teammates and
// subagents"; docs/hooks.md "Agent teams"). macs does not adopt teammates
// yet; this pins what the docs say the pinned Claude Code does, so a new pin
// that behaves otherwise fails here first. Strategy: `macs start` with one
// real Claude Code worker, run with teams on and `--teammate-mode tmux`,
// against the scripted model server; the model calls the Agent tool twice
// with a `name` (a team of two). Each teammate must be a pane of the macs
// session's own tmux server (not a hidden `claude-swarm-<pid>` server),
// untagged, naming itself and the lead's conversation on its command line;
// its hooks (the lead's `--settings`) are refused, and the lead stays the
// only agent of the session, in its own pane.
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { findEvents } from '../helpers/macs.js';
import { readSessionFile, readStateFile, tmuxOn } from '../helpers/session.js';
import { waitFor } from '../helpers/wait-for.js';
import {
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

describe(`the real Claude Code ${VERSION}: agent teams in tmux mode`, () => {
  let session: ClaudeSession | undefined;

  afterEach(async () => {
    await session?.stop();
    session = undefined;
  });

  it('spawns a team of two as panes of the macs session; their hooks do not speak for the lead', async () => {
    // The lead's model: a named Agent call per teammate, then a text answer.
    // The teammates' own requests (they may get none: no key reaches them)
    // get a text answer too.
    const script: Script = (request) => {
      const done = lastToolUse(request);
      if (
        lastUserText(request).includes('Make a team') &&
        !isToolResult(request)
      )
        return {
          kind: 'tool',
          name: 'Agent',
          input: {
            description: 'alice helps',
            prompt: 'Say hi',
            name: 'alice',
          },
        };
      if (isToolResult(request) && done?.input.name === 'alice')
        return {
          kind: 'tool',
          name: 'Agent',
          input: { description: 'bob helps', prompt: 'Say hi', name: 'bob' },
        };
      return { kind: 'text', text: 'The team is working.' };
    };
    const s = await startClaudeSession(script, {
      env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' },
      worker: {
        command: [agent('claude').bin, '--teammate-mode', 'tmux'],
      },
    });
    session = s;
    const before = await listPanes(s.socket);
    const lead = before.find((p) => p.id === s.pane);
    expect(lead?.tag).toBe(WORKER);

    await submitPrompt(s, 'Make a team of two');
    let teammates: Pane[] = [];
    try {
      await waitFor(
        async () => {
          const now = await listPanes(s.socket);
          teammates = now.filter((p) => !before.some((b) => b.id === p.id));
          return (
            teammates.length === 2 &&
            teammates.every((p) => argsOf(p.pid).includes('--agent-name'))
          );
        },
        { timeout: 60_000, interval: 200, message: 'two teammate panes' },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await s.explain()}`);
    }

    // In the lead's window of the session's server, untagged.
    for (const p of teammates) {
      expect(p.window).toBe(lead?.window);
      expect(p.tag).toBe('');
    }
    // Named on their command lines, with the lead's conversation as parent.
    const conversation = findEvents(s.home, 'conversation.recorded').find(
      (e) => e.agent === WORKER,
    )?.data?.conversation as string | undefined;
    expect(conversation).toBeTruthy();
    const args = teammates.map((p) => argsOf(p.pid)).sort();
    expect(args[0]).toContain('--agent-name alice');
    expect(args[1]).toContain('--agent-name bob');
    for (const a of args)
      expect(a).toContain(`--parent-session-id ${conversation ?? '?'}`);
    // No hidden server of the lead's.
    expect(
      await tmuxOn(`claude-swarm-${lead?.pid ?? '?'}`, 'list-sessions'),
    ).toBeUndefined();

    // Their hooks run with the lead's name (its --settings) and are refused.
    await waitFor(
      () =>
        teammates.every((p) =>
          findEvents(s.home, 'error').some((e) =>
            `${e.data?.message as string}`.includes(
              `refused: it came from pane ${p.id}, not from ${WORKER}'s pane ${s.pane}`,
            ),
          ),
        ),
      {
        timeout: 60_000,
        interval: 200,
        message: "the teammates' hooks refused",
      },
    );
    expect(readStateFile(s.home, WORKER)?.pane).toBe(s.pane);
    expect(readSessionFile(s.home)?.agents.map((a) => a.name)).toEqual([
      WORKER,
    ]);
  }, 180_000);
});
