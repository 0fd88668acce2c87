// Issue 21: a worker defined at the hub with `"host": "h1"` is started by
// the hub's `macs start` on that host, by the host's own macs, in the same
// session as the host's own workers; the hub sees and answers it as
// `h1/<name>`, and `macs stop --host h1` ends it with the rest. A name that
// both the hub and the host define is refused with one line before anything
// starts. Real parts: test sshd hosts (test/helpers/ssh-hosts.ts), the
// host's macs (this checkout) and fake-agent workers.
//
// The live status view at the hub (`macs status` in a real tmux pane, read
// with capture-pane as a person sees it) shows the host's agents and open
// requests as `h1/…` rows and each host's link; a second host that is down
// (no macs there) is shown down and does not keep h1's rows from the view;
// and h1's request answered in the view with r is typed into its worker
// exactly once.
//
// `macs events --follow` at the hub follows the hosts' logs too (over ssh),
// each line naming its host: what was there, and what happens while it
// runs (the answer's delivery); `--agent h1/gpu-w` follows that agent only.
// A hostile host's event lines (names with ; $(), a bad time, a line over
// 64 KiB, escape sequences in data) are refused or cleaned, never printed;
// its wait_for_request, answering "a request" at once with data macs
// refuses, makes the hub's wait return none.
//
// wait_for_request of the hub's `macs mcp` is woken by a host's request
// through the host's own wait_for_request (a long call on the link), not by
// reading the hosts on a timer: the host's log records that call answering
// the request (before, the hub never called it).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MACS_BIN, readRecord, REQ, runMacs } from '../helpers/macs.js';
import {
  fakeHostWorker,
  hostPath,
  hostRecord,
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

interface HostJson {
  name: string;
  link: 'up' | 'down';
  agents: { name: string; state: string }[];
  requests: { id: string }[];
}

/** An agent's row in the view: the selection mark (or two spaces), its name. */
const agentRow = (name: string) =>
  new RegExp(`^(?:› | {2})${name.replace('/', '\\/')} `);

/** Control characters other than newline and tab. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** A long-running `macs …` at the hub (events --follow): its output so far; ended with SIGINT. */
function startMacs(args: string[], home: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [MACS_BIN, ...args], {
    cwd: home,
    env: childEnv({ MACS_HOME: home, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => resolve(code)),
  );
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}

describe('workers defined at the hub with "host", and hosts in the status view (issue 21)', () => {
  let hosts: TestHosts;
  let h1: TestHost;
  let hub: string;
  let viewer: TestTmuxServer | undefined;
  let hubWorkers: Record<string, unknown>[] = [];
  const macs = (args: string[], input?: string) =>
    runMacs(args, {
      home: hub,
      env: { MACS_SSH_CONFIG: hosts.sshConfig },
      timeoutMs: 120_000,
      ...(input !== undefined ? { input } : {}),
    });
  /** The hub config naming h1 only, or h1 and h2 (no macs there: down). */
  const hubConfig = (withDownHost: boolean) =>
    writeHubConfig(hub, withDownHost ? hosts : { ...hosts, hosts: [h1] }, {
      workers: hubWorkers,
    });
  const hostAgents = async (): Promise<string[]> => {
    const run = await macs(['hosts', '--json']);
    const view = (JSON.parse(run.stdout) as { hosts: HostJson[] }).hosts[0];
    return (view?.agents ?? []).map((a) => a.name).sort();
  };
  /** Whether any tmux server of h1 holds a macs session (asked over ssh). */
  const hostSessionRunning = async (): Promise<boolean> => {
    const dir = path.join(h1.tmpDir, 'tmux-0');
    if (!existsSync(dir)) return false;
    for (const socket of readdirSync(dir))
      if (
        (
          await sshRun(
            hosts,
            h1,
            `tmux -S /tmp/tmux-0/${socket} has-session -t macs`,
          )
        ).exitCode === 0
      )
        return true;
    return false;
  };

  beforeAll(async () => {
    hosts = await startTestHosts([
      { name: 'h1' },
      { name: 'h2', macs: 'none' },
      { name: 'evil', macs: { fake: 'hostile' } },
    ]);
    [h1] = hosts.hosts as [TestHost];
    hub = mkdtempSync(path.join(os.tmpdir(), 'macs-hub-'));
    // own-1 asks once it is told to go on (a request after a wait began).
    writeHostConfig(h1, [
      {
        name: 'own-1',
        script: [
          { wait: 'submit' },
          { print: REQ('q8', 'Next step?') },
          { wait: 'submit' },
        ],
      },
    ]);
    hubWorkers = [
      {
        ...fakeHostWorker(h1, {
          name: 'gpu-w',
          script: [{ print: REQ('q7', 'Which dataset?') }, { wait: 'submit' }],
        }),
        host: 'h1',
      },
    ];
    hubConfig(false);
  });
  afterAll(async () => {
    await viewer?.kill();
    if (hosts) {
      await sshRun(hosts, h1, `macs stop --home ${HOST_HOME}`);
      await hosts.stop();
    }
    removeTestDir(hub);
  });

  it('starts it on its host beside the host’s own workers, shows and answers it in the live view, and stops it with --host', async () => {
    const start = await macs(['start', '--detach']);
    expect(start.exitCode, start.stderr + start.stdout).toBe(0);
    expect(start.stdout).toMatch(/host h1: .*started/);
    // Supervised there, seen at the hub as h1/<name>, both hub's and host's.
    await waitFor(
      async () =>
        (await hostAgents()).join(',') === 'h1/gpu-w,h1/own-1' || undefined,
      { timeout: 60_000, message: 'h1/gpu-w and h1/own-1 at the hub' },
    );

    // The live view at the hub, in a real pane, with h2 down beside h1;
    // and the hub's event followers.
    hubConfig(true);
    const sshEnv = { MACS_SSH_CONFIG: hosts.sshConfig };
    const followAll = startMacs(['events', '--follow'], hub, sshEnv);
    const followOne = startMacs(
      ['events', '--follow', '--agent', 'h1/gpu-w'],
      hub,
      sshEnv,
    );
    // `status --json --watch` at a hub: each line with `remote.hosts`, as
    // `status --json` has it.
    const watchJson = startMacs(['status', '--json', '--watch'], hub, sshEnv);
    viewer = await startTmuxServer();
    const view = viewer;
    const pane = await view.spawnPane(
      [
        'sh',
        '-c',
        `"${process.execPath}" "${MACS_BIN}" status; echo "macs status exited $?"`,
      ],
      {
        cwd: hub,
        width: 160,
        height: 30,
        env: { MACS_HOME: hub, MACS_SSH_CONFIG: hosts.sshConfig },
      },
    );
    const screen = await waitFor(
      async () => {
        const text = await view.capture(pane);
        return /h1 up/.test(text) &&
          /hosts: .*h2 down/.test(text) &&
          /h1\/gpu-w-q7|Which dataset\?/.test(text)
          ? text
          : undefined;
      },
      { timeout: 60_000, message: 'h1’s rows and both links in the view' },
    );
    const lines = screen.split('\n');
    expect(lines[0]).toMatch(/^macs status .*2 agents · 1 pending/);
    // The header's short words for each link (remote/host-link.ts).
    expect(lines[0]).toMatch(/hosts: h1 up \d+ ms, h2 down\b/);
    expect(lines.filter((l) => agentRow('h1/gpu-w').test(l))).toHaveLength(1);
    expect(lines.filter((l) => agentRow('h1/own-1').test(l))).toHaveLength(1);
    expect(screen).toContain('Which dataset?');

    // Answered in the view: r, the text, Ctrl-D (the path of `macs respond`).
    await view.tmux('send-keys', '-t', pane, 'r');
    await waitFor(
      async () =>
        /ANSWER h1\/gpu-w-q7/.test(await view.capture(pane)) || undefined,
      { timeout: 10_000, message: 'the answer box for h1/gpu-w-q7' },
    );
    await view.tmux('send-keys', '-t', pane, '-l', 'use the small one');
    await view.tmux('send-keys', '-t', pane, 'C-d');
    await waitFor(
      async () =>
        /answered h1\/gpu-w-q7 on h1/.test(await view.capture(pane)) ||
        undefined,
      { timeout: 30_000, message: 'the view saying it answered' },
    );
    await waitFor(
      () =>
        readRecord(hostRecord(h1, 'gpu-w')).some(
          (r) => r.type === 'submit' && r.text?.includes('use the small one'),
        ) || undefined,
      { timeout: 30_000, message: 'the answer typed into h1/gpu-w' },
    );
    // The request leaves the view; the answer was typed once.
    await waitFor(
      async () =>
        /^macs status .*2 agents · 0 pending/.test(await view.capture(pane)) ||
        undefined,
      { timeout: 30_000, message: 'the answered request gone from the view' },
    );
    expect(
      readRecord(hostRecord(h1, 'gpu-w')).filter((r) => r.type === 'submit'),
    ).toHaveLength(1);
    // The followers: what was there and the delivery that came while they
    // ran, each line naming the host; --agent h1/gpu-w only that agent.
    const delivered = /\s h1\/gpu-w {2}request\.delivered {2}h1\/gpu-w-q7/;
    await waitFor(
      () =>
        (delivered.test(followAll.stdout()) &&
          delivered.test(followOne.stdout())) ||
        undefined,
      { timeout: 30_000, message: 'the delivery in both followers' },
    );
    expect(followAll.stdout()).toMatch(
      /\s h1\/gpu-w {2}request\.detected {2}h1\/gpu-w-q7/,
    );
    expect(followAll.stdout()).toMatch(/\s h1\/own-1 {2}/);
    expect(followOne.stdout()).not.toMatch(/own-1/);
    expect(followAll.stderr()).toMatch(/macs: host h2: /);
    expect(await followAll.stop()).toBe(0);
    expect(await followOne.stop()).toBe(0);
    const watchedLines = () =>
      watchJson
        .stdout()
        .split('\n')
        .filter(Boolean)
        .map(
          (l) =>
            JSON.parse(l) as {
              remote?: {
                hosts: {
                  name: string;
                  link: string;
                  agents: { name: string }[];
                }[];
              };
            },
        );
    // A line is written when something changes: on a slow machine the one
    // with both hosts read may come after the followers are done.
    const watched = await waitFor(
      () => {
        const lines = watchedLines();
        const links = (lines.at(-1)?.remote?.hosts ?? []).map(
          (h) => `${h.name} ${h.link}`,
        );
        return links.includes('h1 up') && links.includes('h2 down')
          ? lines
          : undefined;
      },
      { timeout: 30_000, message: 'status --json --watch with both hosts' },
    );
    expect(await watchJson.stop()).toBe(130); // interrupted, as --watch says
    const hostsSeen = watched.at(-1)?.remote?.hosts ?? [];
    expect(hostsSeen.map((h) => `${h.name} ${h.link}`)).toEqual(
      expect.arrayContaining(['h1 up', 'h2 down']),
    );
    expect(
      hostsSeen.find((h) => h.name === 'h1')?.agents.map((a) => a.name),
    ).toEqual(['h1/gpu-w', 'h1/own-1']);

    // h1 goes down (its sshd, then the connections it had): its rows stay
    // in the view, marked (its agents live on there); before, they vanished
    // until it was back.
    await h1.kill();
    const clients = sshClientsOf(hosts, h1);
    expect(clients.length).toBeGreaterThan(0);
    for (const pid of clients) process.kill(pid, 'SIGKILL');
    const down = await waitFor(
      async () => {
        const text = await view.capture(pane);
        return /hosts: h1 down since/.test(text) ? text : undefined;
      },
      { timeout: 30_000, message: 'h1 down in the view' },
    );
    const kept = down.split('\n').filter((l) => agentRow('h1/gpu-w').test(l));
    expect(kept, down).toHaveLength(1);
    expect(kept[0]).toMatch(/unknown +h1 down/);
    expect(down.split('\n')[0]).toMatch(/2 agents · 0 pending/);
    await h1.start();

    // The hub's MCP server: a wait begun before h1/own-1 asks is woken by it.
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MACS_BIN, 'mcp'],
        env: childEnv({ MACS_HOME: hub, ...sshEnv }) as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    try {
      // The link to h1 is up once h1's agents are listed.
      await waitFor(
        async () =>
          JSON.stringify(
            (await client.callTool({ name: 'list_agents', arguments: {} }))
              .structuredContent,
          ).includes('h1/own-1') || undefined,
        { timeout: 30_000, message: 'h1 through the hub mcp' },
      );
      const waiting = client.callTool(
        {
          name: 'wait_for_request',
          arguments: { agent: 'h1/own-1', timeout_sec: 90 },
        },
        undefined,
        { timeout: 120_000 },
      );
      // The view rang no bell so far: h1/gpu-w-q7 waited before it started.
      const bell = async () =>
        (await view.tmux(
          'display-message',
          '-p',
          '-t',
          pane,
          '#{window_bell_flag}',
        )) ?? '';
      expect((await bell()).trim()).toBe('0');
      const sent = await macs(['send', 'h1/own-1', 'go on']);
      expect(sent.exitCode, sent.stderr).toBe(0);
      const got = await waiting;
      expect(got.isError, JSON.stringify(got.content)).toBeFalsy();
      expect(JSON.stringify(got.structuredContent)).toContain('h1/own-1-q8');
      // A host's request that waits for a person rings the hub's view's
      // bell (the host's own bell rings where nobody at the hub sees it).
      await waitFor(async () => (await bell()).trim() === '1', {
        timeout: 30_000,
        message: "the bell of the hub's view for h1/own-1-q8",
      });
      await view.kill();
      viewer = undefined;
      const hostLog = readFileSync(
        hostPath(h1, `${HOST_HOME}/.macs/events/own-1.jsonl`),
        'utf8',
      );
      expect(
        hostLog
          .split('\n')
          .filter(Boolean)
          .map(
            (l) =>
              JSON.parse(l) as {
                type: string;
                requestId?: string;
                data?: { tool?: string };
              },
          )
          .some(
            (e) =>
              e.type === 'mcp.call' &&
              e.data?.tool === 'wait_for_request' &&
              e.requestId === 'own-1-q8',
          ),
      ).toBe(true);
    } finally {
      await client.close();
    }

    hubConfig(false);
    const stopped = await macs(['stop', '--host', 'h1']);
    expect(stopped.exitCode, stopped.stdout + stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(/host h1: .*stopped/);
    await waitFor(async () => !(await hostSessionRunning()) || undefined, {
      timeout: 15_000,
      message: "h1's macs session gone",
    });
  });

  it('refuses a worker name that the host’s own config defines too, starting nothing there', async () => {
    // From no session on h1, whatever the test before left.
    await sshRun(hosts, h1, `macs stop --home ${HOST_HOME}`);
    expect(await hostSessionRunning()).toBe(false);
    writeHostConfig(h1, [{ name: 'gpu-w', script: [] }]);
    const start = await macs(['start', '--detach']);
    expect(start.exitCode).toBe(1);
    expect(start.stdout).toMatch(
      /host h1: .*worker 'gpu-w' is defined both in this host's macs.config.json and in the hub's/,
    );
    expect(await hostSessionRunning()).toBe(false);
  });

  it('follows a hostile host’s events without printing what it refuses', async () => {
    writeHubConfig(hub, { ...hosts, hosts: [hosts.hosts[2]!] });
    const follow = startMacs(['events', '--follow', '--json'], hub, {
      MACS_SSH_CONFIG: hosts.sshConfig,
    });
    await waitFor(() => /"evil\/w-1"/.test(follow.stdout()) || undefined, {
      timeout: 30_000,
      message: 'the good event of evil',
    });
    expect(await follow.stop()).toBe(0);
    // Of evil (the hub's own log is followed too): only the good event,
    // once, named at the hub, its data cleaned.
    const lines = follow
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { host?: string })
      .filter((e) => e.host !== undefined);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toEqual({
      ts: '2026-11-27T10:00:00.000Z',
      agent: 'evil/w-1',
      type: 'state.changed',
      requestId: 'evil/w-1-q1',
      data: { note: 'ok]0;pwned2Jend' },
      host: 'evil',
    });
    expect(follow.stderr()).toMatch(
      /macs: host evil: an event line it sent was refused/,
    );
    expect(follow.stdout() + follow.stderr()).not.toMatch(CONTROL);
    // Its wait_for_request says "a request" at once, every time, with data
    // macs refuses: the hub's waiter reads (and refuses) its list when woken,
    // returns none and runs nothing.
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MACS_BIN, 'mcp'],
        env: childEnv({
          MACS_HOME: hub,
          MACS_SSH_CONFIG: hosts.sshConfig,
        }) as Record<string, string>,
        stderr: 'ignore',
      }),
    );
    try {
      const waited = await client.callTool(
        { name: 'wait_for_request', arguments: { timeout_sec: 3 } },
        undefined,
        { timeout: 60_000 },
      );
      expect(waited.isError, JSON.stringify(waited.content)).toBeFalsy();
      expect(waited.structuredContent).toMatchObject({
        request: null,
        timedOut: true,
      });
    } finally {
      await client.close();
    }
    expect(existsSync('/tmp/pwned-hub')).toBe(false);
  });
});
