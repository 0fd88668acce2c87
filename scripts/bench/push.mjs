// A host's request pushed to the hub's doors (issue 31, docs/remote.md "How
// changes travel"), on one test host (ssh-hosts.mjs; needs root). A bench
// worker on h1 and one at the hub each print REQUESTS requests, one after
// another; `macs web` at the hub serves its page (a WebSocket client reads
// the fleet it pushes, as the page does) and a controller waits on the
// hub's `macs mcp` (wait_for_request). Measured per request, from its
// detection (request.detected in its own machine's events; one machine, one
// clock) to (a) the first fleet message with it on the page's socket and
// (b) wait_for_request returning it; the hub's own worker is the baseline
// of the same run. Each request is answered once both saw it.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import WebSocket from 'ws';
import {
  MACS,
  WORKER,
  env,
  now,
  round,
  sleep,
  stats,
  tempHome,
} from './lib.mjs';
import { HOST_HOME, hostPath, startTestHosts } from './ssh-hosts.mjs';

const GOAL_MS = 300;

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

function run(hubEnv, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MACS, ...args], {
      env: hubEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/** request id -> detection time (ms), from an events file. */
function detections(file) {
  const found = new Map();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return found;
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const e = JSON.parse(line);
      if (e.type === 'request.detected' && e.requestId)
        found.set(e.requestId, Date.parse(e.ts));
    } catch {
      // a line being written
    }
  }
  return found;
}

export async function benchPush({ requests = 10 }) {
  const { home: hub, remove } = tempHome('push');
  const hubEnv = env({
    MACS_HOME: hub,
    MACS_TMUX_SOCKET: `macs-bench-push-${process.pid}`,
  });
  let testHosts;
  let web;
  let client;
  let ws;
  try {
    testHosts = await startTestHosts(['h1']);
    hubEnv.MACS_SSH_CONFIG = testHosts.sshConfig;
    const [h1] = testHosts.hosts;
    const hostDir = hostPath(h1, HOST_HOME);
    mkdirSync(hostDir, { recursive: true, mode: 0o700 });
    writeFileSync(
      path.join(hostDir, 'macs.config.json'),
      JSON.stringify({
        workers: [
          {
            name: 'r',
            preset: 'generic',
            prompt: false,
            command: benchWorker(
              'r',
              `${HOST_HOME}/r.record.jsonl`,
              `${HOST_HOME}/go`,
              requests,
            ),
          },
        ],
      }),
    );
    writeFileSync(
      path.join(hub, 'macs.config.json'),
      JSON.stringify({
        workers: [
          {
            name: 'l',
            preset: 'generic',
            prompt: false,
            command: benchWorker(
              'l',
              path.join(hub, 'l.record.jsonl'),
              path.join(hub, 'go'),
              requests,
            ),
          },
        ],
        hosts: { h1: { ssh: h1.ssh, home: HOST_HOME } },
      }),
    );
    const started = await run(hubEnv, ['start', '--detach']);
    if (started.code !== 0) throw new Error(`macs start: ${started.out}`);

    // macs web, and a socket as the page opens it.
    web = spawn(process.execPath, [MACS, 'web', '--listen', '127.0.0.1:0'], {
      env: hubEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let webOut = '';
    web.stdout.on('data', (d) => (webOut += d));
    let url;
    for (let i = 0; i < 200 && !url; i++) {
      url = /open (http:\/\/\S+)/.exec(webOut)?.[1];
      if (!url) await sleep(100);
    }
    if (!url) throw new Error(`macs web printed no URL: ${webOut}`);
    const { origin, host } = new URL(url);
    const cookie = await new Promise((resolve, reject) =>
      http
        .get(url, (res) => {
          res.resume();
          resolve(String(res.headers['set-cookie']?.[0] ?? '').split(';')[0]);
        })
        .on('error', reject),
    );
    const onPage = new Map();
    ws = new WebSocket(`ws://${host}/ws`, {
      headers: { Cookie: cookie, Origin: origin },
    });
    ws.on('message', (data) => {
      const at = now();
      const message = JSON.parse(String(data));
      if (message.type !== 'fleet') return;
      for (const r of message.fleet.requests)
        if (!onPage.has(r.id)) onPage.set(r.id, at);
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });

    client = new Client({ name: 'macs-bench-push', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MACS, 'mcp'],
        env: hubEnv,
        stderr: 'ignore',
      }),
    );
    // Both workers' panes are up and the host's link is.
    for (let i = 0; i < 600; i++) {
      const listed = await client.callTool({
        name: 'list_agents',
        arguments: {},
      });
      const names = (listed.structuredContent?.agents ?? []).map((a) => a.name);
      if (names.includes('h1/r') && names.includes('l') && onPage.size === 0)
        break;
      await sleep(100);
    }
    await sleep(3_000); // the first reads settle

    const byMcp = new Map();
    const answered = new Set();
    writeFileSync(path.join(hostDir, 'go'), '');
    writeFileSync(path.join(hub, 'go'), '');
    const deadline = now() + 60_000 + requests * 5_000;
    while (answered.size < 2 * requests && now() < deadline) {
      const out = await client.callTool(
        {
          name: 'wait_for_request',
          // A request that came while the last was answered is pending now.
          arguments: {
            timeout_sec: 30,
            include_pending: true,
            exclude: [...answered],
          },
        },
        undefined,
        { timeout: 60_000 },
      );
      const at = now();
      const id = out.structuredContent?.request?.id;
      if (!id) continue;
      if (!byMcp.has(id)) byMcp.set(id, at);
      // Answered once the page has it too (or after 3 s: counted as missing).
      for (let i = 0; i < 150 && !onPage.has(id); i++) await sleep(20);
      await client.callTool({
        name: 'answer_request',
        arguments: { id, instructions: 'ok' },
      });
      answered.add(id);
    }
    const hostDetected = detections(
      path.join(hostDir, '.macs', 'events', 'r.jsonl'),
    );
    const hubDetected = detections(
      path.join(hub, '.macs', 'events', 'l.jsonl'),
    );
    const delays = (seen, detected, prefix) =>
      [...detected]
        .map(([id, at]) => seen.get(`${prefix}${id}`) - at)
        .filter((ms) => Number.isFinite(ms))
        .map((ms) => round(ms, 1));
    const result = {
      requests,
      goalMs: GOAL_MS,
      web: {
        host: stats(delays(onPage, hostDetected, 'h1/')),
        local: stats(delays(onPage, hubDetected, '')),
      },
      mcpWait: {
        host: stats(delays(byMcp, hostDetected, 'h1/')),
        local: stats(delays(byMcp, hubDetected, '')),
      },
    };
    return result;
  } finally {
    ws?.terminate();
    await client?.close().catch(() => undefined);
    web?.kill('SIGINT');
    await run(hubEnv, ['stop']).catch(() => undefined);
    await testHosts?.stop();
    remove();
  }
}
