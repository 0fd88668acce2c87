/**
 * `macs stop` (SPEC §5): the session's panes are stopped in order
 * (stop-panes.ts), the tmux server or session goes, and whatever of the
 * session's processes is still alive after that (session-processes.ts) is
 * ended by its pid. The agents' states say `dead` and the record is removed.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import type { HomePaths } from '../home/paths.js';
import type { TmuxClient } from '../tmux/client.js';
import {
  buildKillSessionArgs,
  buildListSessionsArgs,
} from '../tmux/session-args.js';
import {
  SESSION_NAME,
  markSessionStopping,
  recordStoppedSession,
  removeSessionRecord,
  type SessionRecord,
} from './record.js';
import { removeStaleSocket } from '../tmux/probe.js';
import { isSessionRunning } from './tmux-check.js';
import { isProcessAlive } from '../state/process.js';
import {
  acquireAgentLock,
  loadAgentState,
  saveAgentState,
} from '../state/store.js';
import { selfAndAncestors, sessionProcesses } from './session-processes.js';
import {
  STOP_POLL_MS,
  sortSessionPanes,
  stopPanes,
  type StoppedPane,
} from './stop-panes.js';

/** After the server is gone, a leftover process gets this long after SIGTERM. */
const LEFTOVER_GRACE_MS = 1000;

export interface StopResult {
  /** Was a session running at all? */
  running: boolean;
  socket: string | undefined;
  agents: StoppedPane[];
  windows: StoppedPane[];
  /** Processes of the session still alive after its panes were gone, then ended. */
  leftovers: number[];
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
  // Before anything stops: a person's attached `macs start` whose client
  // ends now tells a stop from a lost server (record.ts).
  if (record)
    await markSessionStopping(paths).catch((error: unknown) =>
      log.warn({ err: error }, 'could not mark the session stopping'),
    );
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

  // The bridge first: nothing is typed into an agent that is stopping, and
  // nobody is called (attention) about agents that end because of this stop.
  const {
    agents: agentPanes,
    bridges,
    views,
  } = sortSessionPanes(panes, record);
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
  // tmux leaves its socket file behind; one per home otherwise piles up.
  if (sessions.length === 0) await removeStaleSocket(tmux.socket);

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
