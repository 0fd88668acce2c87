/**
 * The one way in for a request, whatever found it (a block in the pane's
 * output, a hook's approval, a dialog on the screen): put among the open
 * requests, saved, `request.detected`, then, for an approval, the config's
 * approval rules. Returns what happened, for its caller to hand on (route
 * it, or apply the rule's decision). Runs under the context's `serial`.
 */
import type { MacsConfig } from '../../config/schema.js';
import type { EventInput } from '../../events/types.js';
import type { ApprovalRuleVerdict } from '../../hooks/policy-verdict.js';
import { addDetected } from '../../state/ledger.js';
import type { AgentStateFile, RequestRecord } from '../../state/types.js';
import { answerByRule } from './approval-rules.js';

/** What raising a request needs of the agent's context. */
export interface RaiseHost {
  readonly config: Pick<MacsConfig, 'policy'>;
  current: () => AgentStateFile;
  saveNow: () => Promise<void>;
  emit: (input: Omit<EventInput, 'agent'>) => Promise<void>;
}

/** A raised request: to be routed, or answered already by a rule. */
export type RaiseResult =
  { type: 'raised' } | { type: 'ruled'; verdict: ApprovalRuleVerdict };

/**
 * Raise a new request. `detected`: its `request.detected` event's data;
 * `seen`: anything else to record in the state with it, before it is saved
 * (the dedup keys of a block).
 */
export async function raiseRequest(
  host: RaiseHost,
  record: RequestRecord,
  detected: Record<string, unknown>,
  seen?: (state: AgentStateFile) => void,
): Promise<RaiseResult> {
  const state = host.current();
  addDetected(state, record);
  seen?.(state);
  await host.saveNow();
  await host.emit({
    type: 'request.detected',
    requestId: record.id,
    data: detected,
  });
  const verdict = await answerByRule(record, host);
  return verdict ? { type: 'ruled', verdict } : { type: 'raised' };
}
