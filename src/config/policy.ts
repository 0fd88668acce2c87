/**
 * The tool policy that `macs hook PreToolUse` applies (SPEC §7, config key
 * `policy`). Rules are JavaScript regular expression sources matched against
 * what a tool call would do: a Bash command, a file path, a URL (see
 * docs/hooks.md). `deny` rules refuse the call with a reason the agent sees;
 * `ask` rules send it to the controller as a `type=approval` request.
 * Approval requests (from hooks or dialogs) are decided by `deny`, then
 * `allow` rules before they reach the controller or a person.
 *
 * The string `"@default"` in a list stands for the default rules of that
 * list, so `"deny": ["@default", "\\bdocker\\s+system\\s+prune\\b"]` adds a
 * rule and keeps the defaults; a list without it replaces them.
 */
import * as z from 'zod/mini';
import './zod.js';
import { PatternSchema } from './pattern.js';
import {
  DEFAULT_ALLOW_RULES,
  DEFAULT_ASK_DEFAULT,
  DEFAULT_ASK_RULES,
  DEFAULT_ASK_TIMEOUT_SEC,
  DEFAULT_DENY_RULES,
  type PolicyConfig,
  type PolicyRule,
} from './policy-defaults.js';

// The plain side (types, default rules, defaultPolicy) lives in
// policy-defaults.ts, which `macs hook` loads without zod.

const RuleObjectSchema = z.strictObject({
  name: z.optional(z.string().check(z.minLength(1))),
  tool: z.optional(PatternSchema),
  pattern: PatternSchema,
  reason: z.optional(z.string().check(z.minLength(1))),
  ignoreCase: z._default(z.boolean(), false),
});

/** A rule as written in the config: a regex source, or an object. */
export const PolicyRuleSchema = z.union([
  z.literal('@default'),
  PatternSchema,
  RuleObjectSchema,
]);
export type PolicyRuleInput = z.input<typeof PolicyRuleSchema>;

function normalizeRules(
  list: readonly PolicyRuleInput[],
  defaults: readonly PolicyRule[],
  kind: string,
): PolicyRule[] {
  const rules: PolicyRule[] = [];
  list.forEach((rule, index) => {
    if (rule === '@default') rules.push(...defaults);
    else if (typeof rule === 'string')
      rules.push({
        name: `${kind}-${index}`,
        pattern: rule,
        ignoreCase: false,
      });
    else {
      const parsed = RuleObjectSchema.parse(rule);
      rules.push({
        name: parsed.name ?? `${kind}-${index}`,
        pattern: parsed.pattern,
        ignoreCase: parsed.ignoreCase,
        ...(parsed.tool ? { tool: parsed.tool } : {}),
        ...(parsed.reason ? { reason: parsed.reason } : {}),
      });
    }
  });
  return rules;
}

export const PolicySchema = z.pipe(
  z.strictObject({
    /** Refused with a reason the agent sees. Default: DEFAULT_DENY_RULES. */
    deny: z._default(z.array(PolicyRuleSchema), ['@default']),
    /** Sent to the controller as `type=approval` requests. Default: none. */
    ask: z._default(z.array(PolicyRuleSchema), ['@default']),
    /**
     * Approval requests (hooks, dialogs) these allow before any answerer
     * sees them, unless a deny rule matches first. Default: none.
     */
    allow: z._default(z.array(PolicyRuleSchema), ['@default']),
    /** How long a hook waits for the controller's decision. */
    askTimeoutSec: z._default(
      z.number().check(z.int(), z.positive(), z.maximum(3600)),
      DEFAULT_ASK_TIMEOUT_SEC,
    ),
    /** The decision when none comes in time (or no bridge is running). */
    askDefault: z._default(z.enum(['deny', 'allow']), DEFAULT_ASK_DEFAULT),
  }),
  z.transform((policy): PolicyConfig => ({
    deny: normalizeRules(policy.deny, DEFAULT_DENY_RULES, 'deny'),
    ask: normalizeRules(policy.ask, DEFAULT_ASK_RULES, 'ask'),
    allow: normalizeRules(policy.allow, DEFAULT_ALLOW_RULES, 'allow'),
    askTimeoutSec: policy.askTimeoutSec,
    askDefault: policy.askDefault,
  })),
);
