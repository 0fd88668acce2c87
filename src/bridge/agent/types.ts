/**
 * Types shared by the agent's hook link and the stages it drives (the
 * hooks' approvals and deliveries), so that none of them imports the link;
 * and what a reading of the pane hands on (`Observation`).
 */
import type { AgentStateName } from '../../config/states.js';
import type { PaneInfo } from '../../tmux/client.js';
import type { MacsConfig } from '../../config/schema.js';
import type { EventInput } from '../../events/types.js';
import type { HomePaths } from '../../home/paths.js';
import type { Logger } from '../../log/logger.js';
import type { AgentStateFile, RequestRecord } from '../../state/types.js';

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

/**
 * What a reading of the pane found, handed on as a value (the supervisor
 * gives each to the room that takes it):
 * - `size`: the pane's size (intake keeps its screen reader at it; under
 *   `serial`),
 * - `idle`: the agent read idle on this screen (intake's heuristic
 *   triggers; under `serial`, right after the state was recorded),
 * - `screen`: the screen's own reading, hooks aside (approvals look for a
 *   permission dialog; not under `serial`); a dead pane reads `''`, `dead`.
 */
export type Observation =
  | { type: 'size'; info: PaneInfo }
  | { type: 'idle'; screen: string }
  | {
      type: 'screen';
      screen: string;
      state: AgentStateName;
      /** When the capture was asked for (epoch ms). */
      capturedAt: number;
    };
