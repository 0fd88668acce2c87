// A bench worker: prints request blocks (and floor lines) stamped with the
// wall-clock time of printing, waits for a submission after each request,
// and appends each submission to a record file: its arrival time, the
// request it answers, and the text received since the previous submission
// (typed or pasted; its length in bytes and a SHA-256, so a long paste can
// be checked for being intact).
// Usage: node worker.mjs --count N --record FILE [--gap-ms G] [--no-wait]
//   [--no-floor] [--offset-ms O] [--start-file F] [--prefix P]
// --no-floor: no floor lines, one request every G ms; --offset-ms: wait O ms
// after the start file appears (to spread many workers' requests).
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const count = Number(opt('--count', '100'));
const gapMs = Number(opt('--gap-ms', '30'));
const offsetMs = Number(opt('--offset-ms', '0'));
const record = opt('--record', '/dev/null');
const wait = !args.includes('--no-wait');
const floor = !args.includes('--no-floor');
const prefix = opt('--prefix', 'b');
const startFile = opt('--start-file', undefined);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
let lastRequest;
let waiting;
let inPaste = false;
let pending = ''; // input not yet classified (latin1: one char a byte)
let received = ''; // text received since the last submission

function submitted() {
  const t = now();
  const bytes = Buffer.from(received, 'latin1');
  received = '';
  appendFileSync(
    record,
    `${JSON.stringify({
      type: 'submit',
      t,
      request: lastRequest,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    })}\n`,
  );
  const w = waiting;
  waiting = undefined;
  w?.();
}

/** Keep a possible start of a marker at the end of the input for the next read. */
function keepPartialMarker() {
  const esc = pending.lastIndexOf('\x1b');
  const cut =
    esc >= 0 && pending.length - esc < PASTE_START.length
      ? esc
      : pending.length;
  received += pending.slice(0, cut);
  pending = pending.slice(cut);
}

/**
 * A submission is Enter (CR or LF) outside a bracketed paste; a paste's
 * own newlines are text.
 */
function consume() {
  for (;;) {
    if (inPaste) {
      const end = pending.indexOf(PASTE_END);
      if (end < 0) return keepPartialMarker();
      received += pending.slice(0, end);
      pending = pending.slice(end + PASTE_END.length);
      inPaste = false;
      continue;
    }
    const start = pending.indexOf(PASTE_START);
    const enter = pending.search(/[\r\n]/);
    if (enter >= 0 && (start < 0 || enter < start)) {
      received += pending.slice(0, enter);
      pending = pending.slice(enter + 1);
      submitted();
      continue;
    }
    if (start >= 0) {
      received += pending.slice(0, start);
      pending = pending.slice(start + PASTE_START.length);
      inPaste = true;
      continue;
    }
    return keepPartialMarker();
  }
}

if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdout.write('\x1b[?2004h');
process.stdin.on('data', (buf) => {
  pending += buf.toString('latin1');
  consume();
});

if (startFile) while (!existsSync(startFile)) await sleep(10);
if (offsetMs > 0) await sleep(offsetMs);
for (let i = 0; i < count; i += 1) {
  if (floor) {
    process.stdout.write(`FLOOR ${prefix}-${i} t=${now().toFixed(3)}\n`);
    await sleep(gapMs);
  }
  const submission = wait ? new Promise((r) => (waiting = r)) : undefined;
  lastRequest = `${prefix}-${i}`;
  process.stdout.write(
    `<<CONTROLLER_REQUEST id=${prefix}-${i}>>\nbench request ${i} t=${now().toFixed(3)}\n<<CONTROLLER_REQUEST_END>>\n`,
  );
  if (submission) await submission;
  await sleep(gapMs);
}
process.stdout.write('bench worker done\n');
setInterval(() => {}, 1 << 30);
