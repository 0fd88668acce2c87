// Delivery: answers of several sizes, from the outbox file written to the
// whole text submitted in the worker (the worker records the submission,
// and the length and SHA-256 of what it received, so a 100 KB bracketed
// paste is checked for arriving intact).
import { createHash } from 'node:crypto';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  firstSubmits,
  now,
  readRecord,
  round,
  spawnPane,
  spawnWorker,
  startBridge,
  startServer,
  stats,
  stopChild,
  tempHome,
  waitUntil,
  watchInbox,
  WORKER,
} from './lib.mjs';

/** After a request reaches the inbox, the answer is written this much later. */
const ANSWER_AFTER_MS = 200;

/**
 * An answer of exactly `bytes` bytes of ASCII: one line when short (so a
 * short answer is typed as a line, the way short answers are), else lines
 * of 80 characters; it never ends in white space, which is trimmed.
 */
export function makeAnswer(bytes, n) {
  const head = `answer ${n} `;
  const fill = 'abcdefghijklmnopqrstuvwxyz0123456789';
  if (bytes <= 200)
    return (head + fill.repeat(Math.ceil(bytes / fill.length))).slice(0, bytes);
  let text = head;
  for (let line = 0; text.length < bytes; line += 1) {
    const row = `${String(line).padStart(5, '0')} ${fill}${fill}`.slice(0, 79);
    text += `${row}\n`;
  }
  return `${text.slice(0, bytes - 1)}.`;
}

/** Round robin over the sizes, so each size sees the same machine. */
function plan(sizes) {
  const left = sizes.map((s) => s.count);
  const order = [];
  while (left.some((n) => n > 0))
    sizes.forEach((size, k) => {
      if (left[k] > 0) {
        left[k] -= 1;
        order.push(size.bytes);
      }
    });
  return order;
}

/**
 * sizes: [{ bytes, count }]; submitDelayMs and maxLiteralChars: the
 * preset's (generic), to report delivery less the submit delay and how the
 * text was typed.
 */
export async function benchDelivery({
  sizes,
  submitDelayMs,
  maxLiteralChars,
  bridgeFirst = false,
}) {
  const order = plan(sizes);
  const { home, remove } = tempHome('delivery');
  const server = startServer();
  const record = path.join(home, 'record.jsonl');
  const startFile = path.join(home, 'start');
  const workerArgs = [
    '--count',
    String(order.length),
    '--record',
    record,
    '--start-file',
    startFile,
    '--prefix',
    'd',
  ];
  let bridge;
  try {
    // bridgeFirst: the way the original MACS is used, the bridge on a
    // shell's pane (no preset named), then the worker started at its prompt.
    const pane = bridgeFirst
      ? spawnPane(server, ['bash', '--norc', '--noprofile'])
      : spawnWorker(server, workerArgs);
    bridge = startBridge(home, server, [
      '--worker-pane',
      pane,
      '--agent',
      'bench',
    ]);
    const outbox = path.join(home, 'outbox');
    await waitUntil(
      () =>
        existsSync(path.join(home, '.macs', 'state', 'bench.json')) &&
        existsSync(outbox),
      15_000,
      'the bridge to start',
    );
    if (bridgeFirst) {
      const quoted = [process.execPath, WORKER, ...workerArgs]
        .map((a) => `'${a.replaceAll("'", `'\\''`)}'`)
        .join(' ');
      server.tmux('send-keys', '-t', pane, '-l', quoted);
      server.tmux('send-keys', '-t', pane, 'Enter');
    }
    const answers = new Map(); // request id -> { bytes, sha256, writtenAt }
    const inbox = watchInbox(path.join(home, 'inbox'), (name, body) => {
      const m = /bench request (\d+) t=/.exec(body);
      if (!m) return false;
      const i = Number(m[1]);
      const id = name.replace(/\.txt$/, '');
      const text = makeAnswer(order[i], i);
      setTimeout(() => {
        const temp = path.join(outbox, `.${id}.tmp`);
        writeFileSync(temp, text);
        renameSync(temp, path.join(outbox, `${id}.txt`));
        answers.set(`d-${i}`, {
          bytes: Buffer.byteLength(text),
          sha256: createHash('sha256').update(text).digest('hex'),
          literal: !text.includes('\n') && text.length <= maxLiteralChars,
          writtenAt: now(),
        });
      }, ANSWER_AFTER_MS);
      return true;
    });
    writeFileSync(startFile, 'go');
    await waitUntil(
      () => firstSubmits(record).size >= order.length,
      300_000,
      'all answers delivered',
    );
    inbox.stop();
    const submits = readRecord(record);
    const first = new Map();
    for (const r of submits) if (!first.has(r.request)) first.set(r.request, r);
    return sizes.map(({ bytes }) => {
      const samples = [];
      let intact = 0;
      let literal = 0;
      for (const [id, answer] of answers) {
        if (answer.bytes !== bytes) continue;
        const got = first.get(id);
        if (!got) continue;
        samples.push(got.t - answer.writtenAt);
        if (got.bytes === answer.bytes && got.sha256 === answer.sha256)
          intact += 1;
        if (answer.literal) literal += 1;
      }
      const s = stats(samples);
      // Submit key pressed again (no sign the worker took the text at first).
      const extraSubmits = submits.filter(
        (r) => r.bytes === 0 && answers.get(r.request)?.bytes === bytes,
      ).length;
      return {
        bytes,
        method: literal === samples.length ? 'send-keys -l' : 'bracketed paste',
        ...s,
        intact,
        extraSubmits,
        lessSubmitDelay: {
          p50: round(s.p50 - submitDelayMs),
          p95: round(s.p95 - submitDelayMs),
        },
      };
    });
  } finally {
    await stopChild(bridge);
    server.kill();
    remove();
  }
}
