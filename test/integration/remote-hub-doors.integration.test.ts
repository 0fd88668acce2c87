// Issue 31, the smaller items of a hub's doors, with a real test host
// (test/helpers/ssh-hosts.ts: an sshd in its own mount namespace, this
// checkout's macs there, a fake-agent worker defined at the hub):
//
// - a mistyped host home (`/root/prj`, no macs there) showed `up … 0
//   agents` and the hub's `macs mcp` on the host created /root/prj/.macs/;
//   it must be an error naming the path, creating nothing;
// - the hub's `macs start` did not name the host's agents, and its hints
//   said `node /path/dist/main.js` although a `macs` is on the PATH;
// - the hub's own reads of a host (list_agents, list_requests) were written
//   to the host's event log as mcp.call events; and a hub's `events
//   --follow` ended by `timeout` (SIGTERM) left the host's `macs events
//   --follow` running (its parent init) until killed: it must end with the
//   hub's (the processes in the host's mount namespace are listed after);
// - there was no way to reach a host agent's terminal: `macs attach
//   h1/w` runs in a pane of a private tmux server (so it has a terminal),
//   shows the host's session there, and detaches;
// - the live view offered `e` (the editor) on a host's request and refused:
//   it must answer through the same path as `r`, typed once on the host.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MACS_BIN, readRecord, REQ, runMacs } from '../helpers/macs.js';
import {
  fakeHostWorker,
  hostPath,
  hostRecord,
  sshRun,
} from '../helpers/remote-session.js';
import {
  startTestHosts,
  type TestHost,
  type TestHosts,
} from '../helpers/ssh-hosts.js';
import {
  childEnv,
  startTmuxServer,
  type TestTmuxServer,
  removeTestDir,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

/** The home the hub names for h1: no macs there until the hub starts it. */
const TYPO_HOME = '/root/prj';

interface HostJson {
  name: string;
  link: 'up' | 'down';
  error: { kind: string; message: string; hint?: string } | null;
  agents: { name: string }[];
}

/** Processes in `host`'s mount namespace whose command line has `needle`. */
function hostProcesses(host: TestHost, needle: string): string[] {
  const ns = readlinkSync(`/proc/${host.sshd.pid}/ns/mnt`);
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      if (readlinkSync(`/proc/${entry}/ns/mnt`) !== ns) return [];
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
        .split('\0')
        .join(' ');
      return cmd.includes(needle) ? [`${entry} ${cmd}`] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}

/** Wait until a pane shows `re`; a timeout says what it showed. */
async function screenShows(
  view: TestTmuxServer,
  pane: string,
  re: RegExp,
  what: string,
): Promise<void> {
  let screen = '';
  await waitFor(
    async () => re.test((screen = await view.capture(pane))) || undefined,
    { timeout: 60_000, message: what },
  ).catch((error: Error) => {
    throw new Error(`${error.message}; the pane shows:\n${screen}`);
  });
}

describe("a hub's smaller doors to its hosts (issue 31)", () => {
  let hosts: TestHosts;
  let h1: TestHost;
  let hub: string;
  let bin: string;
  let viewer: TestTmuxServer | undefined;
  const sshEnv = () => ({ MACS_SSH_CONFIG: hosts.sshConfig });
  const macs = (args: string[], env: Record<string, string> = {}) =>
    runMacs(args, {
      home: hub,
      env: { ...sshEnv(), ...env },
      timeoutMs: 120_000,
    });
  const hostsJson = async (): Promise<HostJson[]> =>
    (
      JSON.parse((await macs(['hosts', '--json'])).stdout) as {
        hosts: HostJson[];
      }
    ).hosts;

  beforeAll(async () => {
    hosts = await startTestHosts([{ name: 'h1' }]);
    [h1] = hosts.hosts as [TestHost];
    hub = mkdtempSync(path.join(os.tmpdir(), 'macs-hub-'));
    const worker = fakeHostWorker(h1, {
      name: 'w',
      script: [
        { print: REQ('q1', 'Line one: which database?\nReply A or B') },
        { wait: 'submit' },
      ],
    });
    writeFileSync(
      path.join(hub, 'macs.config.json'),
      JSON.stringify({
        hosts: { h1: { ssh: h1.ssh, home: TYPO_HOME } },
        workers: [{ ...worker, host: 'h1' }],
      }),
    );
    // A `macs` on the PATH, as an installed one is.
    bin = mkdtempSync(path.join(os.tmpdir(), 'macs-bin-'));
    writeFileSync(
      path.join(bin, 'macs'),
      `#!/bin/sh\nexec "${process.execPath}" "${MACS_BIN}" "$@"\n`,
      { mode: 0o755 },
    );
  });
  afterAll(async () => {
    await viewer?.kill();
    if (hosts) {
      await sshRun(hosts, h1, `macs stop --home ${TYPO_HOME}`);
      await hosts.stop();
    }
    removeTestDir(hub);
    removeTestDir(bin);
  });

  it('refuses a host home that is not a macs home, naming it, and creates nothing there', async () => {
    const run = await macs(['hosts', '--json']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const h1View = (JSON.parse(run.stdout) as { hosts: HostJson[] }).hosts[0];
    expect(h1View?.link).toBe('down');
    expect(h1View?.error?.kind).toBe('no-home');
    expect(h1View?.error?.message).toMatch(
      /^host h1: \/root\/prj is not a macs home \(no macs\.config\.json, no \.macs\/session\.json\)$/,
    );
    const status = JSON.parse((await macs(['status', '--json'])).stdout) as {
      remote: { hosts: HostJson[] };
    };
    expect(status.remote.hosts[0]?.link).toBe('down');
    expect(existsSync(hostPath(h1, TYPO_HOME))).toBe(false);
  });

  it("starts the host's session, naming its agents, with hints that say macs", async () => {
    const start = await macs(['start', '--detach'], {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    });
    expect(start.exitCode, start.stdout + start.stderr).toBe(0);
    expect(start.stdout).toMatch(/host h1: .*started/);
    expect(start.stdout).toMatch(/^\s+agents: h1\/w \(worker\)$/m);
    expect(start.stdout).toMatch(/^\s+attach: +macs attach <host>\/<agent>$/m);
    expect(start.stdout).not.toMatch(/node /);
    await waitFor(
      async () =>
        (await hostsJson())[0]?.agents.some((a) => a.name === 'h1/w') ||
        undefined,
      { timeout: 60_000, message: 'h1/w at the hub' },
    );
  });

  it("keeps the hub's reads out of the host's events, and a follow ended by timeout leaves nothing on the host", async () => {
    await macs(['inbox', '--json']);
    await macs(['status', '--json']);
    const mcpLog = hostPath(h1, `${TYPO_HOME}/.macs/events/mcp.jsonl`);
    const reads = (existsSync(mcpLog) ? readFileSync(mcpLog, 'utf8') : '')
      .split('\n')
      .filter((l) => /"tool":"(list_agents|list_requests)"/.test(l));
    expect(reads).toEqual([]);

    // The hub's follower, ended by SIGTERM from `timeout`, as a person's
    // script would.
    const follow = spawn(
      'timeout',
      ['-s', 'TERM', '6', process.execPath, MACS_BIN, 'events', '--follow'],
      {
        cwd: hub,
        env: childEnv({ MACS_HOME: hub, ...sshEnv() }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    follow.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const exited = new Promise((r) => follow.on('exit', r));
    const needle = `events --follow --json`;
    await waitFor(() => hostProcesses(h1, needle).length > 0 || undefined, {
      timeout: 30_000,
      message: "the host's follower running",
    });
    await exited;
    await waitFor(() => hostProcesses(h1, needle).length === 0 || undefined, {
      timeout: 15_000,
      message: `no follower left on the host: ${hostProcesses(h1, needle).join('; ')}`,
    });
    expect(out).toMatch(/h1\/w {2}request\.detected/);
    expect(out).not.toMatch(/mcp\.call.*"tool":"list_(agents|requests)"/);
  });

  it("attaches a host agent's pane from the hub (ssh -t) and detaches", async () => {
    viewer = await startTmuxServer();
    const pane = await viewer.spawnPane(
      [
        'sh',
        '-c',
        `"${process.execPath}" "${MACS_BIN}" attach h1/w; echo "attach exited $?"; sleep 60`,
      ],
      {
        cwd: hub,
        width: 120,
        height: 30,
        env: { MACS_HOME: hub, ...sshEnv() },
      },
    );
    const view = viewer;
    await waitFor(
      async () => /Reply A or B/.test(await view.capture(pane)) || undefined,
      { timeout: 30_000, message: "h1/w's pane through macs attach h1/w" },
    );
    // The host's tmux (prefix C-b), then d: typed into the pane, as a person.
    await view.tmux('send-keys', '-t', pane, 'C-b', 'd');
    await waitFor(
      async () => /attach exited 0/.test(await view.capture(pane)) || undefined,
      { timeout: 15_000, message: 'macs attach back after detaching' },
    );
  });

  it("answers a host's request in $EDITOR from the hub's live view, typed once", async () => {
    const editor = path.join(bin, 'editor.sh');
    writeFileSync(
      editor,
      `#!/bin/sh\nprintf 'WORKER INSTRUCTIONS:\\nUse B.\\n' > "$1"\n`,
      { mode: 0o755 },
    );
    const view = viewer ?? (viewer = await startTmuxServer());
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
        env: { MACS_HOME: hub, EDITOR: editor, ...sshEnv() },
      },
    );
    await screenShows(view, pane, /h1 up[^]*which database/, "h1's request");
    await view.tmux('send-keys', '-t', pane, 'e');
    // The line "answered h1/w-q1 on h1" goes once the host says the answer
    // was delivered, which its change notice makes quick: a slow capture can
    // miss it. What stays: the answer typed once, and the request gone.
    await waitFor(
      () =>
        readRecord(hostRecord(h1, 'w')).some(
          (r) => r.type === 'submit' && r.text?.includes('Use B.'),
        ) || undefined,
      { timeout: 30_000, message: 'the answer typed into h1/w' },
    );
    await screenShows(view, pane, /No pending requests/, 'the request gone');
    expect(
      readRecord(hostRecord(h1, 'w')).filter((r) => r.type === 'submit'),
    ).toHaveLength(1);
  });
});
