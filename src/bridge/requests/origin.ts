/**
 * A request's origin: whether the agent as it runs now (its session, its
 * pane, the program in it) is the one that asked (docs/reliability.md).
 */
import type { RequestRecord } from '../../state/types.js';

/** Who may take a request's answer now: the pane, its program and the session. */
export interface AgentIncarnation {
  pane: string;
  panePid?: number;
  session?: string;
}

/**
 * Pure: why a request may not be answered into the agent as it runs now,
 * or undefined when it may. A request is answered only in the session it
 * was asked in, into the pane it was read from, running the program that
 * asked (docs/reliability.md). Fields a record lacks (written by an older
 * version) are not checked.
 */
export function originMismatch(
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
