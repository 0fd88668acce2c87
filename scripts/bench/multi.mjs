// One bridge supervising many agents (`macs bridge --all` over a config of
// workers with their panes): detection while every agent prints requests,
// and the bridge's memory, for each number of agents.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  cpuWindow,
  memoryMb,
  sleep,
  spawnPane,
  spawnWorker,
  startBridgeAll,
  startServer,
  stats,
  stopChild,
  tempHome,
  waitUntil,
  watchInbox,
} from './lib.mjs';

/** The bridge is left this long after every agent is supervised, before memory is read. */
const SETTLE_MS = 1000;

/**
 * One bridge, `agents` agents, each printing `requests` requests
 * `intervalMs` apart, each starting at a random offset within the first
 * interval (so the requests are spread, not in lockstep).
 */
export async function benchAgents({ agents, requests, intervalMs, flood = 0 }) {
  const { home, remove } = tempHome(`multi-${agents}`);
  const server = startServer();
  const startFile = path.join(home, 'start');
  let bridge;
  try {
    const workers = [];
    for (let k = 1; k <= agents; k += 1) {
      const name = `w${String(k).padStart(2, '0')}`;
      const pane = spawnWorker(server, [
        '--count',
        String(requests),
        '--no-wait',
        '--no-floor',
        '--gap-ms',
        String(intervalMs),
        '--offset-ms',
        String(Math.floor(Math.random() * intervalMs)),
        '--start-file',
        startFile,
        '--prefix',
        'r',
      ]);
      workers.push({ name, preset: 'generic', pane });
    }
    if (flood > 0) {
      // One more worker that prints `flood` request blocks at once when the
      // others start (issue 16: one agent's flood must not delay the others).
      const pane = spawnPane(server, [
        'sh',
        '-c',
        'while [ ! -e "$1" ]; do sleep 0.05; done; i=0; while [ $i -lt "$2" ]; do i=$((i+1)); printf "<<CONTROLLER_REQUEST id=f%s>>\\nflood %s\\n<<CONTROLLER_REQUEST_END>>\\n" $i $i; done; exec sleep 3600',
        'flood',
        startFile,
        String(flood),
      ]);
      workers.push({ name: 'flooder', preset: 'generic', pane });
    }
    bridge = await startBridgeAll(home, server, workers);
    await sleep(SETTLE_MS);
    const idle = memoryMb(bridge.pid);
    const detection = [];
    const inbox = watchInbox(path.join(home, 'inbox'), (_name, body, t) => {
      const m = /bench request \d+ t=([\d.]+)/.exec(body);
      if (!m) return false;
      detection.push(t - Number(m[1]));
      return true;
    });
    const cpu = cpuWindow({
      bridge: { pid: bridge.pid, tree: true },
      tmuxServer: server.pid(),
    });
    writeFileSync(startFile, 'go');
    const expected = agents * requests;
    await waitUntil(
      () => detection.length >= expected,
      requests * intervalMs + 120_000,
      `${expected} requests of ${agents} agents in the inbox`,
    ).finally(() => inbox.stop());
    const busy = memoryMb(bridge.pid);
    const used = cpu();
    return {
      agents,
      ...(flood > 0 ? { floodRequests: flood } : {}),
      requestsPerAgent: requests,
      requestIntervalMs: intervalMs,
      detectionMs: stats(detection),
      cpuPercent: {
        bridge: used.bridge.cpuPercent,
        tmuxServer: used.tmuxServer.cpuPercent,
      },
      memory: {
        idleRssMb: idle.rssMb,
        rssMb: busy.rssMb,
        peakRssMb: busy.hwmMb,
      },
    };
  } finally {
    await stopChild(bridge);
    server.kill();
    remove();
  }
}
