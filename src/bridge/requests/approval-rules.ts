/**
 * The config's approval rules (hooks/policy-verdict.ts) as the bridge applies them,
 * before any answerer sees an approval: which rules a hook's approval and a
 * dialog's are held to (pure), and how the answer a matching rule stands
 * for is recorded on the request, for both alike.
 */
import type { MacsConfig } from '../../config/schema.js';
import type { EventInput } from '../../events/types.js';
import {
  evaluateApprovalRules,
  ruleAnswer,
  type ApprovalRuleVerdict,
} from '../../hooks/policy-verdict.js';
import { takeStep } from '../../state/take-step.js';
import type { ApprovalInfo, RequestRecord } from '../../state/types.js';

type ApprovalPolicy = Pick<MacsConfig['policy'], 'deny' | 'allow'>;

/** Pure: the rule that decides a hook's approval, if any (every rule applies). */
export function hookRuleVerdict(
  approval: ApprovalInfo,
  policy: ApprovalPolicy,
): ApprovalRuleVerdict | undefined {
  return evaluateApprovalRules(
    { tool: approval.tool, subjects: [approval.subject] },
    policy,
  );
}

/**
 * Pure: the rule that decides a dialog's approval, if any, against the
 * dialog's text. Which tool a dialog is for is not known, so every deny
 * rule applies whatever tool it names (refusing more is safe), and an allow
 * rule only when it names a tool matching `dialog`: the text also holds
 * what the model wrote about the call.
 */
export function dialogRuleVerdict(
  approval: ApprovalInfo,
  policy: ApprovalPolicy,
): ApprovalRuleVerdict | undefined {
  return evaluateApprovalRules(
    { tool: approval.tool, subjects: [approval.subject] },
    {
      deny: policy.deny.map(({ tool: _tool, ...rule }) => rule),
      allow: policy.allow.filter((rule) => rule.tool !== undefined),
    },
  );
}

/**
 * Pure: the rule that decides an approval request, if any: a hook's
 * approval by hookRuleVerdict, a dialog's by dialogRuleVerdict; none for a
 * request that is no approval.
 */
export function ruleVerdictOf(
  record: Pick<RequestRecord, 'approval' | 'origin'>,
  policy: ApprovalPolicy,
): ApprovalRuleVerdict | undefined {
  const approval = record.approval;
  if (!approval) return undefined;
  return record.origin === 'screen'
    ? dialogRuleVerdict(approval, policy)
    : hookRuleVerdict(approval, policy);
}

/**
 * The config's approval rules, before any answerer, for the hook and the
 * dialog approvals alike: a rule that matches answers the approval at once
 * (`answered`, saved, `request.answered` with `decidedBy: rule`). Returns
 * the rule's verdict, or undefined when none decided. Runs under `serial`.
 */
export async function answerByRule(
  record: RequestRecord,
  host: {
    readonly config: Pick<MacsConfig, 'policy'>;
    saveNow: () => Promise<void>;
    emit: (input: Omit<EventInput, 'agent'>) => Promise<void>;
  },
): Promise<ApprovalRuleVerdict | undefined> {
  const verdict = ruleVerdictOf(record, host.config.policy);
  if (!verdict) return undefined;
  const now = new Date().toISOString();
  const response = ruleAnswer(verdict, now);
  await takeStep(
    host,
    record,
    { type: 'answered', at: now, response },
    {
      type: 'request.answered',
      data: {
        source: response.source,
        decidedBy: 'rule',
        via: verdict.rule.name,
        chars: response.instructions.length,
      },
    },
  );
  return verdict;
}
