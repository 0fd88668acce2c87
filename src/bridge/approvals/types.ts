/**
 * Types the approvals' modules share: what the screen's dialogs need from
 * their supervisor (beside its users, so dialog-apply.ts never imports
 * dialog-approvals.ts).
 */
import type { PresetDialog } from '../../config/presets/types.js';
import type { MacsConfig } from '../../config/schema.js';
import type { AgentStateName } from '../../config/states.js';
import type { EventInput } from '../../events/types.js';
import type { DialogReading } from '../../screen/dialog.js';
import type { AgentStateFile, RequestRecord } from '../../state/types.js';
import type { TmuxClient } from '../../tmux/client.js';

/** What dialog approvals need from their supervisor. */
export interface DialogApprovalHost {
  agent: string;
  pane: string;
  config: MacsConfig;
  /**
   * The preset's permission dialog, read at each use (the agent's preset
   * may follow the pane's program); undefined: none is raised or applied.
   */
  readonly dialog: PresetDialog | undefined;
  tmux: TmuxClient;
  session?: string;
  /** Classify a captured screen with the preset's rules. */
  classify: (screen: string) => AgentStateName;
  /**
   * May a new dialog approval be raised for this dialog now (false while
   * hooks ask instead)?
   */
  enabled: (reading: DialogReading) => boolean;
  /** The pid of the program in the pane now (`#{pane_pid}`). */
  panePid: () => number | undefined;
  serial: <T>(task: () => Promise<T>) => Promise<T>;
  current: () => AgentStateFile;
  emit: (input: Omit<EventInput, 'agent'>) => Promise<void>;
  saveNow: () => Promise<void>;
  /** A request id unique across agents (state/request-ids.ts). */
  claimId: (candidate: string) => Promise<string>;
  /** Route to the answerers (runs under `serial`). */
  route: (record: RequestRecord) => Promise<void>;
  /** Apply an answered one soon, outside `serial` (the supervisor's delivery). */
  schedule: (record: RequestRecord) => void;
  /** A person paused delivery to this agent: no key is pressed meanwhile. */
  isPaused: (record: RequestRecord) => boolean;
  /** How long the dialog may take to leave after the keys (DIALOG_CONFIRM_MS). */
  confirmMs?: number;
  /** End an open request unanswered (runs under `serial`). */
  expire: (record: RequestRecord, reason: string) => Promise<void>;
  /** Archive a finished request (runs under `serial`). */
  finish: (record: RequestRecord) => Promise<void>;
}
