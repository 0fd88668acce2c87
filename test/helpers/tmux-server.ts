import { execFileSync, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CHILD_HOME_VARIABLE } from './child-home.js';

const execFileAsync = promisify(execFile);

/** True when a tmux binary runs. Integration tests fail (not skip) in CI without it. */
export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The environment for test children: never pointing at a live tmux session,
 * and, in the projects that start shells in panes, with a `HOME` of their
 * own (the empty folder of child-home.ts) unless the test gives one. The
 * shells in test panes are interactive bash, which reads `~/.bashrc`: a
 * person's rc file slowed them, and one that runs `pyenv rehash`, killed
 * mid-way with its pane, left a lock behind that made every later shell of
 * that person wait 60 s. ssh finds its own files by the user's entry in the
 * password database, not by `HOME`.
 */
export function childEnv(
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const home = process.env[CHILD_HOME_VARIABLE];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(home ? { HOME: home } : {}),
    ...extra,
  };
  delete env.TMUX;
  delete env.TMUX_PANE;
  // The agents in test panes stand for a person's terminal, even when the
  // suite runs in CI: Gemini CLI starts headless when CI or GITHUB_ACTIONS
  // is "true" (docs/agents.md, "Gemini CLI").
  for (const key of ['CI', 'GITHUB_ACTIONS'])
    if (!(key in extra)) delete env[key];
  for (const key of Object.keys(env)) {
    if (key.startsWith('MACS_') && !(key in extra)) delete env[key];
  }
  return env;
}

export interface TestTmuxServer {
  socket: string;
  /** Run tmux on the private server; returns stdout. */
  tmux(...args: string[]): Promise<string>;
  /** Start a pane (new window) running argv; returns its pane id. */
  spawnPane(
    argv: string[],
    options?: {
      width?: number;
      height?: number;
      cwd?: string;
      env?: Record<string, string>;
    },
  ): Promise<string>;
  capture(pane: string): Promise<string>;
  kill(): Promise<void>;
}

function quote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** The pids of the tmux servers this test process started and has not ended. */
const startedServers = new Set<number>();

function killServerProcess(pid: number): void {
  startedServers.delete(pid);
  try {
    // Still running, and still tmux (a pid is reused only once it is gone).
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('tmux'))
      return;
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

// A test process that ends before its tests' clean-up ran (a timeout, a
// crash) takes its servers with it.
process.once('exit', () => {
  for (const pid of [...startedServers]) killServerProcess(pid);
});

/**
 * A private tmux server (`tmux -L macs-test-<random> -f /dev/null`) with one
 * placeholder session. Never touches the user's default server.
 */
export async function startTmuxServer(): Promise<TestTmuxServer> {
  const socket = `macs-test-${randomBytes(4).toString('hex')}`;
  const env = childEnv();
  const run = async (args: string[]) => {
    const { stdout } = await execFileAsync('tmux', ['-L', socket, ...args], {
      env,
    });
    return stdout;
  };
  await execFileAsync(
    'tmux',
    [
      '-L',
      socket,
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      'test',
      '-x',
      '120',
      '-y',
      '40',
    ],
    { env },
  );
  await run(['set-option', '-g', 'remain-on-exit', 'on']);
  const pid = Number((await run(['display-message', '-p', '#{pid}'])).trim());
  if (pid > 0) startedServers.add(pid);
  let counter = 0;
  return {
    socket,
    tmux: (...args) => run(args),
    async spawnPane(argv, options = {}) {
      counter += 1;
      const envArgs = Object.entries({ ...options.env }).flatMap(([k, v]) => [
        '-e',
        `${k}=${v}`,
      ]);
      const out = await run([
        'new-window',
        '-d',
        '-P',
        '-F',
        '#{pane_id}',
        '-n',
        `w${counter}`,
        ...(options.cwd ? ['-c', options.cwd] : []),
        ...envArgs,
        argv.map(quote).join(' '),
      ]);
      const pane = out.trim();
      if (options.width || options.height) {
        await run([
          'resize-window',
          '-t',
          pane,
          '-x',
          String(options.width ?? 120),
          '-y',
          String(options.height ?? 40),
        ]);
      }
      return pane;
    },
    capture: (pane) => run(['capture-pane', '-p', '-t', pane]),
    async kill() {
      try {
        await run(['kill-server']);
      } catch {
        // already gone (a test may have killed it), or not answering
      }
      // Not reached by its socket (removed, or the server hung): by pid, so
      // no test leaves a tmux server running.
      killServerProcess(pid);
      // tmux leaves its socket file behind: remove it too, or every test
      // run leaves files in /tmp/tmux-<uid>/.
      rmSync(tmuxSocketPath(socket), { force: true });
    },
  };
}

/** Where tmux keeps the socket of `tmux -L name` (tmux(1), -L). */
export function tmuxSocketPath(name: string): string {
  return path.join(
    process.env.TMUX_TMPDIR ?? '/tmp',
    `tmux-${String(process.getuid?.() ?? 0)}`,
    name,
  );
}

/** A private temporary home folder, removed by the returned cleanup. */
export function makeTempHome(prefix = 'macs-home-'): {
  home: string;
  cleanup: () => void;
} {
  const home = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { home, cleanup: () => removeTestDir(home) };
}

/**
 * Remove a test's temporary folder. A process the test started (a hook run
 * by an agent in a pane that was just killed, a macs that is stopping) may
 * still be writing for a moment: retried on ENOTEMPTY rather than fail the
 * test in its cleanup.
 */
export function removeTestDir(dir: string | undefined): void {
  if (dir)
    rmSync(dir, {
      recursive: true,
      force: true,
      maxRetries: 10,
      retryDelay: 100,
    });
}
