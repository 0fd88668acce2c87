/**
 * Pure: a permission dialog on a worker's screen as an approval request
 * (docs/backends.md, "Approvals from screens"). What a reading of the screen
 * means for the open dialog approvals (one to raise, ones to expire), the
 * record a new one is raised with, and why a decision must not be applied
 * to the pane as it is now (then nothing is pressed).
 */
import { hashBody } from '../../protocol/ids.js';
import {
  normalizeDialogText,
  type DialogReading,
} from '../../screen/dialog.js';
import { detectedRecord } from '../../state/ledger.js';
import type { AgentStateFile, RequestRecord } from '../../state/types.js';
import type { AgentStateName } from '../../config/states.js';
import type { PaneInfo } from '../../tmux/client.js';
import {
  checkOrigin,
  type AgentIncarnation,
} from '../requests/check-origin.js';

/** The tool name dialog approvals carry for the approval rules. */
export const DIALOG_TOOL = 'dialog';

/**
 * Claude Code's PermissionRequest hook asks for its dialogs itself: no
 * dialog approval while its hooks may be working (only once they are
 * known inactive), nor while a hook's approval is open. `hooks`: the
 * preset's kind of hooks.
 */
export function dialogApprovalsEnabled(
  hooks: string | undefined,
  state: AgentStateFile,
): boolean {
  if (hooks !== 'claude') return true;
  const status = state.hooks?.status;
  if (status !== 'inactive' && status !== 'off') return false;
  return !Object.values(state.requests).some((r) => r.origin === 'hook');
}

/** Screen states that say for sure no dialog is waiting. */
const NOT_A_DIALOG: readonly AgentStateName[] = [
  'working',
  'idle',
  'error',
  'dead',
];

/**
 * What the dialog approvals remember between readings (shared by raising
 * and applying them).
 */
export interface DialogMemory {
  /**
   * The dialog whose request ended while it stayed on the screen (keys that
   * did not close it, a pane check that failed): not raised again until it
   * leaves, so nothing loops on it.
   */
  settled: string | undefined;
  /** When a request was last raised, or keys last pressed (epoch ms). */
  lastActionAt: number;
}

/** The fingerprint a dialog approval was raised with. */
export function fingerprintOf(record: RequestRecord): string | undefined {
  return record.approval?.fingerprint ?? record.attributes.fingerprint;
}

/** A pane's program name as a request attribute (`[A-Za-z0-9._:-]`). */
export function programAttribute(command: string): string {
  return command.replace(/[^A-Za-z0-9._:-]/g, '_').slice(0, 64) || '_';
}

/**
 * Does this reading say for sure which dialog, if any, the screen shows?
 * `reading`: the dialog read from a screen classified `screenState`.
 */
export function isDefinite(
  reading: DialogReading | undefined,
  screenState: AgentStateName,
): boolean {
  return reading !== undefined || NOT_A_DIALOG.includes(screenState);
}

/**
 * Why an open dialog approval ends after a reading (its dialog left the
 * screen or changed before a decision), or undefined when it stays. An
 * answered one is left alone: it is re-checked when it is applied, at once.
 */
export function staleReason(
  record: RequestRecord,
  reading: DialogReading | undefined,
  screenState: AgentStateName,
): string | undefined {
  if (record.stage !== 'detected' && record.stage !== 'routed')
    return undefined;
  if (!isDefinite(reading, screenState)) return undefined;
  if (reading?.fingerprint === fingerprintOf(record)) return undefined;
  return reading
    ? 'the dialog on the screen changed before a decision; nothing was pressed'
    : `the dialog left the screen before a decision (answered at the screen, or the agent went on; the screen reads ${screenState}); nothing was pressed`;
}

/**
 * Does the dialog read call for a new request: not the settled one, and
 * none of the open dialog approvals asks it already?
 */
export function isNewDialog(
  reading: DialogReading,
  settled: string | undefined,
  open: readonly RequestRecord[],
): boolean {
  if (reading.fingerprint === settled) return false;
  return !open.some((r) => fingerprintOf(r) === reading.fingerprint);
}

/** What is known of a dialog when its request is raised. */
export interface DialogSighting {
  id: string;
  agent: string;
  pane: string;
  /** The pid of the program in the pane that showed it. */
  panePid: number;
  /** The pane's program (`#{pane_current_command}`). */
  command: string;
  session?: string;
  reading: DialogReading;
  /** When it was raised (ISO). */
  detectedAt: string;
}

/** The record of a new dialog approval. */
export function dialogApprovalRecord(sighting: DialogSighting): RequestRecord {
  const { reading } = sighting;
  return detectedRecord({
    id: sighting.id,
    agent: sighting.agent,
    type: 'approval',
    priority: 'high',
    attributes: {
      type: 'approval',
      origin: 'screen',
      dialog: reading.name,
      fingerprint: reading.fingerprint,
      program: programAttribute(sighting.command),
    },
    approval: {
      source: 'screen',
      tool: DIALOG_TOOL,
      subject: normalizeDialogText(reading.text.split('\n')),
      fingerprint: reading.fingerprint,
    },
    bodyHash: hashBody(reading.text),
    body: reading.text,
    detectedAt: sighting.detectedAt,
    origin: 'screen',
    pane: sighting.pane,
    panePid: sighting.panePid,
    ...(sighting.session ? { session: sighting.session } : {}),
  });
}

/** What the `request.detected` event of a dialog approval says. */
export function dialogDetectedData(
  record: RequestRecord,
  logOffset: number,
): Record<string, unknown> {
  return {
    type: 'approval',
    priority: 'high',
    origin: 'screen',
    attributes: record.attributes,
    fingerprint: fingerprintOf(record),
    chars: record.body.length,
    bodyHash: record.bodyHash,
    logOffset,
  };
}

/**
 * Why a dialog approval's decision can never be applied, from its record
 * alone: no fingerprint to check the dialog by, or no program to check the
 * pane by. Undefined when it may be checked.
 */
export function recordBlocker(record: RequestRecord): string | undefined {
  if (!fingerprintOf(record)) return 'no fingerprint was kept for this dialog';
  if (record.panePid === undefined)
    return 'the program that showed the dialog is not known (a state rebuilt from the event log)';
  return undefined;
}

/**
 * Why the decision must not be applied to the pane as it is now (`info`:
 * its facts read just now, undefined when it is gone): undefined when the
 * agent as it runs now asked it (requests/check-origin.ts checkOrigin: session,
 * pane, program, tag) and the program's name is still the one seen.
 */
export function paneBlocker(
  record: RequestRecord,
  now: AgentIncarnation,
  info: PaneInfo | undefined,
): string | undefined {
  const origin = checkOrigin(record, now, info ?? 'gone');
  if (origin.type !== 'asker') return origin.reason;
  if (!info) return `pane ${now.pane} is gone`;
  const program = record.attributes.program;
  if (program && programAttribute(info.currentCommand) !== program)
    return `pane ${now.pane} now runs ${info.currentCommand}, not the program that showed the dialog`;
  return undefined;
}

/**
 * Why the decision must not be applied to the dialog the screen shows now
 * (`reading`, undefined when none): undefined when it is the one asked.
 */
export function screenBlocker(
  record: RequestRecord,
  reading: DialogReading | undefined,
): string | undefined {
  if (!reading) return 'the dialog is no longer on the screen';
  if (reading.fingerprint !== fingerprintOf(record))
    return 'the dialog on the screen changed since it was asked';
  return undefined;
}
