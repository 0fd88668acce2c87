// An idle session as a person runs it (issue 15): `macs start --detach`
// with N workers running plain `sh` (preset `shell`: nothing is typed into
// them), left alone. The CPU of every macs process of the session (the
// bridge, the status view, and the tmux clients they run) over two windows,
// as % of one core, next to the tmux server's: the first minute (from the
// view's first frame: the agents' ages are seconds, the view redraws as
// they change; issue 22) and once settled (after settleMs); then `macs stop`.
// Starting the view (loading React and ink, about 1.5 s of CPU on a busy
// machine) is in neither window.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  MACS,
  cpuWindow,
  env,
  memoryMb,
  round,
  sleep,
  tempHome,
  waitUntil,
} from './lib.mjs';

/** Left alone this long first: start-up done, the first ages past a minute. */
const DEFAULT_SETTLE_MS = 65_000;

function pidOf(pattern) {
  const out = spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' });
  const pids = out.stdout.split('\n').filter(Boolean).map(Number);
  return pids.length === 1 ? pids[0] : undefined;
}

export async function benchSessionIdle({
  agents,
  seconds,
  settleMs = DEFAULT_SETTLE_MS,
}) {
  const { home, remove } = tempHome('session');
  const childEnv = env({ MACS_HOME: home });
  const macs = (args) =>
    execFileSync(process.execPath, [MACS, ...args], {
      cwd: home,
      env: childEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const workers = Array.from({ length: agents }, (_, i) => ({
    name: `w${String(i + 1).padStart(2, '0')}`,
    preset: 'shell',
    command: 'sh',
  }));
  writeFileSync(
    path.join(home, 'macs.config.json'),
    JSON.stringify({ workers }),
  );
  try {
    macs(['start', '--detach']);
    const startedAt = Date.now();
    const session = JSON.parse(
      readFileSync(path.join(home, '.macs', 'session.json'), 'utf8'),
    );
    const socket = session.socket;
    // The status window's view starts when a person attaches: started here
    // as an attach does (its window waits on this channel until then).
    execFileSync('tmux', ['-L', socket, 'wait-for', '-S', 'macs-status'], {
      env: childEnv,
    });
    // The session's processes, found by their command lines (each carries the home).
    let bridge;
    let status;
    await waitUntil(
      () => {
        bridge = pidOf(`main.js bridge --all --home ${home}`);
        status = pidOf(`main.js status --watch --home ${home}`);
        return bridge !== undefined && status !== undefined;
      },
      30_000,
      'the session bridge and status view',
    );
    const server = Number(
      execFileSync('tmux', ['-L', socket, 'display-message', '-p', '#{pid}'], {
        env: childEnv,
        encoding: 'utf8',
      }).trim(),
    );
    const measure = async (ms) => {
      const end = cpuWindow({
        bridge: { pid: bridge, tree: true },
        status: { pid: status, tree: true },
        tmuxServer: server,
      });
      await sleep(ms);
      const window = end();
      return {
        ...window,
        macsPercent: round(
          window.bridge.cpuPercent + window.status.cpuPercent,
          3,
        ),
      };
    };
    const untilSinceStart = (ms) =>
      sleep(Math.max(0, startedAt + ms - Date.now()));
    // The first minute: from the view's first frame, ending before the
    // agents' ages reach a minute.
    await waitUntil(
      () =>
        execFileSync(
          'tmux',
          ['-L', socket, 'capture-pane', '-p', '-t', session.panes.status],
          { env: childEnv, encoding: 'utf8' },
        ).includes(`AGENTS (${agents})`),
      30_000,
      'the status view drawn',
    );
    const firstFrameMs = Date.now() - startedAt;
    const first = await measure(
      Math.max(1000, Math.min(seconds * 1000, 58_000 - firstFrameMs)),
    );
    await untilSinceStart(settleMs);
    const window = await measure(seconds * 1000);
    return {
      agents,
      seconds,
      settleSec: round(settleMs / 1000, 1),
      bridge: { ...window.bridge, memory: memoryMb(bridge) },
      statusView: { ...window.status, memory: memoryMb(status) },
      tmuxServer: window.tmuxServer,
      macsPercent: window.macsPercent,
      firstMinute: {
        firstFrameSec: round(firstFrameMs / 1000, 1),
        seconds: first.seconds,
        bridge: first.bridge,
        statusView: first.status,
        tmuxServer: first.tmuxServer,
        macsPercent: first.macsPercent,
      },
      targetPercent: 1,
    };
  } finally {
    try {
      macs(['stop']);
    } catch {
      // already down
    }
    remove();
  }
}
