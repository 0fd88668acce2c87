/**
 * A request's origin: whether the agent as it runs now (its session, its
 * pane, the program in it, the agent the pane is tagged for) is the one
 * that asked (docs/reliability.md). `checkOrigin` is the one check, made
 * wherever an answer could reach the agent: right before an answer is typed
 * (answers/answers.ts `stillAsked`), before a dialog's keys are pressed
 * (approvals/dialog-checks.ts `paneBlocker`), and for the open requests of
 * a restarted bridge or program (requests/request-steps.ts `endForeign`).
 * Pure.
 */
import type { RequestRecord } from '../../state/types.js';
import type { PaneInfo } from '../../tmux/client.js';
import type { AgentIncarnation } from '../agent-context.js';

export type { AgentIncarnation } from '../agent-context.js';

/** The pane's facts, read just now (`gone`: it could not be read). */
export type PaneNow = Pick<PaneInfo, 'dead' | 'agentTag' | 'pid'> | 'gone';

/** Whether the agent as it runs now asked the request, and if not why. */
export type OriginVerdict =
  | { type: 'asker' }
  /** Asked in another session or pane, or by a program since restarted. */
  | { type: 'elsewhere'; reason: string }
  /** The pane is gone or its program ended. */
  | { type: 'gone'; reason: string }
  /** The pane is now tagged for another agent. */
  | { type: 'retagged'; tag: string; reason: string }
  /** The pane runs another program (`pid`) than the one that asked. */
  | { type: 'restarted'; pid: number; reason: string };

/**
 * Is the agent as it runs now (`now`, and the pane's facts read just now
 * when given) the one that asked `record`? A request is answered only in
 * the session it was asked in, into the pane it was read from, running the
 * program that asked, tagged for its agent. Fields a record lacks (written
 * by an older version) are not checked against the record.
 */
export function checkOrigin(
  record: Pick<RequestRecord, 'pane' | 'panePid' | 'session'>,
  now: AgentIncarnation,
  paneNow?: PaneNow,
): OriginVerdict {
  const elsewhere = fromRecord(record, now);
  if (elsewhere !== undefined) return { type: 'elsewhere', reason: elsewhere };
  if (paneNow === undefined) return { type: 'asker' };
  if (paneNow === 'gone')
    return { type: 'gone', reason: `pane ${now.pane} is gone` };
  if (paneNow.dead)
    return { type: 'gone', reason: `the program in pane ${now.pane} ended` };
  if (paneNow.agentTag && paneNow.agentTag !== now.agent)
    return {
      type: 'retagged',
      tag: paneNow.agentTag,
      reason: `pane ${now.pane} is now tagged for agent '${paneNow.agentTag}'`,
    };
  const asked = record.panePid ?? now.panePid;
  if (paneNow.pid !== asked)
    return {
      type: 'restarted',
      pid: paneNow.pid,
      reason: `pane ${now.pane} runs another program (pid ${String(paneNow.pid)}) than the one that asked`,
    };
  return { type: 'asker' };
}

/** Why the record was not asked by the agent as it runs now, from the record alone. */
function fromRecord(
  record: Pick<RequestRecord, 'pane' | 'panePid' | 'session'>,
  now: AgentIncarnation,
): string | undefined {
  if (record.session !== undefined && record.session !== now.session)
    return now.session
      ? `asked in an earlier macs session (${record.session}); this is session ${now.session}`
      : `asked in macs session ${record.session}, which has ended`;
  if (record.pane !== undefined && record.pane !== now.pane)
    return `asked in pane ${record.pane}; the agent now runs in pane ${now.pane}`;
  if (
    record.panePid !== undefined &&
    now.panePid !== undefined &&
    record.panePid !== now.panePid
  )
    return `the program in pane ${now.pane} was restarted since it asked (pid ${record.panePid}, now ${now.panePid})`;
  return undefined;
}

/** Is this a request raised from a dialog on the screen? */
export function isDialogApproval(
  record: Pick<RequestRecord, 'origin'>,
): boolean {
  return record.origin === 'screen';
}
