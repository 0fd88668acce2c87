// Shared helpers of the bench scenarios (scripts/bench.mjs runs them): a
// private tmux server per scenario, panes, the bridge, followed files,
// percentiles, and CPU and memory read from /proc.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  closeSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
);
export const MACS = path.join(ROOT, 'dist', 'main.js');
export const WORKER = path.join(ROOT, 'scripts', 'bench', 'worker.mjs');
export const POLLER = path.join(ROOT, 'scripts', 'bench', 'poller.mjs');

/** Wall-clock milliseconds with sub-millisecond precision (shared with the worker). */
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const round = (value, digits = 2) =>
  value === null || value === undefined ? null : Number(value.toFixed(digits));

/** The environment of a child: never the tmux session the bench runs in. */
export function env(extra = {}) {
  const e = { ...process.env, ...extra };
  delete e.TMUX;
  delete e.TMUX_PANE;
  return e;
}

export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(
    sorted.length - 1,
    Math.max(0, Math.ceil((p / 100) * sorted.length) - 1),
  );
  return round(sorted[i]);
}

export const stats = (values) => ({
  n: values.length,
  p50: percentile(values, 50),
  p95: percentile(values, 95),
});

export async function waitUntil(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline)
      throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** What an interrupted bench must still undo: tmux servers and temp homes. */
const cleanups = new Set();
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => {
    for (const cleanup of cleanups) cleanup();
    process.exit(130);
  });

/** A private tmux server (`tmux -L macs-bench-<random> -f /dev/null`). */
export function startServer() {
  const socket = `macs-bench-${randomBytes(4).toString('hex')}`;
  const tmux = (...args) =>
    execFileSync('tmux', ['-L', socket, ...args], {
      env: env(),
      encoding: 'utf8',
    });
  execFileSync(
    'tmux',
    [
      '-L',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'bench',
      '-x',
      '200',
      '-y',
      '50',
    ],
    { env: env() },
  );
  const kill = () => {
    cleanups.delete(kill);
    try {
      tmux('kill-server');
    } catch {
      /* gone */
    }
    // tmux leaves its socket file behind.
    const dir = process.env.TMUX_TMPDIR || '/tmp';
    const uid = process.getuid?.() ?? 0;
    rmSync(path.join(dir, `tmux-${uid}`, socket), { force: true });
  };
  cleanups.add(kill);
  return {
    socket,
    tmux,
    pid: () => Number(tmux('display-message', '-p', '#{pid}').trim()),
    kill,
  };
}

/** A new window running argv (no shell in between); returns its pane id. */
export function spawnPane(server, argv) {
  const quoted = argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  return server
    .tmux('new-window', '-d', '-P', '-F', '#{pane_id}', quoted)
    .trim();
}

/** A pane running the bench worker (worker.mjs) with `args`. */
export function spawnWorker(server, args) {
  return spawnPane(server, [process.execPath, WORKER, ...args]);
}

/**
 * Write a macs.config.json naming `workers` ({ name, preset, pane }), start
 * one `macs bridge --all` over them, and wait until it supervises them all.
 */
export async function startBridgeAll(home, server, workers) {
  writeFileSync(
    path.join(home, 'macs.config.json'),
    JSON.stringify({ workers }, null, 2),
  );
  const bridge = startBridge(home, server, ['--all']);
  const stateDir = path.join(home, '.macs', 'state');
  await waitUntil(
    () =>
      existsSync(path.join(home, 'outbox')) &&
      workers.every((w) => existsSync(path.join(stateDir, `${w.name}.json`))),
    60_000,
    `the bridge to supervise ${workers.length} agents`,
  );
  return bridge;
}

/** A temporary home, removed by the returned function. */
export function tempHome(name) {
  const home = mkdtempSync(path.join(os.tmpdir(), `macs-bench-${name}-`));
  const remove = () => {
    cleanups.delete(remove);
    rmSync(home, { recursive: true, force: true });
  };
  cleanups.add(remove);
  return { home, remove };
}

/** A child process of the bench, killed if the bench is interrupted. */
export function track(child) {
  const kill = () => child.kill('SIGKILL');
  cleanups.add(kill);
  child.once('exit', () => cleanups.delete(kill));
  return child;
}

/** Start `macs bridge` with args on the server, in home; events off. */
export function startBridge(home, server, args) {
  return track(
    spawn(
      process.execPath,
      [MACS, 'bridge', ...args, '--quiet', '--log-level', 'silent'],
      {
        env: env({ MACS_HOME: home, MACS_TMUX_SOCKET: server.socket }),
        stdio: 'ignore',
      },
    ),
  );
}

/** Ends a child the bench started, and waits for it to be gone. */
export async function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await Promise.race([gone, sleep(2000)]);
}

/** Follow a growing file, calling onLine for each complete line. */
export function followLines(file, onLine) {
  let offset = 0;
  let rest = '';
  const read = () => {
    if (!existsSync(file)) return;
    const size = statSync(file).size;
    if (size <= offset) return;
    const fd = openSync(file, 'r');
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
    closeSync(fd);
    offset = size;
    const text = rest + buf.toString('utf8');
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
  const watcher = watch(path.dirname(file), () => read());
  const timer = setInterval(read, 5);
  return () => {
    watcher.close();
    clearInterval(timer);
  };
}

/**
 * Call onFile(name, text, seenAt) once for each new `*.txt` in dir, as soon
 * as it appears (a watcher, and a 5 ms poll as a backstop). onFile returns
 * false to be called again later (the file is not complete yet).
 */
export function watchInbox(dir, onFile) {
  const seen = new Set();
  const scan = () => {
    for (const name of readdirSafe(dir)) {
      if (!name.endsWith('.txt') || seen.has(name)) continue;
      const t = now();
      let text;
      try {
        text = readFileSync(path.join(dir, name), 'utf8');
      } catch {
        continue;
      }
      if (onFile(name, text, t) !== false) seen.add(name);
    }
  };
  const watcher = watch(dir, () => scan());
  const timer = setInterval(scan, 5);
  return {
    seen: () => seen.size,
    stop: () => {
      watcher.close();
      clearInterval(timer);
    },
  };
}

export function readdirSafe(dir) {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The worker's record file: one JSON object a line. */
export function readRecord(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Request id -> when its answer was first submitted in the worker. */
export function firstSubmits(record) {
  const first = new Map();
  for (const r of readRecord(record))
    if (r.type === 'submit' && !first.has(r.request)) first.set(r.request, r.t);
  return first;
}

const HZ = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** utime, stime, cutime, cstime (seconds) and the parent of a process; undefined when gone. */
function procStat(pid) {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    ppid: Number(f[1]),
    self: (Number(f[11]) + Number(f[12])) / HZ,
    waited: (Number(f[13]) + Number(f[14])) / HZ,
  };
}

/** The live descendants of a process (children, their children...). */
function descendants(pid) {
  const parent = new Map();
  for (const name of readdirSafe('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(name);
    if (stat) parent.set(Number(name), stat.ppid);
  }
  const found = [];
  let level = [pid];
  while (level.length > 0) {
    const next = [];
    for (const [child, ppid] of parent)
      if (level.includes(ppid)) next.push(child);
    found.push(...next);
    level = next;
  }
  return found;
}

/**
 * CPU seconds of a process from /proc: its own (utime + stime), and its
 * children's: those it has waited for (cutime + cstime: the tmux clients
 * and other commands it ran) and, with `tree`, those still running (a
 * long-lived tmux control-mode client).
 */
export function cpuSeconds(pid, { tree = false } = {}) {
  const root = procStat(pid);
  if (!root) throw new Error(`bench: process ${pid} is gone`);
  let children = root.waited;
  if (tree)
    for (const child of descendants(pid)) {
      const stat = procStat(child);
      if (stat) children += stat.self + stat.waited;
    }
  return { self: root.self, children, total: root.self + children };
}

/** Resident memory of a process in MB: now (VmRSS) and its peak (VmHWM). */
export function memoryMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return {
    rssMb: round(kb('VmRSS') / 1024, 1),
    hwmMb: round(kb('VmHWM') / 1024, 1),
  };
}

/**
 * Watch the CPU of some processes over a window: `{ name: pid }`, or
 * `{ name: { pid, tree: true } }` to count running children too. Call the
 * returned function at the end: each one's CPU as % of one core.
 */
export function cpuWindow(processes) {
  const started = now();
  const watched = Object.entries(processes).map(([name, p]) => {
    const { pid, tree } = typeof p === 'number' ? { pid: p, tree: false } : p;
    return { name, pid, tree, before: cpuSeconds(pid, { tree }) };
  });
  return () => {
    const seconds = (now() - started) / 1000;
    const out = { seconds: round(seconds, 1) };
    for (const { name, pid, tree, before } of watched) {
      const after = cpuSeconds(pid, { tree });
      const pct = (field) =>
        round((100 * (after[field] - before[field])) / seconds, 3);
      out[name] = {
        cpuSeconds: round(after.total - before.total, 2),
        cpuPercent: pct('total'),
        selfPercent: pct('self'),
        childrenPercent: pct('children'),
      };
    }
    return out;
  };
}
