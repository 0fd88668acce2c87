import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnv, tmuxSocketPath } from './tmux-server.js';

const execFileAsync = promisify(execFile);

/** A private socket name for one test: never the default or a shared server. */
export function testSocket(): string {
  return `macs-test-${randomBytes(4).toString('hex')}`;
}

/** Run tmux on a private socket; resolves to stdout, or undefined when tmux fails. */
export async function tmuxOn(
  socket: string,
  ...args: string[]
): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync('tmux', ['-L', socket, ...args], {
      env: childEnv(),
    });
    return stdout;
  } catch {
    return undefined;
  }
}

export async function isServerUp(socket: string): Promise<boolean> {
  return (await tmuxOn(socket, 'list-sessions')) !== undefined;
}

/** `ps` lines (pid and command line) that mention any of the needles. */
export function processesMentioning(...needles: string[]): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => needles.some((n) => line.includes(n)))
    .filter((line) => !/\bps -eo\b/.test(line))
    .map((line) => line.trim());
}

/** Processes whose environment holds any of `entries` (Linux /proc). */
export function processesWithEnv(...entries: string[]): number[] {
  return readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      const env = readFileSync(`/proc/${name}/environ`, 'latin1').split('\0');
      return entries.some((e) => env.includes(e)) ? [Number(name)] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}

/** A running process; a zombie (exited, not yet reaped by its parent) is not. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return !existsSync('/proc/self'); // gone meanwhile, or no /proc at all
  }
}

export interface SessionFile {
  socket: string;
  panes: { bridge: string; status: string };
  agents: {
    name: string;
    role: string;
    preset: string;
    pane: string;
    pid?: number;
    cwd: string;
    worktree?: { path: string; branch: string };
    prompt?: { file: string; promptedAt?: string };
  }[];
}

export function readSessionFile(home: string): SessionFile | undefined {
  const file = path.join(home, '.macs', 'session.json');
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as SessionFile;
}

export function readStateFile(
  home: string,
  agent: string,
): Record<string, unknown> | undefined {
  const file = path.join(home, '.macs', 'state', `${agent}.json`);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined; // mid-rename
  }
}

/**
 * After a test: whatever of the session is still there goes (the server,
 * and by pid any process whose command line names the home or the socket).
 */
export async function cleanUpSession(
  home: string,
  socket: string,
): Promise<void> {
  await tmuxOn(socket, 'kill-server');
  rmSync(tmuxSocketPath(socket), { force: true });
  const pids = [
    ...processesMentioning(home, socket).map((line) =>
      Number(line.split(/\s+/, 1)[0]),
    ),
    // An agent that outlives the hang-up and names neither in its command
    // line (Gemini CLI's relaunched child): found by the environment macs
    // gave it.
    ...processesWithEnv(`MACS_HOME=${home}`, `MACS_TMUX_SOCKET=${socket}`),
  ];
  for (const pid of new Set(pids)) {
    if (pid && pid !== process.pid) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}
