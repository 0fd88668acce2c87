/**
 * Pure: apply the tool policy (config `policy`, src/config/policy.ts) to a
 * tool call an agent is about to make. Deny rules are checked first, then
 * ask rules; anything else is left to the agent's own permission system
 * (macs never answers "allow" on its own).
 */
import type { PolicyConfig, PolicyRule } from '../config/policy-defaults.js';
import type { StoredResponse } from '../state/types.js';

export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
}

export type PolicyVerdict =
  | { type: 'pass' }
  | { type: 'deny' | 'ask'; rule: PolicyRule; subject: string };

/** Input fields that say what a tool call does, in the order they are shown. */
const SUBJECT_FIELDS = [
  'command',
  'file_path',
  'notebook_path',
  'path',
  'url',
  'pattern',
  'query',
] as const;

/**
 * What a tool call would act on: a Bash command, a file path, a URL, a
 * search pattern. A file's content (Write, Edit) is not a subject, so a
 * README that mentions `.env` is not a secret being read.
 */
export function toolSubjects(input: Record<string, unknown>): string[] {
  const subjects: string[] = [];
  for (const field of SUBJECT_FIELDS) {
    const value = input[field];
    if (typeof value === 'string' && value.trim()) subjects.push(value);
  }
  return subjects;
}

function compile(source: string, ignoreCase: boolean): RegExp | undefined {
  try {
    return new RegExp(source, ignoreCase ? 'i' : '');
  } catch {
    return undefined;
  }
}

function ruleMatches(
  rule: PolicyRule,
  call: ToolCall,
  subjects: readonly string[],
): string | undefined {
  if (rule.tool !== undefined) {
    const tool = compile(rule.tool, rule.ignoreCase);
    if (!tool?.test(call.tool)) return undefined;
  }
  const pattern = compile(rule.pattern, rule.ignoreCase);
  if (!pattern) return undefined;
  return subjects.find((subject) => pattern.test(subject));
}

export function evaluatePolicy(
  call: ToolCall,
  policy: Pick<PolicyConfig, 'deny' | 'ask'>,
): PolicyVerdict {
  const subjects = toolSubjects(call.input);
  for (const [type, rules] of [
    ['deny', policy.deny],
    ['ask', policy.ask],
  ] as const) {
    for (const rule of rules) {
      const subject = ruleMatches(rule, call, subjects);
      if (subject !== undefined) return { type, rule, subject };
    }
  }
  return { type: 'pass' };
}

/** A rule's verdict on an approval request, before any answerer sees it. */
export interface ApprovalRuleVerdict {
  decision: 'allow' | 'deny';
  rule: PolicyRule;
  subject: string;
}

/**
 * Decide an approval request by the config's rules: `deny` rules first, then
 * `allow` rules, each matched like a PreToolUse call against the tool and
 * what the request acts on. Undefined: no rule decides it (it goes on to the
 * controller or a person).
 */
export function evaluateApprovalRules(
  approval: { tool: string; subjects: readonly string[] },
  policy: Pick<PolicyConfig, 'deny' | 'allow'>,
): ApprovalRuleVerdict | undefined {
  const call: ToolCall = { tool: approval.tool, input: {} };
  const subjects = approval.subjects.filter((s) => s.trim() !== '');
  for (const [decision, rules] of [
    ['deny', policy.deny],
    ['allow', policy.allow],
  ] as const) {
    for (const rule of rules) {
      const subject = ruleMatches(rule, call, subjects);
      if (subject !== undefined) return { decision, rule, subject };
    }
  }
  return undefined;
}

/**
 * The answer a rule's verdict stands for, as recorded on the request (both
 * the hook approvals and the screen approvals record it the same way).
 */
export function ruleAnswer(
  verdict: ApprovalRuleVerdict,
  now: string,
): StoredResponse {
  const { rule, decision } = verdict;
  const text = `${decision}: macs rule "${rule.name}" ${decision === 'allow' ? 'allows' : 'denies'} this${rule.reason ? ` (${rule.reason})` : ''}`;
  return {
    instructions: text,
    notes: '',
    source: `rule:${rule.name}`,
    receivedAt: now,
    raw: text,
  };
}
