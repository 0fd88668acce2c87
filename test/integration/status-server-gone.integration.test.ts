// Issue 29, part 2: a dead tmux server read as a running session. After the
// session's private tmux server was killed (`tmux -L <socket> kill-server`,
// as a crash or a reboot does), `macs status` said "session … running for
// 1m", its agents `idle`, `--json` `"status": "running"`; only a `no bridge`
// tag hinted that anything was wrong, and nothing said how to bring it back.
//
// Strategy: a real detached session (`macs start --detach --worker bash`) on
// its own private server, a live view (`macs status` in a pane of a second
// private server, as a person runs it in another terminal), and the
// session's server killed. Then the plain-text status, `--json` and the view
// must say that the server is gone and name `macs start --resume`, and no
// agent may be read as idle or working from its stale state file.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MACS_BIN, runMacs } from '../helpers/macs.js';
import { cleanUpSession, testSocket, tmuxOn } from '../helpers/session.js';
import { rawRequest, signIn, startWeb } from '../helpers/web.js';
import {
  childEnv,
  makeTempHome,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

interface Status {
  session: { status: string; id: string | null };
  agents: {
    name: string;
    state: string;
    stateSource: string;
    bridge: { running: boolean };
  }[];
}

describe('macs status after the session tmux server is gone (issue 29)', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let viewServer: TestTmuxServer | undefined;

  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-server-gone-'));
    socket = testSocket();
  });
  afterEach(async () => {
    await viewServer?.kill();
    viewServer = undefined;
    await cleanUpSession(home, socket);
    cleanup();
  });

  const macs = (args: string[]) =>
    runMacs(args, { home, socket, timeoutMs: 60_000 });
  const status = async () =>
    JSON.parse((await macs(['status', '--json'])).stdout) as Status;

  it('says the server is gone and how to resume, in text, JSON and the live view', async () => {
    const start = await macs(['start', '--detach', '--worker', 'bash']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    // The session as the bug found it: running, its agent idle at its prompt.
    await waitFor(
      async () => {
        const s = await status();
        return (
          s.session.status === 'running' &&
          s.agents.some((a) => a.state === 'idle' && a.bridge.running)
        );
      },
      { timeout: 30_000, message: 'the session running, its agent idle' },
    );

    viewServer = await startTmuxServer();
    const view = await viewServer.spawnPane(
      ['sh', '-c', `"${process.execPath}" "${MACS_BIN}" status`],
      {
        cwd: home,
        width: 120,
        height: 30,
        env: { MACS_HOME: home },
      },
    );
    await waitFor(
      async () => (await viewServer?.capture(view))?.includes('worker-1'),
      { timeout: 30_000, message: 'the view showing worker-1' },
    );

    await tmuxOn(socket, 'kill-server');
    await waitFor(
      async () => (await tmuxOn(socket, 'list-sessions')) === undefined,
      { message: 'the tmux server gone' },
    );

    const json = await status();
    expect(json.session.status).toBe('server-gone');
    expect(json.agents.length).toBeGreaterThan(0);
    for (const agent of json.agents) {
      expect(agent.state, agent.name).toBe('unknown');
      expect(agent.stateSource, agent.name).toBe('server-gone');
    }

    const text = await macs(['status']);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).not.toMatch(/session \S+ running/);
    expect(text.stdout).toContain('tmux server is gone');
    expect(text.stdout).toContain('macs start --resume');
    expect(text.stdout).not.toMatch(/worker-1\s+\S+\s+idle/);

    // Every door says so: macs web's API and MCP list_agents.
    const web = await startWeb({ home, socket });
    try {
      const cookie = await signIn(web);
      await waitFor(
        async () => {
          const res = await rawRequest(web.port, {
            path: '/api/fleet',
            headers: { Host: `127.0.0.1:${web.port}`, Cookie: cookie },
          });
          const fleet = JSON.parse(res.body) as Status | null;
          return fleet?.session.status === 'server-gone';
        },
        { timeout: 20_000, message: 'macs web saying server-gone' },
      );
    } finally {
      await web.stop();
    }
    const mcp = new Client({ name: 'macs-test', version: '0.0.0' });
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MACS_BIN, 'mcp'],
        env: Object.fromEntries(
          Object.entries(
            childEnv({ MACS_HOME: home, MACS_TMUX_SOCKET: socket }),
          ).filter((e): e is [string, string] => e[1] !== undefined),
        ),
        cwd: home,
        stderr: 'pipe',
      }),
    );
    try {
      const listed = (await mcp.callTool({
        name: 'list_agents',
        arguments: {},
      })) as { structuredContent?: { session?: string } };
      expect(listed.structuredContent?.session).toBe('server-gone');
    } finally {
      await mcp.close();
    }

    // The view notices without a key press (no file changes when a server dies).
    await waitFor(
      async () => {
        const screen = (await viewServer?.capture(view)) ?? '';
        return (
          screen.includes('tmux server gone') &&
          screen.includes('macs start --resume')
        );
      },
      { timeout: 30_000, message: 'the view saying the server is gone' },
    );
  });
});
