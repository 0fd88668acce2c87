/**
 * What a reading of the agent's pane hands on (`Observation`), beside the
 * reader so the supervisor and its tests need not import the reader.
 */
import type { AgentStateName } from '../../config/states.js';
import type { HookObservation } from '../../state/hook-files.js';
import type { PaneInfo } from '../../tmux/client.js';

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

/**
 * What a look at the files `macs hook` leaves found, handed on as a value
 * (hook-link.ts; the supervisor gives each to the room that takes it), in
 * this order in each look:
 * - `call`: a hook called (its observation is new, the hooks' status
 *   recorded): the answers room hands over the answers a Stop hook claimed,
 * - `prompt`: the latest observation, for the last prompt the agent
 *   accepted: the answers room confirms the answers typed before it,
 * - `requests`: the folder of hook requests is to be looked at: the
 *   approvals room takes the approvals a hook asks for, and closes those
 *   it gave up on.
 */
export type HookSeen =
  | { type: 'call' }
  | { type: 'prompt'; observation: HookObservation | undefined }
  | { type: 'requests' };
