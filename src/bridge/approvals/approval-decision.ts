/**
 * Pure: what an answer to an approval decides, and who decided it, for the
 * hook approvals (a decision file for the waiting hook) and the screen
 * approvals (the dialog's keys) alike. The answer's first word decides
 * (protocol/approval.ts); a rule that decided says so itself, since its
 * answer's source already names it.
 */
import {
  deciderOf,
  parseApprovalAnswer,
  type Decider,
} from '../../protocol/approval.js';
import type { ApprovalDecision } from '../../state/hook-files.js';
import type { ApprovalVerdict, StoredResponse } from '../../state/types.js';

/** An approval's decision, who took it and why. */
export interface ApprovalRuling extends Decider {
  decision: ApprovalDecision;
  /** The whole answer: the reason the agent sees. */
  reason: string;
  /**
   * False when the answer began with no decision word (then it is a deny);
   * a decision given outright (a rule's) is always recognized.
   */
  recognized: boolean;
}

/**
 * The ruling an answer stands for. `given` (a rule's verdict) decides and
 * names the decider instead of the answer's first word and source; the
 * reason is the answer's text either way.
 */
export function rulingOf(
  response: StoredResponse | undefined,
  given?: Decider & { decision: ApprovalDecision },
): ApprovalRuling {
  const answer = parseApprovalAnswer(
    response?.instructions || response?.raw || '',
  );
  const decider = given ?? deciderOf(response?.source ?? '', response?.by);
  return {
    decision: given?.decision ?? answer.decision,
    decidedBy: decider.decidedBy,
    via: decider.via,
    reason: answer.reason,
    recognized: given !== undefined || answer.recognized,
  };
}

/** The verdict a request records (`record.decision`), taken at `at`. */
export function verdictOf(ruling: ApprovalRuling, at: string): ApprovalVerdict {
  return {
    decision: ruling.decision,
    decidedBy: ruling.decidedBy,
    via: ruling.via,
    reason: ruling.reason,
    at,
  };
}

/** What a `request.delivered` event says of the ruling. */
export function rulingEventData(ruling: ApprovalRuling): {
  decision: ApprovalDecision;
  decidedBy: ApprovalRuling['decidedBy'];
  via: string;
  unrecognized?: true;
} {
  return {
    decision: ruling.decision,
    decidedBy: ruling.decidedBy,
    via: ruling.via,
    ...(ruling.recognized ? {} : { unrecognized: true }),
  };
}
