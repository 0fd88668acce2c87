/**
 * `macs start --resume` after a reboot: the session's tmux server is gone
 * and its agents with it, but `.macs/session.json` still says what ran.
 * The session comes back as it was recorded, not as the config would make
 * a new one (a session of `--worker` flags has no config at all): each
 * agent in a pane of its own, in its folder (its worktree), with the exact
 * command and environment it was launched with, continuing its
 * conversation where its program can (resume-launch.ts). It is a new
 * session (a new id): requests still open were expired before this runs.
 */
import { stat } from 'node:fs/promises';
import { MacsError } from '../errors.js';
import { emitSafely, type EventSink } from '../events/log.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import type { TmuxClient } from '../tmux/client.js';
import { prepareAndRunInPane } from './launch.js';
import { asSessionError, removeHalfSession } from './start-session.js';
import {
  recordNewSession,
  removeSessionRecord,
  writeSessionRecord,
  type AgentLaunch,
  type SessionAgentRecord,
  type SessionRecord,
} from './record.js';
import { chooseLaunch, type LaunchChoice } from './resume-launch.js';
import {
  addSessionPanes,
  newAgentsSession,
  startSessionWindows,
} from './session-panes.js';
import { isSessionRunning } from './tmux-check.js';

/** What became of one agent of the session. */
export type RevivedAgent =
  | { name: string; pane: string; outcome: 'resumed'; conversation: string }
  | {
      name: string;
      pane: string;
      outcome: 'fresh';
      why?: string;
      conversation?: string;
    }
  /** Not started: its pane says why, and the agent shows as dead. */
  | { name: string; pane: string; outcome: 'failed'; why: string };

export interface RevivedSession {
  record: SessionRecord;
  agents: RevivedAgent[];
}

/** What a pane of an agent that could not come back runs: it says why, then ends. */
function failureLaunch(cwd: string, why: string, agent: string): AgentLaunch {
  return {
    argv: [
      'sh',
      '-c',
      `printf 'macs: this agent could not be resumed: %s\\nhint: fix that, then: macs restart %s\\n' "$1" "$2" >&2; exit 1`,
      'macs-resume',
      why,
      agent,
    ],
    cwd,
    env: {},
  };
}

async function isFolder(dir: string): Promise<boolean> {
  return stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** Why an agent cannot be started again; undefined when it can. */
async function reviveProblem(
  entry: SessionAgentRecord,
): Promise<string | undefined> {
  if (!entry.launch)
    return 'the session was started by an older macs, which did not record how it was launched';
  if (!(await isFolder(entry.launch.cwd)))
    return `its folder ${entry.launch.cwd} is gone`;
  return undefined;
}

/** Bring the recorded session back on `tmux`'s server (which must not run it). */
export async function reviveSession(options: {
  tmux: TmuxClient;
  paths: HomePaths;
  /** The session as it was recorded before the reboot. */
  previous: SessionRecord;
  socket: string;
  macsArgv: readonly string[];
  configFile?: string;
  sessionId: string;
  events: EventSink;
  log: Logger;
  env: NodeJS.ProcessEnv;
}): Promise<RevivedSession> {
  const { tmux, paths, previous, socket, events, log } = options;
  if (previous.agents.length === 0)
    throw new MacsError('the recorded session has no agents to bring back');
  if (await isSessionRunning(tmux))
    throw new MacsError(
      `a macs session is already running on tmux -L ${socket}`,
    );
  const serverWasRunning = await tmux.isServerRunning();
  const problems = await Promise.all(previous.agents.map(reviveProblem));
  const cwdOf = (index: number) => {
    const entry = previous.agents[index];
    return !problems[index] && entry?.launch ? entry.launch.cwd : paths.home;
  };
  let created = false;
  try {
    const firstPane = await newAgentsSession(tmux, cwdOf(0));
    created = true;
    const panes = await addSessionPanes(
      tmux,
      paths,
      firstPane,
      previous.agents.slice(1).map((_, i) => cwdOf(i + 1)),
    );
    const entries: SessionAgentRecord[] = [];
    const revived: RevivedAgent[] = [];
    for (const [index, old] of previous.agents.entries()) {
      const pane = panes.agents[index] ?? firstPane;
      const entry: SessionAgentRecord = {
        ...old,
        pane,
        ...(old.prompt ? { prompt: { ...old.prompt } } : {}),
      };
      delete entry.pid;
      const problem = problems[index];
      let choice: LaunchChoice | undefined;
      if (!problem && old.launch) {
        choice = await chooseLaunch({
          paths,
          agent: old.name,
          preset: old.preset,
          launch: old.launch,
          resume: true,
          env: options.env,
        });
      }
      const pid = await prepareAndRunInPane(
        tmux,
        paths,
        pane,
        old.name,
        choice?.launch ?? failureLaunch(cwdOf(index), problem ?? '', old.name),
      );
      if (pid && choice) entry.pid = pid;
      // A conversation that goes on already has the protocol; a new one not.
      if (entry.prompt && choice?.type !== 'resumed')
        delete entry.prompt.promptedAt;
      entries.push(entry);
      revived.push(
        !choice
          ? { name: old.name, pane, outcome: 'failed', why: problem ?? '' }
          : choice.type === 'resumed'
            ? {
                name: old.name,
                pane,
                outcome: 'resumed',
                conversation: choice.conversation,
              }
            : {
                name: old.name,
                pane,
                outcome: 'fresh',
                ...(choice.why ? { why: choice.why } : {}),
                ...(choice.conversation
                  ? { conversation: choice.conversation }
                  : {}),
              },
      );
    }
    const record = await recordNewSession(paths, {
      ...previous,
      id: options.sessionId,
      socket,
      resumed: {
        ...(previous.id ? { from: previous.id } : {}),
        at: new Date().toISOString(),
        agents: revived.map(({ pane: _pane, ...agent }) => agent),
      },
      panes: { bridge: panes.bridge, status: panes.status },
      agents: entries,
    });
    await startSessionWindows(tmux, {
      paths,
      socket,
      macsArgv: options.macsArgv,
      ...(options.configFile ? { configFile: options.configFile } : {}),
      bridge: panes.bridge,
      status: panes.status,
    });
    for (const agent of revived) {
      const { name, ...data } = agent;
      await emitSafely(events, log, {
        agent: name,
        type: 'agent.resumed',
        data: { ...data, session: record.id },
      });
    }
    await emitSafely(events, log, {
      agent: 'session',
      type: 'session.resumed',
      data: {
        session: record.id,
        ...(previous.id ? { from: previous.id } : {}),
        socket,
        agents: revived.map((a) => ({ name: a.name, outcome: a.outcome })),
      },
    });
    return { record, agents: revived };
  } catch (error) {
    if (created) {
      log.error(
        { err: error },
        'session resume failed; removing what was made',
      );
      await removeHalfSession(tmux, serverWasRunning);
      // The previous record stays: it is what a second try needs.
      await writeSessionRecord(paths, previous).catch(() =>
        removeSessionRecord(paths),
      );
    }
    throw asSessionError(error, 'resume');
  }
}
