/**
 * Types the approvals' modules share: what the screen's dialogs need from
 * their agent and from the rooms beside them (kept here so dialog-apply.ts
 * never imports dialog-approvals.ts).
 */
import type { DialogReading } from '../../screen/dialog.js';
import type { RequestRecord } from '../../state/types.js';
import type { AgentContext } from '../agent-context.js';
import type { RequestSteps } from '../requests/request-steps.js';

/**
 * What dialog approvals read of their agent's context: who and where it
 * is, its preset (`profile.dialog` and `profile.classify`, read at each use:
 * the preset may follow the pane's program), the program in the pane now
 * (`panePid`), the state, the event log and the queue (`serial`).
 */
export type DialogContext = Pick<
  AgentContext,
  | 'agent'
  | 'pane'
  | 'paths'
  | 'config'
  | 'tmux'
  | 'session'
  | 'profile'
  | 'panePid'
  | 'serial'
  | 'current'
  | 'emit'
  | 'saveNow'
>;

/** What dialog approvals need of the rooms beside them. */
export interface DialogApprovalHost {
  /** The requests room: route a raised one to its answerers (under `serial`). */
  route: (record: RequestRecord) => Promise<void>;
  /** The ledger's steps: end one unanswered, archive one finished (under `serial`). */
  steps: Pick<RequestSteps, 'closeUnanswered' | 'finish'>;
  /**
   * May a new dialog approval be raised for this dialog now (false while
   * hooks ask instead)?
   */
  enabled: (reading: DialogReading) => boolean;
  /** A person paused delivery to this agent: no key is pressed meanwhile. */
  isPaused: (record: RequestRecord) => boolean;
  /** How long the dialog may take to leave after the keys (DIALOG_CONFIRM_MS). */
  confirmMs?: number;
}
