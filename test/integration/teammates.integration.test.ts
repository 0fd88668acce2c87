// Claude Code teammates adopted by the session's bridge (issue 32; docs/hooks.md
// "Agent teams"). The bug: a supervised lead's teammate panes were never
// supervised, and their hooks (which name the lead) were refused. Strategy:
// panes of a real private tmux server run a stand-in process whose command
// line is a teammate's (`--agent-name`, `--parent-session-id`); the finder
// must adopt only the one naming the supervised lead's recorded conversation
// (tagged `<lead>.<name>`, recorded, `teammate.adopted`), leave a pane naming
// another conversation and a plain program alone, route a hook that names
// the lead from the teammate's pane to the teammate, and record the
// teammate's end when its pane is killed. The real Claude Code's team is
// test/agents/claude-team.agents.test.ts.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { resolveHookAgent } from '../../src/hooks/hook-origin.js';
import { createTeammateFinder } from '../../src/session/teammates.js';
import { writeConversation } from '../../src/state/conversation-record.js';
import { readTeammates } from '../../src/state/teammates.js';
import { createTmuxClient, type TmuxClient } from '../../src/tmux/client.js';
import { createRunTmux } from '../../src/tmux/run.js';
import { findEvents } from '../helpers/macs.js';
import {
  childEnv,
  makeTempHome,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

const LEAD = { name: 'worker-1', preset: 'claude' };

/** A process that runs until killed, with a teammate's options on its command line. */
function teammateArgv(name: string, parent: string): string[] {
  return [
    process.execPath,
    '-e',
    'setInterval(() => {}, 1e9)',
    '--',
    '--agent-id',
    `${name}@team-1`,
    '--agent-name',
    name,
    '--team-name',
    'team-1',
    '--parent-session-id',
    parent,
  ];
}

describe('Claude Code teammates of a supervised lead', () => {
  let server: TestTmuxServer;
  let tmux: TmuxClient;
  let paths: HomePaths;
  let cleanup: () => void;

  beforeEach(async () => {
    server = await startTmuxServer();
    tmux = createTmuxClient(server.socket, createRunTmux({ env: childEnv() }));
    const made = makeTempHome('macs-teammates-');
    cleanup = made.cleanup;
    paths = resolveHomePaths(made.home);
  });
  afterEach(async () => {
    await server.kill();
    cleanup();
  });

  it('adopts only the lead’s teammate, routes its hooks to it, and records its end', async () => {
    const conversation = randomUUID();
    await writeConversation(paths, {
      agent: LEAD.name,
      id: conversation,
      source: 'claude-hook',
      at: new Date().toISOString(),
    });
    const lead = await server.spawnPane(['sleep', '1000']);
    await tmux.setPaneOption(lead, '@macs_agent', LEAD.name);
    const alice = await server.spawnPane(teammateArgv('alice', conversation));
    // A pane another program spawned, naming a conversation macs does not
    // supervise, and a plain program: never taken for a worker.
    const stranger = await server.spawnPane(
      teammateArgv('mallory', randomUUID()),
    );
    const plain = await server.spawnPane(['sleep', '1000']);
    const finder = createTeammateFinder({ tmux, paths });
    const known = new Set([LEAD.name]);

    // The stand-in's argv is readable once node started.
    let adopted: Awaited<ReturnType<typeof finder.find>> = [];
    await waitFor(
      async () => {
        adopted = await finder.find([LEAD], known);
        return adopted.length > 0;
      },
      { message: 'alice adopted' },
    );
    expect(adopted).toEqual([{ agent: 'worker-1.alice', preset: 'claude' }]);
    const tags = new Map(
      (await tmux.listPanes()).map((p) => [p.id, p.agentTag]),
    );
    expect(tags.get(alice)).toBe('worker-1.alice');
    expect(tags.get(stranger)).toBe('');
    expect(tags.get(plain)).toBe('');
    const [record] = await readTeammates(paths);
    expect(record).toMatchObject({
      agent: 'worker-1.alice',
      lead: LEAD.name,
      name: 'alice',
      team: 'team-1',
      pane: alice,
      parentSession: conversation,
    });
    expect(
      findEvents(paths.home, 'teammate.adopted').map((e) => e.data?.shownAs),
    ).toEqual(['worker-1/alice']);
    // Once adopted, never again.
    known.add('worker-1.alice');
    expect(await finder.find([LEAD], known)).toEqual([]);

    // A hook naming the lead speaks for the teammate from the teammate's
    // pane, and stays the lead's from any other.
    expect(
      await resolveHookAgent(paths, { agent: LEAD.name, tmuxPane: alice }),
    ).toMatchObject({ type: 'found', agent: 'worker-1.alice' });
    expect(
      await resolveHookAgent(paths, { agent: LEAD.name, tmuxPane: stranger }),
    ).toMatchObject({ type: 'found', agent: LEAD.name });

    await server.tmux('kill-pane', '-t', alice);
    await finder.find([LEAD], known);
    expect((await readTeammates(paths))[0]?.endedAt).toBeTruthy();
    expect(
      findEvents(paths.home, 'teammate.ended').map((e) => e.agent),
    ).toEqual(['worker-1.alice']);
    // Its hooks are no longer its own: the lead's name from a pane gone.
    expect(
      await resolveHookAgent(paths, { agent: LEAD.name, tmuxPane: alice }),
    ).toMatchObject({ type: 'found', agent: LEAD.name });
  });
});
