// Idle CPU: agents sitting idle, nothing printed, for a window of seconds.
// First the baseline (poller.mjs: every pane captured every 500 ms), then
// one `macs bridge --all` supervising the same panes; for each, its CPU
// (its own and its children's: the tmux clients it runs) and the tmux
// server's, as % of one core.
import { spawn } from 'node:child_process';
import {
  POLLER,
  cpuWindow,
  env,
  memoryMb,
  round,
  sleep,
  spawnWorker,
  startBridgeAll,
  startServer,
  stopChild,
  tempHome,
  track,
} from './lib.mjs';

/** Left alone this long before a window starts (start-up work done). */
const SETTLE_MS = 3000;

export async function benchIdle({ agents, seconds }) {
  const { home, remove } = tempHome('idle');
  const server = startServer();
  let poller;
  let bridge;
  try {
    const workers = [];
    for (let k = 1; k <= agents; k += 1) {
      const pane = spawnWorker(server, ['--count', '0']);
      workers.push({
        name: `w${String(k).padStart(2, '0')}`,
        preset: 'generic',
        pane,
      });
    }
    const serverPid = server.pid();

    poller = track(
      spawn(
        process.execPath,
        [
          POLLER,
          '--socket',
          server.socket,
          '--panes',
          workers.map((w) => w.pane).join(','),
          '--interval-ms',
          '500',
        ],
        { env: env(), stdio: 'ignore' },
      ),
    );
    await sleep(SETTLE_MS);
    let end = cpuWindow({
      process: { pid: poller.pid, tree: true },
      tmuxServer: serverPid,
    });
    await sleep(seconds * 1000);
    const baseline = end();
    await stopChild(poller);

    bridge = await startBridgeAll(home, server, workers);
    await sleep(SETTLE_MS);
    end = cpuWindow({
      process: { pid: bridge.pid, tree: true },
      tmuxServer: serverPid,
    });
    await sleep(seconds * 1000);
    const macs = end();
    const memory = memoryMb(bridge.pid);
    const withServer = (r) =>
      round(r.process.cpuPercent + r.tmuxServer.cpuPercent, 3);
    return {
      agents,
      seconds,
      bridge: { ...macs, withTmuxServerPercent: withServer(macs), memory },
      baselineCapturePolling500ms: {
        ...baseline,
        withTmuxServerPercent: withServer(baseline),
      },
      bridgeOverBaseline: round(
        macs.process.cpuPercent / baseline.process.cpuPercent,
      ),
      bridgeOverBaselineWithTmuxServer: round(
        withServer(macs) / withServer(baseline),
      ),
    };
  } finally {
    await stopChild(poller);
    await stopChild(bridge);
    server.kill();
    remove();
  }
}
