// A bench worker: prints request blocks (and floor lines) stamped with the
// wall-clock time of printing, waits for a submission after each request,
// and appends each submission's arrival time to a record file.
// Usage: node worker.mjs --count N --record FILE [--gap-ms G] [--no-wait] [--start-file F] [--prefix P]
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const count = Number(opt('--count', '100'));
const gapMs = Number(opt('--gap-ms', '30'));
const record = opt('--record', '/dev/null');
const wait = !args.includes('--no-wait');
const prefix = opt('--prefix', 'b');
const now = () => performance.timeOrigin + performance.now();

if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdout.write('\x1b[?2004h');
let inPaste = false;
let waiting;
process.stdin.on('data', (buf) => {
  const s = buf.toString('latin1');
  if (s.includes('\x1b[200~')) inPaste = true;
  if (s.includes('\x1b[201~')) inPaste = false;
  const tail = s.split('\x1b[201~').pop() ?? '';
  if (!inPaste && /[\r\n]/.test(tail)) {
    const t = now();
    appendFileSync(record, `${JSON.stringify({ type: 'submit', t })}\n`);
    const w = waiting;
    waiting = undefined;
    w?.();
  }
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const startFile = opt('--start-file', undefined);
if (startFile) {
  const { existsSync } = await import('node:fs');
  while (!existsSync(startFile)) await sleep(10);
}
for (let i = 0; i < count; i += 1) {
  process.stdout.write(`FLOOR ${prefix}-${i} t=${now().toFixed(3)}\n`);
  await sleep(gapMs);
  const submitted = wait ? new Promise((r) => (waiting = r)) : undefined;
  process.stdout.write(
    `<<CONTROLLER_REQUEST id=${prefix}-${i}>>\nbench request ${i} t=${now().toFixed(3)}\n<<CONTROLLER_REQUEST_END>>\n`,
  );
  if (submitted) await submitted;
  await sleep(gapMs);
}
process.stdout.write('bench worker done\n');
setInterval(() => {}, 1 << 30);
