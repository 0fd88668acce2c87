/**
 * What the stages that act on what `macs hook` leaves need from their
 * supervisor: `answers/hook-deliveries.ts` (a Stop hook's hand-overs, a
 * prompt's confirmations) and `approvals/hook-approvals.ts` (the approvals
 * a hook waits on). The agent's hook link (agent/hook-link.ts) reads the
 * files and hands on what it saw as a value (`HookSeen`); the supervisor
 * gives that to these stages. Kept beside agent-context.ts, in no room, so
 * that neither room imports the agent room, nor the agent room them.
 */
import type { MacsConfig } from '../config/schema.js';
import type { EventInput } from '../events/types.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import type { AgentStateFile, RequestRecord } from '../state/types.js';
import type { AgentContext } from './agent-context.js';

/** What the hook stages need from their supervisor. */
export interface HookStageHost {
  agent: string;
  paths: HomePaths;
  config: MacsConfig;
  log: Logger;
  /** The supervisor's serial queue: every state change runs through it. */
  serial: <T>(task: () => Promise<T>) => Promise<T>;
  current: () => AgentStateFile;
  emit: (input: Omit<EventInput, 'agent'>) => Promise<void>;
  saveNow: () => Promise<void>;
  /** Archive a finished request (runs under `serial`). */
  finish: (record: RequestRecord) => Promise<void>;
  /** Route a new request to its answerer like any other (runs under `serial`). */
  route: (record: RequestRecord) => Promise<void>;
}

/**
 * What delivery needs of the hooks beyond its own room (whose
 * hook-deliveries.ts holds the Stop hook's claims), given by the
 * supervisor.
 */
export interface DeliveryHookNeeds {
  /** The hook link: macs pressed the submit key (agent/hook-link.ts). */
  noteSubmitted: () => void;
  /** The approvals room: a hook's approval answered, its decision file written. */
  decideApproval: (record: RequestRecord) => Promise<void>;
}

/** The host of an agent's hook stages: its context, with the requests room's steps. */
export function hookStageHost(
  ctx: AgentContext,
  deps: Pick<HookStageHost, 'finish' | 'route'>,
): HookStageHost {
  const { agent, paths, config, log, serial } = ctx;
  const { current, emit, saveNow } = ctx;
  return { agent, paths, config, log, serial, current, emit, saveNow, ...deps };
}
