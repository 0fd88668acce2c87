// npm run bench: performance figures for macs, printed and written to
// bench/results.json. Every figure is a median (p50) or p95 over many samples,
// reported next to a floor or baseline measured in the same run, because the
// machines this runs on are shared and noisy.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MACS = path.join(ROOT, 'dist', 'main.js');
const WORKER = path.join(ROOT, 'scripts', 'bench', 'worker.mjs');
const COUNT = Number(process.env.BENCH_COUNT ?? 100);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function env(extra = {}) {
  const e = { ...process.env, ...extra };
  delete e.TMUX;
  delete e.TMUX_PANE;
  return e;
}

function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(
    sorted.length - 1,
    Math.max(0, Math.ceil((p / 100) * sorted.length) - 1),
  );
  return Number(sorted[i].toFixed(2));
}
const stats = (values) => ({
  n: values.length,
  p50: percentile(values, 50),
  p95: percentile(values, 95),
});

async function waitUntil(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline)
      throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(10);
  }
}

function startServer() {
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
  return {
    socket,
    tmux,
    kill: () => {
      try {
        tmux('kill-server');
      } catch {
        /* gone */
      }
    },
  };
}

function spawnPane(server, argv) {
  const quoted = argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  return server
    .tmux('new-window', '-d', '-P', '-F', '#{pane_id}', quoted)
    .trim();
}

/** Follow a growing file, calling onLine for each complete line. */
function followLines(file, onLine) {
  let offset = 0;
  let rest = '';
  const read = () => {
    if (!existsSync(file)) return;
    const size = statSync(file).size;
    if (size <= offset) return;
    const fd = openSync(file, 'r');
    const buf = Buffer.alloc(size - offset);
    readSync(fd, buf, 0, buf.length, offset);
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

/** macs: detection latency, its floor, and the round trip with an instant answerer. */
async function benchMacs() {
  const home = mkdtempSync(path.join(os.tmpdir(), 'macs-bench-'));
  const server = startServer();
  const record = path.join(home, 'record.jsonl');
  const startFile = path.join(home, 'start');
  let bridge;
  try {
    const pane = spawnPane(server, [
      process.execPath,
      WORKER,
      '--count',
      String(COUNT),
      '--record',
      record,
      '--start-file',
      startFile,
      '--prefix',
      'm',
    ]);
    bridge = spawn(
      process.execPath,
      [
        MACS,
        'bridge',
        '--worker-pane',
        pane,
        '--agent',
        'bench',
        '--quiet',
        '--log-level',
        'silent',
      ],
      {
        env: env({ MACS_HOME: home, MACS_TMUX_SOCKET: server.socket }),
        stdio: 'ignore',
      },
    );
    const log = path.join(home, '.macs', 'panes', 'bench.log');
    const inbox = path.join(home, 'inbox');
    const outbox = path.join(home, 'outbox');
    await waitUntil(
      () =>
        existsSync(path.join(home, '.macs', 'state', 'bench.json')) &&
        existsSync(outbox),
      15_000,
      'the bridge to start',
    );

    const printedAt = new Map();
    const floor = [];
    const detection = [];
    const stopFloor = followLines(log, (line) => {
      const m = /FLOOR (\S+) t=([\d.]+)/.exec(line);
      if (m) floor.push(now() - Number(m[2]));
    });
    const seen = new Set();
    const scanInbox = () => {
      for (const name of readdirSafe(inbox)) {
        if (!name.endsWith('.txt') || seen.has(name)) continue;
        const t = now();
        const body = readFileSync(path.join(inbox, name), 'utf8');
        const m = /t=([\d.]+)/.exec(body);
        if (!m) continue;
        seen.add(name);
        detection.push(t - Number(m[1]));
        printedAt.set(name.replace(/\.txt$/, ''), Number(m[1]));
        // The instant answerer: write then rename, as a program should.
        const id = name.replace(/\.txt$/, '');
        const temp = path.join(outbox, `.${id}.tmp`);
        writeFileSync(temp, 'ok');
        renameSync(temp, path.join(outbox, `${id}.txt`));
      }
    };
    const inboxWatcher = watch(inbox, () => scanInbox());
    const inboxTimer = setInterval(scanInbox, 5);
    writeFileSync(startFile, 'go');
    await waitUntil(
      () => readRecord(record).length >= COUNT,
      180_000,
      'all submissions',
    );
    inboxWatcher.close();
    clearInterval(inboxTimer);
    stopFloor();
    const submits = readRecord(record).map((r) => r.t);
    const printed = [...printedAt.entries()]
      .sort((a, b) => a[1] - b[1])
      .map(([, t]) => t);
    const roundTrip = submits
      .slice(0, printed.length)
      .map((t, i) => t - printed[i]);
    return {
      floor: stats(floor),
      detection: stats(detection),
      roundTrip: stats(roundTrip),
    };
  } finally {
    bridge?.kill('SIGKILL');
    server.kill();
    rmSync(home, { recursive: true, force: true });
  }
}

/** The common approach in this field: poll capture-pane every 500 ms and regex the text. */
async function benchBaseline() {
  const home = mkdtempSync(path.join(os.tmpdir(), 'macs-bench-base-'));
  const server = startServer();
  const startFile = path.join(home, 'start');
  try {
    const pane = spawnPane(server, [
      process.execPath,
      WORKER,
      '--count',
      String(COUNT),
      '--no-wait',
      '--gap-ms',
      '30',
      '--start-file',
      startFile,
      '--prefix',
      'p',
    ]);
    server.tmux('set-option', '-g', 'history-limit', '50000');
    const found = new Map();
    writeFileSync(startFile, 'go');
    const deadline = Date.now() + 120_000;
    while (found.size < COUNT && Date.now() < deadline) {
      await sleep(500);
      const t = now();
      const screen = server.tmux(
        'capture-pane',
        '-p',
        '-J',
        '-S',
        '-',
        '-t',
        pane,
      );
      const re =
        /<<CONTROLLER_REQUEST id=(\S+)>>\nbench request \d+ t=([\d.]+)\n<<CONTROLLER_REQUEST_END>>/g;
      for (const m of screen.matchAll(re))
        if (!found.has(m[1])) found.set(m[1], t - Number(m[2]));
    }
    return { detection: stats([...found.values()]) };
  } finally {
    server.kill();
    rmSync(home, { recursive: true, force: true });
  }
}

function readdirSafe(dir) {
  try {
    return execFileSync('ls', ['-1', dir], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

function readRecord(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const machine = {
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
  node: process.version,
  tmux: execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim(),
  platform: `${os.platform()} ${os.release()}`,
};

console.log(
  `macs bench: ${COUNT} requests per scenario on ${machine.cpus} cores (${machine.cpuModel}), ${machine.tmux}, node ${machine.node}`,
);
const macs = await benchMacs();
const baseline = await benchBaseline();
const SUBMIT_DELAY_MS = 200; // the generic preset's submit delay
const results = {
  date: new Date().toISOString(),
  machine,
  requests: COUNT,
  floorMs: macs.floor,
  detectionMs: macs.detection,
  detectionOverFloorP50Ms: Number(
    (macs.detection.p50 - macs.floor.p50).toFixed(2),
  ),
  roundTripMs: macs.roundTrip,
  submitDelayMs: SUBMIT_DELAY_MS,
  roundTripLessSubmitDelayP50Ms: Number(
    (macs.roundTrip.p50 - SUBMIT_DELAY_MS).toFixed(2),
  ),
  baselineCapturePolling500ms: baseline,
  baselineOverMacsDetectionP50: Number(
    (baseline.detection.p50 / macs.detection.p50).toFixed(1),
  ),
};
const row = (name, s, note = '') =>
  console.log(
    `${name.padEnd(42)} p50 ${String(s.p50).padStart(8)} ms   p95 ${String(s.p95).padStart(8)} ms   n=${s.n}${note}`,
  );
row('floor: line printed -> in pipe-pane log', macs.floor);
row(
  'detection: block printed -> inbox file',
  macs.detection,
  `   (+${results.detectionOverFloorP50Ms} ms over floor)`,
);
row(
  'round trip: printed -> submitted (instant)',
  macs.roundTrip,
  `   (${results.roundTripLessSubmitDelayP50Ms} ms + ${SUBMIT_DELAY_MS} ms submit delay)`,
);
row(
  'baseline: capture-pane every 500 ms',
  baseline.detection,
  `   (${results.baselineOverMacsDetectionP50}x macs detection p50)`,
);
// Screen reading (throughput and memory) runs as its own script; its figures
// are merged into the same results file.
execFileSync(
  process.execPath,
  [path.join(ROOT, 'scripts', 'bench-screen.mjs')],
  {
    stdio: 'inherit',
  },
);
results.screen = JSON.parse(
  readFileSync(path.join(ROOT, 'bench', 'screen.json'), 'utf8'),
);
mkdirSync(path.join(ROOT, 'bench'), { recursive: true });
writeFileSync(
  path.join(ROOT, 'bench', 'results.json'),
  `${JSON.stringify(results, null, 2)}\n`,
);
console.log('written: bench/results.json');
