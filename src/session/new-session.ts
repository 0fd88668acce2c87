/**
 * `macs start`'s new session on this machine (docs/session.md): refused
 * while one runs, then the earlier session's open requests expired, the
 * approvals' policy chosen (the hub's or the home's own), and the agents,
 * bridge and status windows started on the home's private server.
 */
import type { MacsConfig } from '../config/schema.js';
import { MacsError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import { removeHubPolicy, writeHubPolicy } from '../home/hub-policy.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { createTmuxClient } from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';
import type { FromHub } from './from-hub.js';
import { planAgents } from './plan.js';
import { newSessionId, readSessionRecord } from './record.js';
import { hinter, resolveMacsArgv, type Invocation } from './self-command.js';
import {
  expireEarlierRequests,
  type ExpiryReport,
} from './session-requests.js';
import { defaultSessionSocket } from './session-socket.js';
import type { DemoRun } from './start-flags.js';
import { startSession, type StartedSession } from './start-session.js';
import { isSessionRunning } from './tmux-check.js';

/** A home as a command sees it: its paths, and its log (made on first use). */
export interface HomeAccess {
  paths: HomePaths;
  readonly log: Logger;
}

/** What a new session of this machine needs. */
export interface NewSession {
  inv: Invocation;
  home: HomeAccess;
  runTmux: RunTmux;
  config: MacsConfig;
  /** An explicit config file (`--config`), passed on to the bridge. */
  configFile?: string;
  demo?: DemoRun;
  /** On a host: what its hub sent (`--from-hub`). */
  hub?: FromHub;
}

/** The session started, on which tmux server. */
export interface LaunchedSession extends StartedSession {
  socket: string;
}

/**
 * Start this machine's new session. `onExpiry` hears which earlier
 * requests expired before the agents start.
 */
export async function launchNewSession(
  s: NewSession,
  onExpiry: (report: ExpiryReport) => void,
): Promise<LaunchedSession> {
  const { paths } = s.home;
  const agents = planAgents(s.config, paths.home);
  await refuseRunningSession(s);
  // A new session: the given server, else the home's own (a stale record's is not reused).
  const socket =
    s.inv.tmuxSocket ?? (await defaultSessionSocket(paths, s.inv.env));
  const events = createEventLog(paths);
  // Requests still open from an earlier session: its agents are gone, and
  // the new ones never asked them. Expired (archived), never delivered.
  const sessionId = newSessionId();
  onExpiry(
    await expireEarlierRequests({
      paths,
      events,
      log: s.home.log.child({ component: 'start' }),
      session: sessionId,
    }),
  );
  // The hub's rules for this session's approvals, or this home's own
  // again (home/hub-policy.ts).
  if (s.hub) await writeHubPolicy(paths.runtime, s.hub.policy);
  else await removeHubPolicy(paths.runtime);
  try {
    const started = await startSession({
      tmux: createTmuxClient(socket, s.runTmux),
      paths,
      config: s.config,
      agents,
      socket,
      macsArgv: resolveMacsArgv(),
      ...(s.configFile ? { configFile: s.configFile } : {}),
      ...(s.demo ? { demo: s.demo } : {}),
      events,
      log: s.home.log.child({ component: 'start' }),
      env: s.inv.env,
      sessionId,
    });
    return { ...started, socket };
  } catch (error) {
    const hint = hinter(s.inv);
    if (error instanceof MacsError && /already running/.test(error.message)) {
      throw new MacsError(error.message, {
        hint: `attach to it with \`${hint('attach')}\`, or end it with \`${hint('stop')}\``,
        cause: error,
      });
    }
    throw error;
  }
}

/** A session of this home that runs already is refused, saying what to do. */
async function refuseRunningSession(s: NewSession): Promise<void> {
  const record = await readSessionRecord(s.home.paths);
  if (!record) return;
  const other = createTmuxClient(record.socket, s.runTmux);
  if (await isSessionRunning(other, record.session)) {
    const hint = hinter(s.inv);
    throw new MacsError(
      `a macs session is already running for ${s.home.paths.home} (tmux -L ${record.socket})`,
      {
        hint: `attach to it with \`${hint('attach')}\`, start its bridge and status again with \`${hint('start --resume')}\`, or end it with \`${hint('stop')}\``,
      },
    );
  }
}
