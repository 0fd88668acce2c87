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
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { resolveHookAgent } from '../../src/hooks/hook-origin.js';
import { createTeammateFinder } from '../../src/session/adopt-teammates.js';
import { writeConversation } from '../../src/state/conversation-record.js';
import { loadAgentState, saveAgentState } from '../../src/state/store.js';
import { readTeammates } from '../../src/state/teammates.js';
import { createTmuxClient, type TmuxClient } from '../../src/tmux/client.js';
import { createRunTmux } from '../../src/tmux/run.js';
import { findEvents, MACS_BIN, startBridge } from '../helpers/macs.js';
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

  // The bug: when an adopted teammate's pane went, the bridge said what it
  // says of a worker, that it "stays dead until a pane tagged … appears
  // (macs restart …)"; a teammate ends with its pane (macs restart would
  // start a plain Claude Code). Strategy: a real `macs bridge --all` with a
  // Claude Code lead (config) and a stand-in teammate pane; once the bridge
  // adopted and supervised it, its pane is killed: the warning on the
  // teammate must say it ended with its pane and its lead may start
  // another, and must not name macs restart nor wait for a pane.
  it('says a teammate whose pane went has ended, not that it waits for macs restart', async () => {
    const conversation = randomUUID();
    writeFileSync(
      path.join(paths.home, 'macs.config.json'),
      JSON.stringify({ workers: [{ name: LEAD.name, preset: 'claude' }] }),
    );
    await writeConversation(paths, {
      agent: LEAD.name,
      id: conversation,
      source: 'claude-hook',
      at: new Date().toISOString(),
    });
    const lead = await server.spawnPane(['sleep', '1000']);
    await tmux.setPaneOption(lead, '@macs_agent', LEAD.name);
    const alice = await server.spawnPane(teammateArgv('alice', conversation));
    const bridge = startBridge(['--all', '--backend', 'file'], {
      home: paths.home,
      socket: server.socket,
    });
    try {
      await waitFor(
        () =>
          findEvents(paths.home, 'bridge.started').some(
            (e) => e.agent === 'worker-1.alice',
          ),
        {
          timeout: 30_000,
          message: `alice supervised; bridge said: ${bridge.output()}`,
        },
      );
      await server.tmux('kill-pane', '-t', alice);
      let message = '';
      await waitFor(
        () => {
          const warning = findEvents(paths.home, 'warning').find(
            (e) => e.agent === 'worker-1.alice',
          );
          message = `${warning?.data?.message as string | undefined}`;
          return Boolean(warning);
        },
        {
          timeout: 30_000,
          message: `alice's warning; bridge said: ${bridge.output()}`,
        },
      );
      expect(message).toContain('teammate worker-1/alice');
      expect(message).toContain('ended with its pane');
      expect(message).toContain('worker-1 may start another');
      expect(message).not.toContain('macs restart');
      const warning = findEvents(paths.home, 'warning').find(
        (e) => e.agent === 'worker-1.alice',
      );
      expect(warning?.data?.waitingForOwnPane).toBeUndefined();
      expect(warning?.data?.teammateEnded).toBe(true);
    } finally {
      bridge.child.kill('SIGTERM');
      await bridge.exited;
    }
  }, 60_000);

  // The bug: a teammate's hooks that ran before the bridge adopted it (its
  // SessionStart, which carries the worker protocol, within the roster's
  // first look) were refused as "came from pane %N, not from worker-1's
  // pane". Strategy: the lead's state names its pane; a stand-in teammate
  // (a teammate's command line) runs the real `macs hook SessionStart
  // --agent worker-1` as its child, as Claude Code does, before any bridge
  // looked: it must be taken as the teammate's (worker-1.alice), get the
  // worker protocol, and leave the name free for the adoption. The same
  // hook from a stand-in naming another conversation stays refused.
  it('takes a teammate’s hook from before its adoption as the teammate’s; refuses a stranger’s', async () => {
    const conversation = randomUUID();
    await writeConversation(paths, {
      agent: LEAD.name,
      id: conversation,
      source: 'claude-hook',
      at: new Date().toISOString(),
    });
    const lead = await server.spawnPane(['sleep', '1000']);
    await tmux.setPaneOption(lead, '@macs_agent', LEAD.name);
    const { state } = await loadAgentState(paths, LEAD.name, LEAD.preset);
    state.pane = lead;
    await saveAgentState(paths, state);

    /** A stand-in teammate that runs SessionStart's hook and keeps running. */
    const hookingTeammate = (name: string, parent: string, out: string) => {
      const script = [
        "const { spawn } = require('node:child_process');",
        "const fs = require('node:fs');",
        `const hook = spawn(process.execPath, [${JSON.stringify(MACS_BIN)}, 'hook', 'SessionStart', '--agent', ${JSON.stringify(LEAD.name)}, '--home', ${JSON.stringify(paths.home)}], { stdio: ['pipe', 'pipe', 'inherit'] });`,
        "let text = '';",
        "hook.stdout.on('data', (d) => (text += d));",
        `hook.on('exit', (code) => fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify({ code, text })));`,
        `hook.stdin.end(JSON.stringify({ hook_event_name: 'SessionStart', source: 'startup', session_id: ${JSON.stringify(randomUUID())} }));`,
        'setInterval(() => {}, 1e9);',
      ].join('\n');
      const argv = teammateArgv(name, parent);
      argv[2] = script;
      return server.spawnPane(argv);
    };
    const aliceOut = path.join(paths.home, 'alice-hook.json');
    const strangerOut = path.join(paths.home, 'stranger-hook.json');
    await hookingTeammate('alice', conversation, aliceOut);
    await hookingTeammate('mallory', randomUUID(), strangerOut);
    await waitFor(() => existsSync(aliceOut) && existsSync(strangerOut), {
      timeout: 30_000,
      message: 'both hooks ran',
    });
    const read = (file: string) =>
      JSON.parse(readFileSync(file, 'utf8')) as { code: number; text: string };

    // Alice's is hers, before any adoption: the worker protocol, her log.
    expect(read(aliceOut).text).toContain('Working under macs');
    expect(
      findEvents(paths.home, 'hook.SessionStart').map((e) => e.agent),
    ).toEqual(['worker-1.alice']);
    // The stranger's stays refused, on the lead's log.
    expect(read(strangerOut).text).not.toContain('Working under macs');
    const refused = findEvents(paths.home, 'error').filter((e) =>
      `${e.data?.message as string | undefined}`.includes('refused'),
    );
    expect(refused.map((e) => e.agent)).toEqual([LEAD.name]);

    // The name is still free: the bridge's look adopts her as ever.
    const finder = createTeammateFinder({ tmux, paths });
    await waitFor(
      async () =>
        (await finder.find([LEAD], new Set([LEAD.name]))).some(
          (a) => a.agent === 'worker-1.alice',
        ),
      { message: 'alice adopted' },
    );
  });
});
