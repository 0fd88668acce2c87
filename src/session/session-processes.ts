/**
 * The processes of a macs session, for `macs stop` to end what outlives
 * the session's panes: the trees under the panes' programs, and the
 * processes that carry the session's environment after their parent is
 * gone. Read from Linux /proc; elsewhere only the panes' own programs are
 * known.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';

export interface ProcEntry {
  pid: number;
  ppid: number;
  sid: number;
}

/** Every process of this machine with its parent and session (Linux /proc). */
async function readProcTable(): Promise<ProcEntry[] | undefined> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return undefined;
  }
  const table: ProcEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.push({
        pid: Number(name),
        ppid: Number(fields[1]),
        sid: Number(fields[3]),
      });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/**
 * Every process whose session id is one of `sids` (a pane's program is a
 * session leader, so this finds its children too). Linux /proc; elsewhere
 * only the leaders themselves are known.
 */
export async function listSessionProcesses(
  sids: ReadonlySet<number>,
): Promise<number[]> {
  const table = await readProcTable();
  if (!table) return [...sids];
  return table.filter((p) => sids.has(p.sid)).map((p) => p.pid);
}

/**
 * Pure: the processes that descend from `roots` (roots included), through
 * any depth of parents, and every process in the session of one of them.
 * A program may start helpers in sessions of their own (`setsid`): Codex
 * 0.169 starts `codex app-server --managed-daemon` so, as a child of the
 * agent; they are still its descendants while the agent runs.
 */
export function processTree(
  table: readonly ProcEntry[],
  roots: ReadonlySet<number>,
): number[] {
  const children = new Map<number, number[]>();
  for (const p of table)
    children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const found = new Set<number>();
  const queue = [...roots];
  const sessions = new Set<number>();
  for (const p of table) if (roots.has(p.pid)) sessions.add(p.sid);
  for (const p of table) if (sessions.has(p.sid)) queue.push(p.pid);
  while (queue.length > 0) {
    const pid = queue.pop() as number;
    if (found.has(pid)) continue;
    found.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return [...found].filter((pid) => table.some((p) => p.pid === pid));
}

/**
 * Processes started from this session's agent panes that no longer descend
 * from them: a daemon whose parent (the agent) already exited. macs gives
 * every agent `MACS_AGENT`, `MACS_HOME` and `MACS_TMUX_SOCKET` (SPEC §7)
 * and children inherit them, so a process whose environment holds all
 * three, for this home and this server, and that shares this process's
 * mount namespace, belongs to the session. Linux /proc; other users'
 * processes cannot be read and are never touched.
 */
export async function listTaggedProcesses(
  home: string,
  socket: string,
): Promise<number[]> {
  const table = await readProcTable();
  if (!table) return [];
  const wanted = [`MACS_HOME=${home}`, `MACS_TMUX_SOCKET=${socket}`];
  // Only processes that see the files this one sees: a process of another
  // mount namespace (a container, a test host on this machine) may carry
  // the same home path and socket name, and is another session's.
  const ownMounts = await readlink('/proc/self/ns/mnt').catch(() => undefined);
  const found: number[] = [];
  for (const { pid } of table) {
    try {
      if (
        ownMounts !== undefined &&
        (await readlink(`/proc/${String(pid)}/ns/mnt`)) !== ownMounts
      )
        continue;
      const env = (
        await readFile(`/proc/${String(pid)}/environ`, 'latin1')
      ).split('\0');
      if (
        wanted.every((entry) => env.includes(entry)) &&
        env.some((entry) => entry.startsWith('MACS_AGENT='))
      )
        found.push(pid);
    } catch {
      // another user's, or gone
    }
  }
  return found;
}

/** Every process of a session: its panes' trees and what carries its tag. */
export async function sessionProcesses(
  roots: ReadonlySet<number>,
  home: string,
  socket: string | undefined,
): Promise<number[]> {
  const table = await readProcTable();
  const tree = table ? processTree(table, roots) : [...roots];
  const tagged = socket ? await listTaggedProcesses(home, socket) : [];
  return [...new Set([...tree, ...tagged])];
}

/** This process and its ancestors: never ended by a stop run inside the session. */
export async function selfAndAncestors(): Promise<Set<number>> {
  const mine = new Set<number>([process.pid, process.ppid]);
  const table = await readProcTable();
  if (!table) return mine;
  let pid = process.ppid;
  for (let i = 0; i < 64 && pid > 1; i += 1) {
    const entry = table.find((p) => p.pid === pid);
    if (!entry) break;
    mine.add(entry.ppid);
    pid = entry.ppid;
  }
  return mine;
}
