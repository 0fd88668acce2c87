// Idle CPU of the status view: eight agents, nothing happening. Starts
// `macs status` in a pane of a private tmux server (so it has a terminal),
// lets it settle, then reads its CPU time from /proc over a window.
// Usage: node scripts/status-idle.mjs [--agents 8] [--seconds 30] [--json]
// Prints the share of one CPU used, e.g. `status view idle CPU: 0.31% ...`.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MACS = path.join(ROOT, 'dist', 'main.js');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const AGENTS = opt('--agents', 8);
const SECONDS = opt('--seconds', 30);
const SETTLE_MS = 3000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const hz = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
  return ticks / hz;
}

function writeHome(home) {
  const dirs = ['state', 'events', 'panes'].map((d) =>
    path.join(home, '.macs', d),
  );
  for (const dir of dirs) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = Date.now();
  for (let n = 1; n <= AGENTS; n += 1) {
    const agent = `worker-${n}`;
    const iso = (ago) => new Date(now - ago).toISOString();
    const state = {
      version: 1,
      agent,
      pane: `%${n}`,
      preset: n % 2 ? 'claude' : 'codex',
      state: 'idle',
      stateSource: 'screen',
      stateSince: iso(60_000 * n),
      logOffset: 0,
      requests: {},
      recent: [
        {
          id: `${agent}-q1`,
          type: 'question',
          stage: 'delivered',
          detectedAt: iso(120_000),
          deliveredAt: iso(110_000),
          firstLine: 'Which way?',
          instructions: 'This way.',
        },
      ],
      dedup: { ids: {}, hashes: {} },
      counters: { detected: 1, delivered: 1, duplicates: 0, malformed: 0 },
      paused: false,
      updatedAt: iso(1000),
    };
    writeFileSync(path.join(dirs[0], `${agent}.json`), JSON.stringify(state));
    const events = Array.from({ length: 200 }, (_, i) =>
      JSON.stringify({
        ts: iso(200_000 - i * 1000),
        agent,
        type: 'state.changed',
        data: { from: 'working', to: 'idle', source: 'screen' },
      }),
    );
    writeFileSync(
      path.join(dirs[1], `${agent}.jsonl`),
      `${events.join('\n')}\n`,
    );
  }
}

const home = mkdtempSync(path.join(os.tmpdir(), 'macs-status-idle-'));
const socket = `macs-bench-${randomBytes(4).toString('hex')}`;
const tmux = (...a) =>
  execFileSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' }).trim();
try {
  writeHome(home);
  tmux(
    '-f',
    '/dev/null',
    'new-session',
    '-d',
    '-s',
    'bench',
    '-x',
    '120',
    '-y',
    '40',
  );
  const pane = tmux(
    'new-window',
    '-d',
    '-P',
    '-F',
    '#{pane_id}',
    '-e',
    `MACS_HOME=${home}`,
    '-e',
    `MACS_TMUX_SOCKET=${socket}`,
    `'${process.execPath}' '${MACS}' status`,
  );
  const pid = Number(tmux('display-message', '-p', '-t', pane, '#{pane_pid}'));
  await sleep(SETTLE_MS);
  const screen = tmux('capture-pane', '-p', '-t', pane);
  if (!screen.includes(`AGENTS (${AGENTS})`))
    throw new Error(`the view did not come up:\n${screen}`);
  const before = cpuSeconds(pid);
  const started = Date.now();
  await sleep(SECONDS * 1000);
  const used = cpuSeconds(pid) - before;
  const elapsed = (Date.now() - started) / 1000;
  const percent = (100 * used) / elapsed;
  const result = {
    agents: AGENTS,
    seconds: elapsed,
    cpuSeconds: used,
    cpuPercent: percent,
  };
  if (args.includes('--json'))
    process.stdout.write(`${JSON.stringify(result)}\n`);
  else
    process.stdout.write(
      `status view idle CPU: ${percent.toFixed(2)}% of one core (${used.toFixed(2)} s over ${elapsed.toFixed(0)} s, ${AGENTS} agents)\n`,
    );
} finally {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
  rmSync(home, { recursive: true, force: true });
}
