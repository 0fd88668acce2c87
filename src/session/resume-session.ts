/**
 * `macs start --resume` (docs/session.md): with the session running, its
 * bridge and status windows start again; after a reboot (the session's tmux
 * server gone, its agents with it), the recorded session comes back, each
 * agent continuing its conversation where its program can.
 */
import { MacsError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import { createTmuxClient } from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';
import type { HomeAccess } from './new-session.js';
import {
  newSessionId,
  readSessionRecord,
  type SessionRecord,
} from './record.js';
import { restartSessionWindows } from './restart-windows.js';
import { reviveSession, type RevivedAgent } from './revive.js';
import { hinter, resolveMacsArgv, type Invocation } from './self-command.js';
import {
  expireEarlierRequests,
  type ExpiryReport,
} from './session-requests.js';
import { isSessionRunning } from './tmux-check.js';

/** What `--resume` did. */
export type Resumed =
  /** The session ran: its bridge and status windows started again. */
  | { kind: 'running'; record: SessionRecord }
  /** A demo whose server is gone: its scripted agents have no conversation. */
  | { kind: 'demo-gone' }
  /** After a reboot: the recorded session on a new server, its agents back. */
  | {
      kind: 'revived';
      previous: SessionRecord;
      record: SessionRecord;
      agents: RevivedAgent[];
      socket: string;
    };

/**
 * Bring the recorded session back. `onExpiry` hears which requests
 * expired before a revived session's agents start.
 */
export async function resumeSession(
  s: { inv: Invocation; home: HomeAccess; runTmux: RunTmux },
  onExpiry: (report: ExpiryReport) => void,
): Promise<Resumed> {
  const { paths } = s.home;
  const record = await readSessionRecord(paths);
  if (!record)
    throw new MacsError(
      `there is no session to resume in ${paths.home} (no .macs/session.json: \`macs stop\` ends a session for good)`,
      { hint: `start a new one: ${hinter(s.inv)('start')}` },
    );
  const running = createTmuxClient(record.socket, s.runTmux);
  if (await isSessionRunning(running, record.session)) {
    // Its agents keep running (and keep their open requests).
    await restartSessionWindows({
      tmux: running,
      paths,
      record,
      macsArgv: resolveMacsArgv(),
      ...(record.config ? { configFile: record.config } : {}),
    });
    return { kind: 'running', record };
  }
  if (record.demo) return { kind: 'demo-gone' };
  return reviveAfterReboot(s, record, onExpiry);
}

/**
 * After a reboot: the recorded session on a new tmux server (the same
 * socket name), every agent as it was launched, continuing its
 * conversation where it can. Requests that were open are expired first,
 * as at any new start: the resumed agents are never typed an answer to a
 * question asked before the reboot.
 */
async function reviveAfterReboot(
  s: { inv: Invocation; home: HomeAccess; runTmux: RunTmux },
  previous: SessionRecord,
  onExpiry: (report: ExpiryReport) => void,
): Promise<Resumed> {
  const { paths } = s.home;
  const socket = s.inv.tmuxSocket ?? previous.socket;
  const events = createEventLog(paths);
  const log = s.home.log.child({ component: 'start' });
  const sessionId = newSessionId();
  onExpiry(
    await expireEarlierRequests({ paths, events, log, session: sessionId }),
  );
  const { record, agents } = await reviveSession({
    tmux: createTmuxClient(socket, s.runTmux),
    paths,
    previous,
    socket,
    macsArgv: resolveMacsArgv(),
    ...(previous.config ? { configFile: previous.config } : {}),
    sessionId,
    events,
    log,
    env: s.inv.env,
  });
  return { kind: 'revived', previous, record, agents, socket };
}
