// A host's changes are pushed to the hub (issue 31, "pushed, not polled").
// Bugs: (1) `macs web` at a hub read its hosts every 5 s and the live view
// likewise, so a host's request reached the page 0.7–2.9 s and the view
// 2–3.7 s after its detection, and the hub read every host all the time
// while nothing changed; (2) what the doors show of a host that went down
// with a request waiting, and of a host whose clock is minutes off, must
// hold with the reads pushed.
// Strategy: real test hosts (sshd on loopback, test/helpers/ssh-hosts.ts).
// The web server runs in this process with its backstop read of the hosts
// set to a day (`hostsRefreshMs`), so a request made on h1 after the page's
// first read can reach the page's data only by h1's change notice (before
// the change it never did); the hub's `macs mcp` waits for it at the same
// time. Then the hub's live view runs in a real pane (read with
// capture-pane): h2's clock is 7 minutes ahead and its request must show
// under a minute old; h1 is stopped with its request waiting, which the
// view and the hub's MCP `list_requests` keep, marked down, and which MCP
// `answer_request` answers (kept at the hub).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createEventLog } from '../../src/events/log.js';
import { resolveHomePaths } from '../../src/home/paths.js';
import { createLogger } from '../../src/log/logger.js';
import { createRemoteFleet } from '../../src/remote/remote-fleet.js';
import { createSnapshotReader } from '../../src/state/snapshot.js';
import { createSnapshotFeed } from '../../src/state/snapshot-feed.js';
import { createWebHosts } from '../../src/web/web-fleet.js';
import { startWebServer, type WebServer } from '../../src/web/server.js';
import { VERSION } from '../../src/version.js';
import { MACS_BIN, REQ, runMacs } from '../helpers/macs.js';
import {
  HOST_HOME,
  sshRun,
  writeHostConfig,
  writeHubConfig,
} from '../helpers/remote-session.js';
import {
  startTestHosts,
  type TestHost,
  type TestHosts,
  sshClientsOf,
} from '../helpers/ssh-hosts.js';
import {
  childEnv,
  startTmuxServer,
  type TestTmuxServer,
  removeTestDir,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { rawRequest } from '../helpers/web.js';

const SKEW_MS = 7 * 60_000;
const DAY_MS = 86_400_000;

/** What the tests read of the page's data (`/api/fleet`). */
interface WebFleet {
  agents: { name: string }[];
  requests: { id: string }[];
  hosts: { name: string; line: string }[];
}

describe("a host's changes pushed to the hub (issue 31)", () => {
  let hosts: TestHosts;
  let h1: TestHost;
  let h2: TestHost;
  let hub: string;
  let web: WebServer | undefined;
  let stopWeb: (() => Promise<void>) | undefined;
  /** The web server's data (`/api/fleet`), while it runs. */
  let webFleet: (() => Promise<WebFleet | null>) | undefined;
  let mcp: Client | undefined;
  let viewer: TestTmuxServer | undefined;
  const env = () => ({ MACS_SSH_CONFIG: hosts.sshConfig });
  const macs = (args: string[]) =>
    runMacs(args, { home: hub, env: env(), timeoutMs: 120_000 });

  beforeAll(async () => {
    hosts = await startTestHosts([
      { name: 'h1' },
      { name: 'h2', clockSkewMs: SKEW_MS },
    ]);
    [h1, h2] = hosts.hosts as [TestHost, TestHost];
    hub = mkdtempSync(path.join(os.tmpdir(), 'macs-push-'));
    writeHubConfig(hub, hosts);
    // h1's worker asks once told to go on (after the doors' first read).
    writeHostConfig(h1, [
      {
        name: 'own-1',
        script: [
          { wait: 'submit' },
          { print: REQ('q2', 'Which port?') },
          { wait: 'submit' },
        ],
      },
    ]);
    writeHostConfig(h2, [
      {
        name: 'worker-1',
        script: [{ print: REQ('db', 'Which database?') }, { wait: 'submit' }],
      },
    ]);
  });
  afterAll(async () => {
    await viewer?.kill();
    await mcp?.close().catch(() => undefined);
    await stopWeb?.();
    if (hosts) {
      await h1.start().catch(() => undefined);
      for (const h of [h1, h2])
        await sshRun(hosts, h, `macs stop --home ${HOST_HOME}`).catch(
          () => undefined,
        );
      await hosts.stop();
    }
    removeTestDir(hub);
  });

  it("brings a host's new request to the web server's data and the MCP wait without a timed read", async () => {
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);

    // The web server of `macs web`, here, its backstop read a day away.
    const paths = resolveHomePaths(hub);
    const { config } = await loadConfig({ home: hub });
    const log = createLogger({ level: 'silent' });
    const feed = createSnapshotFeed({ paths });
    await feed.start();
    const webHosts = createWebHosts(
      createRemoteFleet(
        {
          config,
          env: { ...process.env, ...env() },
          paths,
          version: VERSION,
          log,
        },
        { live: true },
      ),
      paths,
    );
    const secret = 'a'.repeat(43);
    web = await startWebServer({
      host: '127.0.0.1',
      port: 0,
      secret,
      feed,
      allowSend: false,
      panesDir: paths.panes,
      log,
      readScreen: (agent) => Promise.resolve({ agent, error: 'none here' }),
      actions: {
        paths,
        config,
        env: process.env,
        reader: createSnapshotReader(paths),
        feed,
        events: createEventLog(paths),
        log,
        forward: webHosts.forward,
      },
      hosts: webHosts,
      hostsRefreshMs: DAY_MS,
    });
    stopWeb = async () => {
      await web?.close();
      await webHosts.close();
      feed.stop();
    };
    const port = web.port;
    const signIn = await rawRequest(port, { path: `/?token=${secret}` });
    const cookie = String(signIn.headers['set-cookie']?.[0] ?? '').split(
      ';',
    )[0]!;
    const fleet = async () =>
      JSON.parse(
        (
          await rawRequest(port, {
            path: '/api/fleet',
            headers: { Cookie: cookie },
          })
        ).body,
      ) as WebFleet | null;
    webFleet = fleet;
    // The first read: h1's worker is there, asking nothing yet.
    await waitFor(
      async () =>
        (await fleet())?.agents.some((a) => a.name === 'h1/own-1') || undefined,
      { timeout: 60_000, message: 'h1/own-1 in the web data' },
    );
    expect((await fleet())?.requests.map((r) => r.id)).not.toContain(
      'h1/own-1-q2',
    );

    // The hub's MCP server, waiting for h1's request.
    mcp = new Client({ name: 'test', version: '0' });
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MACS_BIN, 'mcp'],
        env: childEnv({ MACS_HOME: hub, ...env() }) as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    await waitFor(
      async () =>
        JSON.stringify(
          (await mcp!.callTool({ name: 'list_agents', arguments: {} }))
            .structuredContent,
        ).includes('h1/own-1') || undefined,
      { timeout: 30_000, message: 'h1 through the hub mcp' },
    );
    const waiting = mcp.callTool(
      {
        name: 'wait_for_request',
        arguments: { agent: 'h1/own-1', timeout_sec: 120 },
      },
      undefined,
      { timeout: 150_000 },
    );

    const sent = await macs(['send', 'h1/own-1', 'go on']);
    expect(sent.exitCode, sent.stderr).toBe(0);
    await waitFor(
      async () =>
        (await fleet())?.requests.some((r) => r.id === 'h1/own-1-q2') ||
        undefined,
      { timeout: 60_000, message: "h1's new request in the web data" },
    );
    const got = await waiting;
    expect(got.isError, JSON.stringify(got.content)).toBeFalsy();
    expect(JSON.stringify(got.structuredContent)).toContain('h1/own-1-q2');
  });

  it('shows a skewed host’s ages right, and keeps a stopped host’s waiting request in the view and MCP, answerable', async () => {
    viewer = await startTmuxServer();
    const view = viewer;
    const pane = await view.spawnPane(
      [
        'sh',
        '-c',
        `"${process.execPath}" "${MACS_BIN}" status; echo "macs status exited $?"`,
      ],
      { cwd: hub, width: 160, height: 30, env: { MACS_HOME: hub, ...env() } },
    );
    /** A row of the view that names `what`. */
    const rowOf = (screen: string, what: string) =>
      screen.split('\n').filter((l) => l.includes(what));
    const screen = await waitFor(
      async () => {
        const text = await view.capture(pane);
        return /h1 up/.test(text) &&
          /h2 up/.test(text) &&
          rowOf(text, 'h2/worker-1').length > 0 &&
          rowOf(text, 'Which database?').length > 0
          ? text
          : undefined;
      },
      { timeout: 60_000, message: 'both hosts and h2’s request in the view' },
    );
    // h2's clock is 7 minutes ahead; its request is seconds old (the view
    // shows ages in minutes: `<1m`, or `1m` on a slow machine), never 7m.
    const askRow = rowOf(screen, 'Which database?')[0]!;
    expect(askRow, screen).toMatch(/(?:<1m|\b1m)\b/);
    expect(askRow).not.toMatch(/\b[2-9]m\b/);
    const agentRow = rowOf(screen, 'h2/worker-1 ')[0] ?? '';
    expect(agentRow, screen).not.toMatch(/\b[2-9]m\b/);

    // h1 goes down with its request waiting: its sshd, then the hub's
    // connections to it (the view's link and the MCP server's).
    await h1.kill();
    for (const pid of sshClientsOf(hosts, h1)) process.kill(pid, 'SIGKILL');
    const down = await waitFor(
      async () => {
        const text = await view.capture(pane);
        return /hosts: .*h1 down/.test(text) && text.includes('Which port?')
          ? text
          : undefined;
      },
      { timeout: 30_000, message: 'h1 down, its request kept, in the view' },
    );
    expect(rowOf(down, 'Which port?')).toHaveLength(1);

    let lastListed = '';
    const listed = await waitFor(
      async () => {
        const out = await mcp!.callTool({
          name: 'list_requests',
          arguments: {},
        });
        const rows = (
          out.structuredContent as {
            requests: { id: string; hostDownSince?: string | null }[];
          }
        ).requests;
        lastListed = JSON.stringify(out.structuredContent);
        const row = rows.find((r) => r.id === 'h1/own-1-q2');
        return row && row.hostDownSince !== undefined ? out : undefined;
      },
      {
        timeout: 30_000,
        message: "h1's request listed by MCP, marked down",
      },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; last: ${lastListed}`);
    });
    expect(JSON.stringify(listed.structuredContent)).toContain('h1/own-1-q2');

    // The page's line for h1 says the link's latest error: first the drop,
    // then each failed reconnection's (its sshd is gone: connection
    // refused), told by the link when it changes. Before, only up and down
    // were told, and the page said "the link dropped" until its backstop
    // read (a day away here) while every other door said why it stays down.
    await waitFor(
      async () => {
        const h1Line = (await webFleet!())?.hosts.find((h) => h.name === 'h1');
        return h1Line && /refused/i.test(h1Line.line) ? h1Line : undefined;
      },
      { timeout: 30_000, message: "h1's latest error in the web data" },
    );
    const answered = await mcp!.callTool({
      name: 'answer_request',
      arguments: { id: 'h1/own-1-q2', instructions: '8080' },
    });
    expect(answered.isError, JSON.stringify(answered.content)).toBeFalsy();
    expect(JSON.stringify(answered.content)).toMatch(/kept/);
  });
});
