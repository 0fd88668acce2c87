// Workers on other hosts (issue 21, docs/remote.md), on the project's test
// hosts (ssh-hosts.mjs: one sshd per loopback address in its own mount
// namespace; needs root). One `macs start --detach` at the hub starts
// HOSTS hosts with AGENTS agents each (sh panes, plus one bench worker on
// the first host) and one bench worker at the hub itself. Measured:
//   1. how long until every host agent is supervised (each listed by
//      list_agents of a `macs mcp` at the hub started with `macs start`,
//      with its host's bridge running and its pane), and how long one
//      `macs hosts --json` takes then;
//   2. the round trip of a request answered at once by a controller on the
//      hub's MCP server (`macs mcp`: list_requests, answer_request, in a
//      loop), for the host's worker and the hub's own worker in the same run
//      and the same loop: printed -> typed back in, medians and the
//      difference;
//   3. the hub's idle cost with the hosts connected: CPU of its long-lived
//      processes (its bridge, which holds a link to each host, its status
//      view as a person attached sees it, and the controller's `macs mcp`,
//      each holding its own link to each host, with their ssh children)
//      over two windows where nothing happens: the first minute after the
//      view started, and settled (settleSec after it), as for a session.
// The start is `--detach`, as a controller's set-up runs it: no person is
// attached, so no status view runs on the hub or the hosts during 1.
// Everything started is stopped; the servers listen on 127.0.0.x only.
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  MACS,
  WORKER,
  cpuWindow,
  env,
  firstSubmits,
  now,
  readdirSafe,
  round,
  sleep,
  stats,
  tempHome,
} from './lib.mjs';
import { HOST_HOME, hostPath, startTestHosts } from './ssh-hosts.mjs';

const SUPERVISED_GOAL_MS = 5_000;
/** Node's flags for long-lived processes, as src/session/self-command.ts. */
const LONG_LIVED_NODE_FLAGS = ['--no-memory-reducer'];
const ROUND_TRIP_GOAL_MS = 30;
const IDLE_GOAL_PERCENT = 1;

/**
 * The answer path of one agent, from its events file (`.macs/events/<agent>.jsonl`
 * on its own machine): the `answer_request` tool's own time there (data.ms),
 * its end -> request.delivering (the bridge took the answer), and
 * request.delivering -> request.delivered (typed in).
 */
function answerPathSplit(eventsFile) {
  const byRequest = new Map();
  let text = '';
  try {
    text = readFileSync(eventsFile, 'utf8');
  } catch {
    // no events: empty figures
  }
  for (const line of text.split('\n')) {
    let e;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (!e.requestId) continue;
    const r = byRequest.get(e.requestId) ?? {};
    const at = Date.parse(e.ts);
    if (e.type === 'mcp.call' && e.data?.tool === 'answer_request' && e.data.ok)
      Object.assign(r, { answered: at, toolMs: e.data.ms });
    else if (e.type === 'request.delivering' && r.delivering === undefined)
      r.delivering = at;
    else if (e.type === 'request.delivered' && r.delivered === undefined)
      r.delivered = at;
    byRequest.set(e.requestId, r);
  }
  const done = [...byRequest.values()].filter(
    (r) => r.answered !== undefined && r.delivered !== undefined,
  );
  return {
    toolMs: stats(done.map((r) => r.toolMs)),
    toDeliveringMs: stats(done.map((r) => r.delivering - r.answered)),
    typingMs: stats(done.map((r) => r.delivered - r.delivering)),
  };
}

/** Run the hub's macs; resolves with its exit code and output. */
function hubMacs(hubEnv, args, timeoutMs = 120_000) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MACS, ...args], {
      env: hubEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const benchWorker = (prefix, record, startFile, count) => [
  process.execPath,
  WORKER,
  '--count',
  String(count),
  '--record',
  record,
  '--start-file',
  startFile,
  '--prefix',
  prefix,
  '--no-floor',
  '--gap-ms',
  '150',
];

/** The live macs processes of the hub home (by argument or MACS_HOME). */
function hubProcesses(hub) {
  const found = [];
  for (const name of readdirSafe('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (!args.includes(MACS)) continue;
      const environ = readFileSync(`/proc/${name}/environ`, 'latin1');
      if (
        args.includes(hub) ||
        environ.split('\0').includes(`MACS_HOME=${hub}`)
      )
        found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  // A process under another one found (a `sh -c` running macs) is counted
  // in that one's tree already.
  const parent = (pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return 0;
    }
  };
  const under = (pid) => {
    for (let p = parent(pid); p > 1; p = parent(p))
      if (found.includes(p)) return true;
    return false;
  };
  return found.filter((pid) => !under(pid));
}

export async function benchRemote({
  hosts: hostCount = 3,
  agents = 32,
  requests = 20,
  idleSec = 30,
  settleSec = 65,
}) {
  const names = Array.from({ length: hostCount }, (_, i) => `h${i + 1}`);
  const { home: hub, remove } = tempHome('hub');
  const socket = `macs-bench-hub-${process.pid}`;
  const hubEnv = env({ MACS_HOME: hub, MACS_TMUX_SOCKET: socket });
  let testHosts;
  let client;
  try {
    testHosts = await startTestHosts(names);
    hubEnv.MACS_SSH_CONFIG = testHosts.sshConfig;
    const [first] = testHosts.hosts;

    // Each host: AGENTS agents, the first of h1 a bench worker, the rest sh.
    for (const host of testHosts.hosts) {
      const workers = Array.from({ length: agents }, (_, i) => ({
        name: `a${i + 1}`,
        preset: 'generic',
        prompt: false,
        command: ['sh'],
      }));
      if (host === first)
        workers[0].command = benchWorker(
          'r',
          `${HOST_HOME}/r.record.jsonl`,
          `${HOST_HOME}/go`,
          requests,
        );
      const dir = hostPath(host, HOST_HOME);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(
        path.join(dir, 'macs.config.json'),
        JSON.stringify({ workers }),
      );
    }
    const localRecord = path.join(hub, 'l.record.jsonl');
    const localGo = path.join(hub, 'go');
    writeFileSync(
      path.join(hub, 'macs.config.json'),
      JSON.stringify({
        workers: [
          {
            name: 'local',
            preset: 'generic',
            prompt: false,
            command: benchWorker('l', localRecord, localGo, requests),
          },
        ],
        hosts: Object.fromEntries(
          testHosts.hosts.map((h) => [h.name, { ssh: h.ssh, home: HOST_HOME }]),
        ),
      }),
    );

    // 1. `macs start` until every host agent is supervised: listed by
    // list_agents of a `macs mcp` at the hub (one long-running process
    // holding a live link to each host, as a controller does) with its
    // host's bridge running and its pane. The probe starts with `macs start`
    // and asks again every 250 ms until every agent is there; its link
    // set-up is in the time. Each ask reads all the hosts' agents (about
    // 70 ms of CPU on this one machine, which plays the hub and every
    // host): asked every 100 ms, the probe itself took a third of a core
    // from the start it measures. (A `macs hosts --json` per poll opened ssh
    // sessions to every host each time and took seconds a call: timed once
    // below.)
    const want = hostCount * agents;
    const t0 = now();
    const starting = hubMacs(hubEnv, ['start', '--detach']).then((r) => ({
      ...r,
      ms: round(now() - t0, 0),
    }));
    client = new Client({ name: 'macs-bench-probe', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MACS, 'mcp'],
        env: hubEnv,
        stderr: 'ignore',
      }),
    );
    let supervisedMs = null;
    let seen = 0;
    let polls = 0;
    while (now() - t0 < 120_000) {
      const listed = await client.callTool({
        name: 'list_agents',
        arguments: {},
      });
      polls += 1;
      seen = (listed.structuredContent?.agents ?? []).filter(
        (a) => a.host && a.bridgeRunning && a.pane,
      ).length;
      if (seen >= want) {
        supervisedMs = round(now() - t0, 0);
        break;
      }
      await sleep(250);
    }
    const start = await starting;
    const startReturnedMs = start.ms;
    if (start.code !== 0)
      throw new Error(
        `bench remote: macs start failed: ${start.stderr}${start.stdout}`,
      );
    if (supervisedMs === null)
      throw new Error(
        `bench remote: ${seen} of ${want} host agents supervised after 120 s`,
      );
    await client.close();
    client = undefined;
    const h0 = now();
    await hubMacs(hubEnv, ['hosts', '--json'], 30_000);
    const hostsJsonMs = round(now() - h0, 0);

    // 2. The round trip, host and hub, answered by the same loop.
    client = new Client({ name: 'macs-bench', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MACS, 'mcp'],
        env: hubEnv,
        stderr: 'ignore',
      }),
    );
    const printedAt = new Map(); // `${prefix}-${n}` -> printed at
    const seenAt = new Map(); // … -> first listed at the hub
    const answerAt = new Map(); // … -> answer_request called
    const answered = new Set();
    writeFileSync(hostPath(first, `${HOST_HOME}/go`), 'go');
    writeFileSync(localGo, 'go');
    const remoteRecord = hostPath(first, `${HOST_HOME}/r.record.jsonl`);
    const done = () =>
      firstSubmits(remoteRecord).size >= requests &&
      firstSubmits(localRecord).size >= requests;
    const deadline = now() + 60_000 + requests * 5_000;
    let listCalls = 0;
    const loopStarted = now();
    while (!done()) {
      if (now() > deadline)
        throw new Error('bench remote: timed out waiting for the answers');
      const listed = await client.callTool({
        name: 'list_requests',
        arguments: {},
      });
      listCalls += 1;
      for (const r of listed.structuredContent?.requests ?? []) {
        if (!r.waitingForAnswer || answered.has(r.id)) continue;
        const m = /bench request (\d+) t=([\d.]+)/.exec(r.firstLine ?? '');
        if (!m) continue;
        answered.add(r.id);
        const key = `${r.id.includes('/') ? 'r' : 'l'}-${m[1]}`;
        printedAt.set(key, Number(m[2]));
        seenAt.set(key, now());
        answerAt.set(key, now());
        const reply = await client.callTool({
          name: 'answer_request',
          arguments: { id: r.id, instructions: 'ok' },
        });
        if (reply.isError)
          throw new Error(
            `bench remote: answer to ${r.id} refused: ${JSON.stringify(reply.content)}`,
          );
      }
    }
    const loopMs = now() - loopStarted;
    const since = (record, from) =>
      stats(
        [...firstSubmits(record)].flatMap(([id, t]) =>
          from.has(id) ? [t - from.get(id)] : [],
        ),
      );
    const remoteTrip = since(remoteRecord, printedAt);
    const localTrip = since(localRecord, printedAt);
    // The part after the hub decided: answer_request called -> typed in.
    const remoteAnswer = since(remoteRecord, answerAt);
    const localAnswer = since(localRecord, answerAt);
    const listedAfter = (prefix) =>
      stats(
        [...seenAt].flatMap(([id, t]) =>
          id.startsWith(`${prefix}-`) ? [t - printedAt.get(id)] : [],
        ),
      );

    // 3. The hub at rest with the hosts connected.
    await client.close();
    client = undefined;
    const controller = new Client({ name: 'macs-bench-idle', version: '0' });
    client = controller;
    await controller.connect(
      new StdioClientTransport({
        command: process.execPath,
        // As `macs start` wires a controller's MCP server, with Node's
        // flags for long-lived processes (LONG_LIVED_NODE_FLAGS in
        // src/session/self-command.ts).
        args: [...LONG_LIVED_NODE_FLAGS, MACS, 'mcp'],
        env: hubEnv,
        stderr: 'ignore',
      }),
    );
    await controller.callTool({ name: 'list_agents', arguments: {} });
    // The session's status view starts when a person attaches (its window
    // waits until then): started here as an attach does, so that the idle
    // figure holds a view a person watches, with its own link to each host.
    execFileSync('tmux', ['-L', socket, 'wait-for', '-S', 'macs-status'], {
      env: hubEnv,
    });
    const viewStarted = Date.now();
    await sleep(3_000); // the links open, the first reads settle
    // Every long-lived macs process of the hub: the session's (its bridge,
    // its status view) and the controller's `macs mcp`, each with its ssh
    // children (one link per host).
    const watched = {};
    for (const pid of hubProcesses(hub)) {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      // No command: the session's status view.
      const command = args[args.indexOf(MACS) + 1] || 'view';
      watched[`${command}-${pid}`] = { pid, tree: true };
    }
    // Two windows, as for a session (session-idle.mjs): the first minute
    // (the view and `macs mcp` just started: their code still compiles and
    // the garbage of their start is collected), then settled.
    const measure = async () => {
      const window = cpuWindow(watched);
      await sleep(idleSec * 1000);
      const idle = window();
      const processes = Object.keys(watched).map((name) => ({
        name,
        ...idle[name],
      }));
      const hubPercent = round(
        processes.reduce((sum, p) => sum + p.cpuPercent, 0),
        3,
      );
      return { seconds: idle.seconds, processes, hubPercent };
    };
    const firstMinute = await measure();
    await sleep(Math.max(0, viewStarted + settleSec * 1000 - Date.now()));
    const settled = await measure();

    return {
      hosts: hostCount,
      agentsPerHost: agents,
      startReturnedMs,
      supervisedMs,
      supervisedGoalMs: SUPERVISED_GOAL_MS,
      supervisedPolls: polls,
      hostsJsonMs,
      requests,
      roundTripMs: { remote: remoteTrip, local: localTrip },
      remoteOverLocalP50Ms: round(remoteTrip.p50 - localTrip.p50),
      remoteOverLocalP50: round(remoteTrip.p50 / localTrip.p50),
      seenAtHubMs: { remote: listedAfter('r'), local: listedAfter('l') },
      answerToTypedMs: { remote: remoteAnswer, local: localAnswer },
      answerRemoteOverLocalP50Ms: round(remoteAnswer.p50 - localAnswer.p50),
      answerPathSplit: {
        remote: answerPathSplit(
          hostPath(first, `${HOST_HOME}/.macs/events/a1.jsonl`),
        ),
        local: answerPathSplit(
          path.join(hub, '.macs', 'events', 'local.jsonl'),
        ),
      },
      roundTripGoalMs: ROUND_TRIP_GOAL_MS,
      listRequestsCalls: listCalls,
      listRequestsMeanMs: round(loopMs / listCalls, 1),
      idle: {
        ...settled,
        settleSec,
        firstMinute,
        goalPercent: IDLE_GOAL_PERCENT,
      },
    };
  } finally {
    if (client) await client.close().catch(() => {});
    await hubMacs(hubEnv, ['stop'], 60_000);
    try {
      execFileSync('tmux', ['-L', socket, 'kill-server'], {
        stdio: 'ignore',
        env: env(),
      });
    } catch {
      /* gone */
    }
    // tmux leaves its socket file behind.
    const tmuxDir = process.env.TMUX_TMPDIR || '/tmp';
    rmSync(path.join(tmuxDir, `tmux-${process.getuid?.() ?? 0}`, socket), {
      force: true,
    });
    await testHosts?.stop();
    remove();
  }
}
