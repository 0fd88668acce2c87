import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import type { EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import type { HomePaths } from '../home/paths.js';
import type { PaneInfo, TmuxClient } from '../tmux/client.js';
import {
  buildKillPaneArgs,
  buildKillSessionArgs,
  buildListSessionsArgs,
} from '../tmux/session-args.js';
import { BRIDGE_WINDOW, STATUS_WINDOW } from './layout.js';
import {
  SESSION_NAME,
  recordStoppedSession,
  removeSessionRecord,
  type SessionRecord,
} from './record.js';
import { isSessionRunning } from './start.js';
import { isProcessAlive } from '../state/process.js';
import {
  acquireAgentLock,
  loadAgentState,
  saveAgentState,
} from '../state/store.js';

/** The key that asks a program to stop (SIGINT through the terminal). */
export const INTERRUPT_KEY = 'C-c';
const STOP_POLL_MS = 100;
/** After the server is gone, a leftover process gets this long after SIGTERM. */
const LEFTOVER_GRACE_MS = 1000;

export type PaneEnding = 'exited' | 'killed' | 'already-exited';

export interface StoppedPane {
  name: string;
  pane: string;
  ended: PaneEnding;
}

export interface StopResult {
  /** Was a session running at all? */
  running: boolean;
  socket: string | undefined;
  agents: StoppedPane[];
  windows: StoppedPane[];
  /** Processes of the session still alive after its panes were gone, then ended. */
  leftovers: number[];
}

interface ProcEntry {
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
 * three, for this home and this server, belongs to the session. Linux /proc; other users'
 * processes cannot be read and are never touched.
 */
export async function listTaggedProcesses(
  home: string,
  socket: string,
): Promise<number[]> {
  const table = await readProcTable();
  if (!table) return [];
  const wanted = [`MACS_HOME=${home}`, `MACS_TMUX_SOCKET=${socket}`];
  const found: number[] = [];
  for (const { pid } of table) {
    try {
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
async function sessionProcesses(
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
async function selfAndAncestors(): Promise<Set<number>> {
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

/**
 * Ask the programs in these panes to stop: the interrupt key, and again
 * halfway through the grace period (several agents want it twice), then
 * `kill-pane` for those still running.
 */
async function stopPanes(
  tmux: TmuxClient,
  panes: readonly { name: string; info: PaneInfo }[],
  graceMs: number,
): Promise<StoppedPane[]> {
  const results = new Map<string, StoppedPane>();
  const running = panes.filter(({ info, name }) => {
    if (!info.dead) return true;
    results.set(info.id, { name, pane: info.id, ended: 'already-exited' });
    return false;
  });
  const alive = async (pane: string): Promise<boolean> =>
    tmux.paneInfo(pane).then(
      (info) => !info.dead,
      () => false,
    );
  const interrupt = (pane: string) =>
    tmux.sendKey(pane, INTERRUPT_KEY).catch(() => undefined);
  await Promise.all(running.map(({ info }) => interrupt(info.id)));
  const deadline = Date.now() + graceMs;
  let again = Date.now() + graceMs / 2;
  let waiting = running;
  while (waiting.length > 0 && Date.now() < deadline) {
    await delay(STOP_POLL_MS);
    const still: typeof waiting = [];
    for (const item of waiting) {
      if (await alive(item.info.id)) still.push(item);
      else
        results.set(item.info.id, {
          name: item.name,
          pane: item.info.id,
          ended: 'exited',
        });
    }
    waiting = still;
    if (Date.now() >= again) {
      again = Infinity;
      await Promise.all(waiting.map(({ info }) => interrupt(info.id)));
    }
  }
  for (const item of waiting) {
    await tmux.command(buildKillPaneArgs(item.info.id)).catch(() => undefined);
    results.set(item.info.id, {
      name: item.name,
      pane: item.info.id,
      ended: 'killed',
    });
  }
  return panes.map(
    ({ name, info }) =>
      results.get(info.id) ?? { name, pane: info.id, ended: 'killed' },
  );
}

/**
 * After the session's panes are gone: each agent's state says `dead`, so
 * `macs status` does not show a stopped agent as idle. An agent whose lock
 * another live bridge holds (a bridge outside the session) is left alone.
 */
async function markAgentsStopped(
  paths: HomePaths,
  record: SessionRecord | undefined,
  log: Logger,
): Promise<void> {
  for (const agent of record?.agents ?? []) {
    let release: (() => Promise<void>) | undefined;
    try {
      release = await acquireAgentLock(paths, agent.name);
      const loaded = await loadAgentState(paths, agent.name, agent.preset);
      if (loaded.type === 'fresh') continue;
      const state = loaded.state;
      if (state.state !== 'dead') {
        state.state = 'dead';
        state.stateSource = 'pane';
        state.stateSince = new Date().toISOString();
      }
      await saveAgentState(paths, state);
    } catch (error) {
      log.warn({ err: error, agent: agent.name }, 'could not mark stopped');
    } finally {
      await release?.();
    }
  }
}

/**
 * End the session of `macs start` (SPEC §5): its bridge first (so nothing
 * is typed into an agent that is stopping, and nobody is called about
 * agents ended by the stop), then the agents (interrupt key, then kill-pane
 * after the grace period), then the status view the same way, then the
 * tmux server. Any process of the session's panes still alive afterwards (a
 * child that ignored SIGHUP) is ended by its pid. The session record is
 * removed; the agents' states say `dead`.
 */
export async function stopSession(options: {
  tmux: TmuxClient;
  paths: HomePaths;
  graceMs: number;
  events: EventSink;
  log: Logger;
  record?: SessionRecord;
}): Promise<StopResult> {
  const { tmux, paths, graceMs, events, log, record } = options;
  if (!(await isSessionRunning(tmux))) {
    await removeSessionRecord(paths);
    return {
      running: false,
      socket: tmux.socket,
      agents: [],
      windows: [],
      leftovers: [],
    };
  }
  const panes = (await tmux.listPanes()).filter(
    (p) => p.sessionName === SESSION_NAME,
  );
  const sids = new Set(
    panes.filter((p) => !p.dead && p.pid > 0).map((p) => p.pid),
  );
  const socket = record?.socket ?? tmux.socket;
  // Taken while the agents run: their helpers in sessions of their own
  // (daemons) are still their descendants now.
  const before = await sessionProcesses(sids, paths.home, socket);

  const agentPanes = panes
    .filter((p) => p.agentTag)
    .map((info) => ({ name: info.agentTag, info }));
  const windowPanes = panes
    .filter(
      (p) =>
        !p.agentTag &&
        (p.id === record?.panes.bridge ||
          p.id === record?.panes.status ||
          p.windowName === BRIDGE_WINDOW ||
          p.windowName === STATUS_WINDOW),
    )
    .map((info) => ({
      name:
        info.id === record?.panes.status || info.windowName === STATUS_WINDOW
          ? STATUS_WINDOW
          : BRIDGE_WINDOW,
      info,
    }));

  // The bridge first: nothing is typed into an agent that is stopping, and
  // nobody is called (attention) about agents that end because of this stop.
  const bridges = windowPanes.filter((p) => p.name === BRIDGE_WINDOW);
  const views = windowPanes.filter((p) => p.name !== BRIDGE_WINDOW);
  const stoppedBridges = await stopPanes(tmux, bridges, graceMs);
  const agents = await stopPanes(tmux, agentPanes, graceMs);
  const windows = [
    ...stoppedBridges,
    ...(await stopPanes(tmux, views, graceMs)),
  ];

  const sessions = (await tmux.command(buildListSessionsArgs()).catch(() => ''))
    .split('\n')
    .filter((s) => s && s !== SESSION_NAME);
  if (sessions.length === 0) await tmux.killServer();
  else
    await tmux
      .command(buildKillSessionArgs(SESSION_NAME))
      .catch(() => undefined);
  const deadline = Date.now() + 2000;
  while (
    sessions.length === 0 &&
    (await tmux.isServerRunning()) &&
    Date.now() < deadline
  )
    await delay(STOP_POLL_MS);

  // Whatever of the session is still running now ignored every signal so
  // far, or was never sent one (a daemon in a session of its own).
  const spare = await selfAndAncestors();
  const leftovers = [
    ...new Set([
      ...before,
      ...(await sessionProcesses(sids, paths.home, socket)),
    ]),
  ].filter((pid) => !spare.has(pid) && isProcessAlive(pid));
  for (const pid of leftovers) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone
    }
  }
  const until = Date.now() + LEFTOVER_GRACE_MS;
  while (leftovers.some(isProcessAlive) && Date.now() < until)
    await delay(STOP_POLL_MS);
  for (const pid of leftovers.filter(isProcessAlive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }

  await markAgentsStopped(paths, record, log);
  await recordStoppedSession(paths, record);
  await removeSessionRecord(paths);
  await events
    .emit({
      agent: 'session',
      type: 'session.stopped',
      data: {
        socket: tmux.socket ?? null,
        agents: agents.map((a) => ({ name: a.name, ended: a.ended })),
        leftovers: leftovers.length,
      },
    })
    .catch((error: unknown) =>
      log.warn({ err: error }, 'could not record session.stopped'),
    );
  return { running: true, socket: tmux.socket, agents, windows, leftovers };
}
