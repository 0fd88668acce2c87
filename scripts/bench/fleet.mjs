// A fleet starting (issue 15): one `macs bridge --all` over N idle panes
// running plain `sh` (no rc files, so macs is measured, not the shell).
// Before the bridge starts, each pane has printed a request block; the start
// time runs from the bridge's spawn until every one of those requests is in
// the inbox (the agent is supervised and its screen read). Then detection:
// one more block printed in each pane, from the keys sent to the inbox file.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  now,
  round,
  spawnPane,
  startBridge,
  startServer,
  stats,
  stopChild,
  tempHome,
  waitUntil,
  watchInbox,
} from './lib.mjs';

const printBlock = (id) =>
  `printf '<<CONTROLLER_REQUEST id=${id}>>\\nfleet\\n<<CONTROLLER_REQUEST_END>>\\n'\n`;

export async function benchFleet({ agents }) {
  const { home, remove } = tempHome(`fleet-${agents}`);
  const server = startServer();
  let bridge;
  try {
    const workers = [];
    for (let k = 1; k <= agents; k += 1) {
      const name = `w${String(k).padStart(3, '0')}`;
      workers.push({
        name,
        preset: 'generic',
        pane: spawnPane(server, ['sh']),
      });
    }
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({ workers }, null, 2),
    );
    const send = (w, id) =>
      server.tmux('send-keys', '-t', w.pane, '-l', printBlock(id));
    for (const w of workers) send(w, 'f0');
    // Every pane has printed its block (the line alone, not the command).
    await waitUntil(
      () =>
        workers.every((w) =>
          server
            .tmux('capture-pane', '-p', '-t', w.pane)
            .split('\n')
            .includes('<<CONTROLLER_REQUEST_END>>'),
        ),
      60_000,
      `${agents} shells to print a request`,
    );

    // Watched from before the bridge starts (it would make it 0700 too).
    mkdirSync(path.join(home, 'inbox'), { mode: 0o700 });
    const seen = { f0: new Map(), f1: new Map() };
    const sentAt = new Map();
    const inbox = watchInbox(path.join(home, 'inbox'), (name, _body, t) => {
      const m = /^(w\d+)-(f[01])\.txt$/.exec(name);
      if (!m?.[1] || !m[2]) return false;
      seen[m[2]].set(m[1], t);
      return true;
    });
    try {
      const t0 = now();
      bridge = startBridge(home, server, ['--all']);
      await waitUntil(
        () => seen.f0.size >= agents,
        120_000,
        `the bridge to read ${agents} agents (${seen.f0.size} so far)`,
      );
      const startMs = Math.max(...seen.f0.values()) - t0;
      for (const w of workers) {
        sentAt.set(w.name, now());
        send(w, 'f1');
      }
      await waitUntil(
        () => seen.f1.size >= agents,
        120_000,
        `a request from each of ${agents} agents in the inbox`,
      );
      const detection = [...seen.f1].map(([name, t]) => t - sentAt.get(name));
      return {
        agents,
        startMs: round(startMs),
        startPerAgentMs: round(startMs / agents),
        detectionMs: stats(detection),
      };
    } finally {
      inbox.stop();
    }
  } finally {
    await stopChild(bridge);
    server.kill();
    remove();
  }
}
