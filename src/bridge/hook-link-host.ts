/**
 * What the agent's hook link (agent/hook-link.ts) and the stages it drives
 * (answers/hook-deliveries.ts, approvals/hook-approvals.ts) need from their
 * supervisor: kept beside agent-context.ts, in no room, so that neither of
 * those rooms imports the agent room for it.
 */
import type { MacsConfig } from '../config/schema.js';
import type { EventInput } from '../events/types.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import type { AgentStateFile, RequestRecord } from '../state/types.js';

/** What the link needs from its supervisor. */
export interface HookLinkHost {
  agent: string;
  paths: HomePaths;
  config: MacsConfig;
  /** The agent's preset name (its `hooks` says which hooks to expect). */
  preset: string;
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
  /** Read the agent's state again (screen and hooks). */
  refreshState: () => Promise<unknown>;
}
