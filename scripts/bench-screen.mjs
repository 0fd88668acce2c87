// Screen-reading figures (issue "Read panes as a person sees them"):
// throughput of escape-heavy TUI output through the terminal emulator,
// decoration removal and the request parser (src/screen/reader.ts) on one
// core, and the memory of one agent's reader with 10,000 lines of
// scrollback. Runs on the build (npm run build first); prints and writes
// bench/screen.json. The streams are generated here, so the run needs
// nothing but Node.
import { Buffer } from 'node:buffer';
import console from 'node:console';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { createScreenReader } = await import(
  path.join(ROOT, 'dist', 'screen', 'reader.js')
);
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const MB = 1e6;
const SIZE = Number(process.env.BENCH_SCREEN_MB ?? 20) * MB;
const COLS = 120;
const ROWS = 40;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

const request = (n) => [
  `\x1b[1;36m●\x1b[0m <<CONTROLLER_REQUEST id=b${n} type=question>>`,
  `  Should I continue with step ${n} of the migration plan, or stop here?`,
  '  <<CONTROLLER_REQUEST_END>>',
];

const styled = (n) =>
  `  \x1b[38;5;${n % 230}m${n}\x1b[0m \x1b[1mconst\x1b[22m value = \x1b[32m'text ${n}'\x1b[39m; \x1b[2m// a comment\x1b[22m \x1b[3mitalic\x1b[23m`;

/**
 * A full-screen agent on the alternate screen: every frame repaints every
 * row with cursor positioning and colours (synchronized output), and the
 * transcript it shows grows; every 40th message is a request.
 */
function fullScreenFrames(bytes) {
  const lines = [];
  let out = '\x1b[?1049h';
  for (let n = 0; out.length < bytes; n += 1) {
    if (n % 40 === 39) lines.push(...request(n));
    else lines.push(styled(n));
    const shown = lines.slice(-(ROWS - 4));
    let frame = '\x1b[?2026h';
    shown.forEach((line, i) => {
      frame += `\x1b[${i + 1};1H${line}\x1b[K`;
    });
    frame +=
      `\x1b[${ROWS - 3};1H\x1b[33m${SPINNER[n % SPINNER.length]}\x1b[0m Working… (esc to interrupt · ${n}s)\x1b[K` +
      `\x1b[${ROWS - 2};1H${'─'.repeat(COLS)}\x1b[${ROWS - 1};1H\x1b[1m❯\x1b[0m \x1b[K` +
      `\x1b[${ROWS};1H${'─'.repeat(COLS)}\x1b[${ROWS - 1};3H\x1b[?2026l`;
    out += frame;
  }
  return out;
}

/**
 * An Ink-style agent on the main screen: transcript lines printed into the
 * scrollback, and below them a live region erased and redrawn several
 * times per line; every 40th message is a request.
 */
function inlineAgent(bytes) {
  let out = '';
  const live = (n) =>
    `\x1b[33m${SPINNER[n % SPINNER.length]}\x1b[0m Working… (esc to interrupt)\r\n${'─'.repeat(COLS)}\r\n\x1b[1m❯\x1b[0m \r\n${'─'.repeat(COLS)}`;
  const erase = '\r\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K';
  out += live(0);
  for (let n = 1; out.length < bytes; n += 1) {
    for (let k = 0; k < 3; k += 1) out += erase + live(n + k);
    const printed = n % 40 === 39 ? request(n) : [styled(n)];
    out += erase + printed.map((line) => `${line}\r\n`).join('') + live(n);
  }
  return out;
}

/**
 * The reader's clock in these runs. A block a full-screen program draws is
 * reported once it has stayed the same for LIVE_STABLE_MS (300 ms,
 * src/screen/live.ts), so time must pass between reads as it does in a
 * pane: the clock moves on by `stepMs` at each write, and the reader is
 * settled after each one, as the bridge does when output pauses.
 */
function steppedClock(stepMs) {
  let t = 0;
  return { now: () => t, step: () => (t += stepMs) };
}

async function throughput(name, data, chunk) {
  const clock = steppedClock(1000);
  const reader = createScreenReader({ cols: COLS, rows: ROWS, now: clock.now });
  const started = performance.now();
  let found = 0;
  for (let at = 0; at < data.length; at += chunk) {
    clock.step();
    const events = [
      ...(await reader.write(data.slice(at, at + chunk))),
      ...reader.settle(),
    ];
    found += events.filter((e) => e.type === 'request').length;
  }
  clock.step();
  found += reader.settle().filter((e) => e.type === 'request').length;
  const seconds = (performance.now() - started) / 1000;
  reader.dispose();
  const bytes = Buffer.byteLength(data, 'utf8');
  return {
    stream: name,
    chunkBytes: chunk,
    mb: Number((bytes / MB).toFixed(1)),
    mbPerSecond: Number((bytes / MB / seconds).toFixed(1)),
    requests: found,
  };
}

function expectedRequests(data) {
  return new Set(data.match(/id=b\d+/g)).size;
}

/** Heap and array buffers held by one reader with full scrollback. */
async function memory() {
  for (let i = 0; i < 3; i += 1) gc();
  const before = process.memoryUsage();
  const reader = createScreenReader({ cols: COLS, rows: ROWS });
  let text = '';
  for (let n = 0; n < 12_000; n += 1) text += `${styled(n)}\r\n`;
  for (let at = 0; at < text.length; at += 65_536)
    await reader.write(text.slice(at, at + 65_536));
  text = '';
  for (let i = 0; i < 3; i += 1) gc();
  const after = process.memoryUsage();
  const lines = reader.recentLines(20_000).length;
  const bytes =
    after.heapUsed -
    before.heapUsed +
    (after.arrayBuffers - before.arrayBuffers);
  reader.dispose();
  return { scrollbackLines: lines, mb: Number((bytes / MB).toFixed(2)) };
}

const streams = {
  'full-screen (alternate screen, repainted)': fullScreenFrames(SIZE),
  'inline (Ink-style live region)': inlineAgent(SIZE),
};
const results = [];
for (const [name, data] of Object.entries(streams)) {
  const expected = expectedRequests(data);
  for (const chunk of [65_536, 1_048_576]) {
    const result = { ...(await throughput(name, data, chunk)), expected };
    results.push(result);
    console.log(
      `${name.padEnd(44)} chunks ${String(chunk).padStart(8)} B  ${String(result.mbPerSecond).padStart(6)} MB/s  requests ${result.requests}/${expected}`,
    );
  }
}
/**
 * Reader latency for a full-screen agent: frame by frame, the time from
 * handing the frame that completes a request to the reader until the
 * reader reports it (the rest of the path, tmux to the log and the inbox
 * file, is `npm run bench`'s detection figure).
 */
async function latency() {
  const frames = fullScreenFrames(4 * MB)
    .split('\x1b[?2026h')
    .filter(Boolean);
  // A frame every 100 ms: a request is reported in the fourth frame that
  // shows it unchanged.
  const clock = steppedClock(100);
  const reader = createScreenReader({ cols: COLS, rows: ROWS, now: clock.now });
  const samples = [];
  for (const frame of frames) {
    clock.step();
    const started = performance.now();
    const events = await reader.write(`\x1b[?2026h${frame}`);
    if (events.some((e) => e.type === 'request'))
      samples.push(performance.now() - started);
  }
  reader.dispose();
  samples.sort((a, b) => a - b);
  const at = (p) =>
    Number(
      samples[
        Math.min(samples.length - 1, Math.floor(p * samples.length))
      ].toFixed(3),
    );
  return { n: samples.length, p50Ms: at(0.5), p95Ms: at(0.95) };
}

const lat = await latency();
console.log(
  `latency: frame completing a request -> reported   p50 ${lat.p50Ms} ms  p95 ${lat.p95Ms} ms  n=${lat.n}`,
);
const mem = await memory();
console.log(
  `memory: one reader, ${mem.scrollbackLines} lines of scrollback      ${mem.mb} MB`,
);
mkdirSync(path.join(ROOT, 'bench'), { recursive: true });
writeFileSync(
  path.join(ROOT, 'bench', 'screen.json'),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cols: COLS,
      rows: ROWS,
      throughput: results,
      latency: lat,
      memory: mem,
      targets: { mbPerSecond: 20, memoryMb: 10 },
    },
    null,
    2,
  )}\n`,
);
console.log('written: bench/screen.json');
