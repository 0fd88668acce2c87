// Issue 31: every door (the status view, `macs web`, `macs mcp`) asks every
// 5 s whether the session's tmux server still runs, and each ask was a
// `tmux list-sessions` process: about 5 ms of CPU each, a share of an idle
// hub's budget. Strategy: a real private tmux server; a server that answers
// on its socket is up without any tmux process run; every other answer (the
// server gone, a stale socket file, a socket that is not where tmux puts it
// by default) is asked of tmux itself, so it is never read as gone wrongly.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  probeTmuxServer,
  removeStaleSocket,
  tmuxSocketPath,
} from '../../src/tmux/probe.js';
import { createRunTmux, type RunTmux } from '../../src/tmux/run.js';
import {
  childEnv,
  startTmuxServer,
  type TestTmuxServer,
} from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

/** The real tmux, counting the processes run. */
function countingTmux(): { run: RunTmux; calls: () => number } {
  const real = createRunTmux({ env: childEnv() });
  let calls = 0;
  return {
    run: (args, options) => {
      calls += 1;
      return real(args, options);
    },
    calls: () => calls,
  };
}

describe('probeTmuxServer', () => {
  let server: TestTmuxServer | undefined;
  afterEach(async () => {
    await server?.kill();
    server = undefined;
  });

  it('finds a running server on its socket, without running tmux', async () => {
    server = await startTmuxServer();
    const tmux = countingTmux();
    const up = probeTmuxServer(tmux.run, childEnv());
    expect(await up(server.socket)).toBe(true);
    expect(await up(server.socket)).toBe(true);
    expect(tmux.calls()).toBe(0);
  });

  it('asks tmux when the server is gone, and its socket too', async () => {
    server = await startTmuxServer();
    const tmux = countingTmux();
    const up = probeTmuxServer(tmux.run, childEnv());
    await server.kill();
    expect(await up(server.socket)).toBe(false);
    expect(tmux.calls()).toBe(1);
  });

  it('asks tmux when a killed server left its socket file', async () => {
    server = await startTmuxServer();
    const pid = Number(
      (await server.tmux('display-message', '-p', '#{pid}')).trim(),
    );
    const file = tmuxSocketPath(server.socket, childEnv(), process.getuid!());
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !existsSync(`/proc/${pid}`), {
      message: 'the killed tmux server to end',
    });
    expect(existsSync(file)).toBe(true);
    const tmux = countingTmux();
    expect(await probeTmuxServer(tmux.run, childEnv())(server.socket)).toBe(
      false,
    );
    expect(tmux.calls()).toBe(1);
  });

  it('asks tmux when the socket is not where it looks, and finds the server up', async () => {
    server = await startTmuxServer();
    const tmux = countingTmux();
    const up = probeTmuxServer(tmux.run, { TMUX_TMPDIR: '/nonexistent' });
    expect(await up(server.socket)).toBe(true);
    expect(tmux.calls()).toBe(1);
  });
});

// tmux leaves its socket file behind when its server ends; `macs stop`
// removes it, and nothing else.
describe('removeStaleSocket', () => {
  let server: TestTmuxServer | undefined;
  afterEach(async () => {
    await server?.kill();
    server = undefined;
  });

  async function killedServer(): Promise<string> {
    server = await startTmuxServer();
    const pid = Number(
      (await server.tmux('display-message', '-p', '#{pid}')).trim(),
    );
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !existsSync(`/proc/${pid}`), {
      message: 'the killed tmux server to end',
    });
    return tmuxSocketPath(server.socket, childEnv(), process.getuid!());
  }

  it('removes the socket file of a server that ended', async () => {
    const file = await killedServer();
    expect(existsSync(file)).toBe(true);
    expect(await removeStaleSocket(server?.socket, childEnv())).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it('keeps the socket of a server that runs', async () => {
    server = await startTmuxServer();
    const file = tmuxSocketPath(server.socket, childEnv(), process.getuid!());
    expect(await removeStaleSocket(server.socket, childEnv())).toBe(false);
    expect(existsSync(file)).toBe(true);
    expect((await server.tmux('display-message', '-p', 'up')).trim()).toBe(
      'up',
    );
  });

  it('keeps anything at that place that is not a socket, and a path name', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-probe-'));
    try {
      const env = { TMUX_TMPDIR: dir };
      const file = tmuxSocketPath('plain', env, process.getuid!());
      mkdirSync(path.dirname(file));
      writeFileSync(file, 'not a socket');
      expect(await removeStaleSocket('plain', env)).toBe(false);
      expect(existsSync(file)).toBe(true);
      expect(await removeStaleSocket(file, env)).toBe(false);
      expect(await removeStaleSocket(undefined, env)).toBe(false);
      expect(existsSync(file)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
