// One bridge, one worker: the floor, detection and the round trip with an
// instant answerer; and the capture-pane polling baseline on the same
// worker and requests.
import { renameSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import {
  firstSubmits,
  followLines,
  now,
  sleep,
  spawnWorker,
  startBridge,
  startServer,
  stats,
  stopChild,
  tempHome,
  waitUntil,
  watchInbox,
} from './lib.mjs';

/** macs: detection latency, its floor, and the round trip with an instant answerer. */
export async function benchMacs(count) {
  const { home, remove } = tempHome('single');
  const server = startServer();
  const record = path.join(home, 'record.jsonl');
  const startFile = path.join(home, 'start');
  let bridge;
  try {
    const pane = spawnWorker(server, [
      '--count',
      String(count),
      '--record',
      record,
      '--start-file',
      startFile,
      '--prefix',
      'm',
    ]);
    bridge = startBridge(home, server, [
      '--worker-pane',
      pane,
      '--agent',
      'bench',
    ]);
    const log = path.join(home, '.macs', 'panes', 'bench.log');
    const outbox = path.join(home, 'outbox');
    await waitUntil(
      () =>
        existsSync(path.join(home, '.macs', 'state', 'bench.json')) &&
        existsSync(outbox),
      15_000,
      'the bridge to start',
    );

    const printedAt = new Map(); // request id -> printed at
    const floor = [];
    const detection = [];
    const stopFloor = followLines(log, (line) => {
      const m = /FLOOR (\S+) t=([\d.]+)/.exec(line);
      if (m) floor.push(now() - Number(m[2]));
    });
    const inbox = watchInbox(path.join(home, 'inbox'), (name, body, t) => {
      const m = /bench request (\d+) t=([\d.]+)/.exec(body);
      if (!m) return false;
      detection.push(t - Number(m[2]));
      printedAt.set(`m-${m[1]}`, Number(m[2]));
      // The instant answerer: write then rename, as a program should.
      const id = name.replace(/\.txt$/, '');
      const temp = path.join(outbox, `.${id}.tmp`);
      writeFileSync(temp, 'ok');
      renameSync(temp, path.join(outbox, `${id}.txt`));
      return true;
    });
    writeFileSync(startFile, 'go');
    await waitUntil(
      () => firstSubmits(record).size >= count,
      180_000,
      'all submissions',
    );
    inbox.stop();
    stopFloor();
    const roundTrip = [...firstSubmits(record)].flatMap(([id, t]) =>
      printedAt.has(id) ? [t - printedAt.get(id)] : [],
    );
    return {
      floor: stats(floor),
      detection: stats(detection),
      roundTrip: stats(roundTrip),
    };
  } finally {
    await stopChild(bridge);
    server.kill();
    remove();
  }
}

/** The common approach in this field: poll capture-pane every 500 ms and regex the text. */
export async function benchBaseline(count) {
  const { home, remove } = tempHome('base');
  const server = startServer();
  const startFile = path.join(home, 'start');
  try {
    const pane = spawnWorker(server, [
      '--count',
      String(count),
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
    while (found.size < count && Date.now() < deadline) {
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
    remove();
  }
}
