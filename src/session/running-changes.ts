/**
 * `macs add` and `macs restart` on this machine: the running session of
 * the home opened (refused, saying how to start one, when none runs) and
 * changed (change-agents.ts).
 */
import type { MacsConfig } from '../config/schema.js';
import { createEventLog } from '../events/log.js';
import type { RunTmux } from '../tmux/run.js';
import { addAgent, restartAgent, type SessionChange } from './change-agents.js';
import type { HomeAccess } from './new-session.js';
import type { Invocation } from './self-command.js';
import { openRunningSession } from './session-socket.js';

/** What changing the running session needs. */
export interface RunningAccess {
  inv: Invocation;
  home: HomeAccess;
  runTmux: RunTmux;
  config: MacsConfig;
}

/** `macs add`: a new worker in a new pane of the running session. */
export async function addToRunningSession(
  s: RunningAccess,
  spec: Parameters<typeof addAgent>[1],
): ReturnType<typeof addAgent> {
  return addAgent(await openChange(s, 'add'), spec);
}

/** `macs restart`: an agent's program run again in its pane. */
export async function restartInRunningSession(
  s: RunningAccess,
  agent: string,
  options: { fresh: boolean },
): ReturnType<typeof restartAgent> {
  const change = await openChange(s, 'restart');
  return restartAgent({ ...change, env: s.inv.env }, agent, options);
}

async function openChange(
  s: RunningAccess,
  component: string,
): Promise<SessionChange> {
  const { paths } = s.home;
  const { record, tmux } = await openRunningSession(s.inv, s.runTmux, paths);
  return {
    tmux,
    paths,
    record,
    config: s.config,
    events: createEventLog(paths),
    log: s.home.log.child({ component }),
  };
}
