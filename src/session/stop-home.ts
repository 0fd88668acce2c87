/**
 * `macs stop` on this machine: the home's session found (its record, its
 * server) and stopped (stop-session.ts), and how many requests it leaves
 * open (they expire at the next start).
 */
import { createEventLog } from '../events/log.js';
import { listOpenRequests } from '../state/pending.js';
import { createTmuxClient } from '../tmux/client.js';
import type { RunTmux } from '../tmux/run.js';
import type { HomeAccess } from './new-session.js';
import { readSessionRecord } from './record.js';
import { resolveSessionSocket } from './session-socket.js';
import { stopSession, type StopResult } from './stop-session.js';

/** What `macs stop` did here. */
export interface HomeStopped {
  /** The tmux server it looked on. */
  socket: string;
  result: StopResult;
  /** Requests still open afterwards. */
  open: number;
}

/** Stop the home's session, each program given `graceSec` to exit. */
export async function stopHomeSession(s: {
  home: HomeAccess;
  runTmux: RunTmux;
  env: NodeJS.ProcessEnv;
  tmuxSocket?: string;
  graceSec: number;
}): Promise<HomeStopped> {
  const { paths } = s.home;
  const record = await readSessionRecord(paths);
  const socket = await resolveSessionSocket(s, paths, s.env, record);
  const result = await stopSession({
    tmux: createTmuxClient(socket, s.runTmux),
    paths,
    graceMs: s.graceSec * 1000,
    events: createEventLog(paths),
    log: s.home.log.child({ component: 'stop' }),
    ...(record ? { record } : {}),
  });
  const open = result.running ? (await listOpenRequests(paths)).length : 0;
  return { socket, result, open };
}
