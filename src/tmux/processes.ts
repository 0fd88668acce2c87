/**
 * What runs in a pane: the pane's process and its descendants, with their
 * argv. tmux's `#{pane_current_command}` names only the foreground process,
 * which for an npm-installed agent is `node` (its argv is
 * `node …/bin/gemini` or `node …/bundle/gemini.js`); discovery by program
 * looks at the whole tree instead.
 *
 * Read from /proc (Linux: every process's parent in `/proc/<pid>/stat`, its
 * argv in `/proc/<pid>/cmdline`); without /proc, from `ps -A -o
 * pid=,ppid=,args=` (argv split at spaces).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  argv: string[];
  /** Its process group (from /proc only). */
  pgrp?: number;
}

/** The parent pid from a `/proc/<pid>/stat` line (the field after the state). */
export function parseStatPpid(stat: string): number | undefined {
  // `pid (comm) state ppid …`: comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

async function readProcTable(): Promise<ProcessInfo[] | undefined> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return undefined;
  }
  const pids = names.filter((n) => /^\d+$/.test(n));
  if (pids.length === 0) return undefined;
  const table = await Promise.all(
    pids.map(async (name): Promise<ProcessInfo | undefined> => {
      try {
        const [stat, cmdline] = await Promise.all([
          readFile(`/proc/${name}/stat`, 'utf8'),
          readFile(`/proc/${name}/cmdline`, 'utf8'),
        ]);
        const ppid = parseStatPpid(stat);
        if (ppid === undefined) return undefined;
        const argv = cmdline.split('\0');
        if (argv[argv.length - 1] === '') argv.pop();
        const pgrp = parseStatGroups(stat)?.pgrp;
        return {
          pid: Number(name),
          ppid,
          argv,
          ...(pgrp === undefined ? {} : { pgrp }),
        };
      } catch {
        return undefined; // ended meanwhile, or not ours to read
      }
    }),
  );
  return table.filter((p): p is ProcessInfo => p !== undefined);
}

/**
 * A `/proc/<pid>/stat` line's process group and its terminal's foreground
 * process group (proc(5): fields 5 and 8).
 */
export function parseStatGroups(
  stat: string,
): { pgrp: number; tpgid: number } | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const pgrp = Number(fields[2]);
  const tpgid = Number(fields[5]);
  return Number.isInteger(pgrp) && Number.isInteger(tpgid)
    ? { pgrp, tpgid }
    : undefined;
}

/**
 * The processes of a pane that its terminal runs in the foreground (the
 * process group a key typed now would reach), with their argv: for a shell
 * at its prompt the shell alone, for a shell running `sleep 20` the sleep.
 * Undefined when it cannot be known (no /proc, or the pane's process ended).
 */
export async function readForegroundProcesses(
  panePid: number,
): Promise<ProcessInfo[] | undefined> {
  return (await readPaneForeground(panePid))?.processes;
}

/**
 * A pane's terminal as its processes see it: the process group in its
 * foreground (`pgid`: the group a key typed now reaches), that group's
 * processes, and every process of the pane (`tree`, the pane's process
 * first). Undefined when it cannot be known (no /proc, or the pane's
 * process ended).
 */
export interface PaneForeground {
  pgid: number;
  processes: ProcessInfo[];
  tree: ProcessInfo[];
}

export async function readPaneForeground(
  panePid: number,
): Promise<PaneForeground | undefined> {
  let tpgid: number | undefined;
  try {
    tpgid = parseStatGroups(
      await readFile(`/proc/${panePid}/stat`, 'utf8'),
    )?.tpgid;
  } catch {
    return undefined;
  }
  if (tpgid === undefined || tpgid <= 0) return undefined;
  const table = await readProcTable();
  if (!table) return undefined;
  const tree = processTree(table, panePid);
  return {
    pgid: tpgid,
    processes: tree.filter((p) => p.pgrp === tpgid),
    tree,
  };
}

/** Longest command line shown to a person (`python3 ask.py --long …`). */
const SHOWN_COMMAND_CHARS = 60;

/**
 * The processes still running: an ended one not yet reaped (a zombie) has
 * no command line left.
 */
export function liveProcesses(
  processes: readonly ProcessInfo[],
): ProcessInfo[] {
  return processes.filter((p) => p.argv.length > 0);
}

/**
 * A process group as a person would name it: its leader's command line
 * (else its first live process's), the program's folder left out
 * (`python3 ask.py`, `node agent.mjs`, `sleep 30`). An ended process not
 * yet reaped has no command line and is passed over; `?` when none has one.
 */
export function describeGroup(
  processes: readonly ProcessInfo[],
  pgid?: number,
): string {
  const live = liveProcesses(processes);
  const leader = live.find((p) => p.pid === pgid) ?? live[0];
  if (!leader) return '?';
  const [command = '', ...args] = leader.argv;
  const shown = [path.basename(command), ...args].join(' ');
  return shown.length > SHOWN_COMMAND_CHARS
    ? `${shown.slice(0, SHOWN_COMMAND_CHARS - 1)}…`
    : shown;
}

/** Parse `ps -A -o pid=,ppid=,args=` output. */
export function parsePsTable(stdout: string): ProcessInfo[] {
  return stdout.split('\n').flatMap((line) => {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!m) return [];
    return [
      {
        pid: Number(m[1]),
        ppid: Number(m[2]),
        argv: (m[3] ?? '').trim().split(/\s+/),
      },
    ];
  });
}

async function readPsTable(): Promise<ProcessInfo[]> {
  const { execa } = await import('execa');
  const result = await execa('ps', ['-A', '-o', 'pid=,ppid=,args='], {
    reject: false,
    stdin: 'ignore',
    maxBuffer: 16 * 1024 * 1024,
  });
  return result.exitCode === 0 ? parsePsTable(String(result.stdout)) : [];
}

/** Every process of the machine (that this user may see), with its parent. */
export async function readProcessTable(): Promise<ProcessInfo[]> {
  return (await readProcTable()) ?? (await readPsTable());
}

/** A process and all its descendants in a table, the process first. */
export function processTree(
  table: readonly ProcessInfo[],
  root: number,
): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const p of table) {
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const tree: ProcessInfo[] = [];
  const seen = new Set<number>();
  const queue = table.filter((p) => p.pid === root);
  while (queue.length > 0) {
    const p = queue.shift();
    if (!p || seen.has(p.pid)) continue;
    seen.add(p.pid);
    tree.push(p);
    queue.push(...(children.get(p.pid) ?? []));
  }
  return tree;
}

/**
 * Interpreters whose first non-option argument is the program they run
 * (`node /usr/lib/node_modules/@openai/codex/bin/codex.js`).
 */
const INTERPRETERS =
  /^(?:node|nodejs|bun|deno|tsx|python[\d.]*|pypy[\d.]*|ruby|perl)$/;

/** A script's program name: its base name without a script extension. */
function programName(file: string): string {
  return path.basename(file).replace(/\.(?:[cm]?js|ts|py|rb|pl)$/, '');
}

/**
 * The programs one argv runs: its command's base name and, for an
 * interpreter, the name of the script it runs (`node …/bin/gemini` runs
 * `node` and `gemini`).
 */
export function programsOf(argv: readonly string[]): string[] {
  const command = argv[0];
  if (!command) return [];
  const names = [path.basename(command)];
  if (INTERPRETERS.test(names[0] ?? '')) {
    // The first argument that is not an option (deno's `run` is skipped).
    const script = argv
      .slice(1)
      .find((arg) => !arg.startsWith('-') && arg !== 'run');
    if (script) names.push(programName(script));
  }
  return names;
}

/** Does any process of a pane's tree run `program`? */
export function treeRunsProgram(
  tree: readonly ProcessInfo[],
  program: string,
): boolean {
  return tree.some((p) => programsOf(p.argv).includes(program));
}

/**
 * Whether a process is blocked waiting for input rather than running or
 * waiting for a child it started: its state in `/proc/<pid>/stat` (`R` is
 * running) and the kernel function it sleeps in (`/proc/<pid>/wchan`:
 * `do_wait` is a shell waiting for a command of a loop or a script).
 * `undefined` when it cannot be read (no /proc, a kernel that hides wchan).
 */
export async function readWaitsForInput(
  pid: number,
): Promise<boolean | undefined> {
  try {
    const [stat, wchan] = await Promise.all([
      readFile(`/proc/${pid}/stat`, 'utf8'),
      readFile(`/proc/${pid}/wchan`, 'utf8'),
    ]);
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    if (state === 'R') return false;
    const where = wchan.trim();
    if (where === '' || where === '0') return undefined;
    return where !== 'do_wait';
  } catch {
    return undefined;
  }
}

/**
 * Whether a process group waits for input: none of its processes runs, and
 * not every one of them only waits for a child (a script running a command,
 * a shell between two commands of a loop). `undefined` when no process of
 * it could be read.
 */
export async function readGroupWaitsForInput(
  processes: readonly Pick<ProcessInfo, 'pid'>[],
): Promise<boolean | undefined> {
  const states = await Promise.all(
    processes.map((p) => readProcessWait(p.pid)),
  );
  const read = states.filter((w) => w !== undefined);
  if (read.length === 0) return undefined;
  if (read.some((w) => w === 'running')) return false;
  return read.some((w) => w === 'blocked');
}

/** What one process does now: runs, waits for a child, or is blocked on something else. */
async function readProcessWait(
  pid: number,
): Promise<'running' | 'child' | 'blocked' | undefined> {
  try {
    const [stat, wchan] = await Promise.all([
      readFile(`/proc/${pid}/stat`, 'utf8'),
      readFile(`/proc/${pid}/wchan`, 'utf8'),
    ]);
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    if (state === 'R') return 'running';
    if (state === 'Z' || state === 'X' || state === 'T' || state === 't')
      return 'child'; // ended or stopped: it takes no input
    return wchan.trim() === 'do_wait' ? 'child' : 'blocked';
  } catch {
    return undefined;
  }
}

/** One process's argv (`/proc/<pid>/cmdline`); undefined when it cannot be read. */
export async function readProcessArgv(
  pid: number,
): Promise<string[] | undefined> {
  try {
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    if (argv[argv.length - 1] === '') argv.pop();
    return argv.length > 0 ? argv : undefined;
  } catch {
    return undefined;
  }
}

/** Most parents looked at above a process (a loop in a bad table ends here). */
const MAX_ANCESTORS = 64;

/**
 * A process and its parents up to the first process, the process first:
 * walked in /proc, else in `ps`'s table. A process that ended meanwhile ends
 * the walk.
 */
export async function readProcessAncestors(
  pid: number,
): Promise<ProcessInfo[]> {
  const chain: ProcessInfo[] = [];
  let next = pid;
  try {
    while (next > 0 && chain.length < MAX_ANCESTORS) {
      const stat = await readFile(`/proc/${next}/stat`, 'utf8');
      const ppid = parseStatPpid(stat);
      const argv = (await readProcessArgv(next)) ?? [];
      chain.push({ pid: next, ppid: ppid ?? 0, argv });
      if (ppid === undefined) break;
      next = ppid;
    }
    return chain;
  } catch {
    if (chain.length > 0) return chain;
  }
  const table = new Map((await readPsTable()).map((p) => [p.pid, p]));
  for (
    let p = table.get(pid);
    p && chain.length < MAX_ANCESTORS;
    p = table.get(p.ppid)
  )
    chain.push(p);
  return chain;
}
