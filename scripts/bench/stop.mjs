// How long `macs stop` takes for a session of plain shells (issue 29: a
// shell ignores the interrupt key, so each waited out the grace period;
// goal under 2 s). Runs alternate between two sessions alike, `macs start
// --detach` with N `bash` workers at their prompt: one ended by `macs stop`
// (wall time of the command), the other by a bare `tmux kill-server`, timed
// until every process of its panes is gone: the floor of ending the panes
// without the bridge's and the view's orderly stop or node's start-up.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  MACS,
  env,
  now,
  round,
  sleep,
  stats,
  tempHome,
  waitUntil,
} from './lib.mjs';

const GOAL_MS = 2000;

function alive(pid) {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

/** A session of `agents` bash workers at their prompt; resolves to how to end it. */
async function startShells(agents) {
  const { home, remove } = tempHome('stop');
  const childEnv = env({ MACS_HOME: home });
  const workers = Array.from({ length: agents }, (_, i) => ({
    name: `w${i + 1}`,
    preset: 'shell',
    command: 'bash --norc',
  }));
  writeFileSync(
    path.join(home, 'macs.config.json'),
    JSON.stringify({ workers }),
  );
  execFileSync(process.execPath, [MACS, 'start', '--detach'], {
    cwd: home,
    env: childEnv,
    stdio: 'ignore',
  });
  const { socket, agents: recorded } = JSON.parse(
    readFileSync(path.join(home, '.macs', 'session.json'), 'utf8'),
  );
  const tmux = (...args) =>
    execFileSync('tmux', ['-L', socket, ...args], {
      env: childEnv,
      encoding: 'utf8',
    });
  await waitUntil(
    () =>
      recorded.every((a) =>
        /[$#] ?$/m.test(tmux('capture-pane', '-p', '-t', a.pane)),
      ),
    30_000,
    'every bash worker at its prompt',
  );
  const pids = tmux('list-panes', '-s', '-t', '=macs', '-F', '#{pane_pid}')
    .split('\n')
    .filter(Boolean)
    .map(Number);
  const done = () => {
    spawnSync('tmux', ['-L', socket, 'kill-server'], {
      env: childEnv,
      stdio: 'ignore',
    });
    remove();
  };
  return { home, childEnv, pids, tmux, done };
}

export async function benchStop({ agents = 4, runs = 3 } = {}) {
  const stop = [];
  const killServer = [];
  const killed = [];
  for (let run = 0; run < runs; run += 1) {
    const a = await startShells(agents);
    try {
      const started = now();
      const result = spawnSync(process.execPath, [MACS, 'stop'], {
        cwd: a.home,
        env: a.childEnv,
        encoding: 'utf8',
      });
      stop.push(now() - started);
      killed.push((result.stdout.match(/did not exit in time/g) ?? []).length);
    } finally {
      a.done();
    }
    const b = await startShells(agents);
    try {
      const started = now();
      b.tmux('kill-server');
      while (b.pids.some(alive)) await sleep(5);
      killServer.push(now() - started);
    } finally {
      b.done();
    }
  }
  const stopMs = stats(stop);
  const killServerMs = stats(killServer);
  return {
    agents,
    runs,
    stopMs,
    killServerMs,
    panesKilledAfterGrace: Math.max(...killed),
    goalMs: GOAL_MS,
    stopOverKillServerP50: round(stopMs.p50 / killServerMs.p50, 1),
  };
}
