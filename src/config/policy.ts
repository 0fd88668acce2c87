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

function isValidRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

const PatternSchema = z
  .string()
  .check(
    z.minLength(1),
    z.refine(isValidRegex, { message: 'not a valid regular expression' }),
  );

/** A rule after parsing: every field filled in. */
export interface PolicyRule {
  /** Reported in events and in the reason the agent sees. */
  name: string;
  /** Regex on the tool name (`Bash`, `Read`, `Edit`, ...); absent: every tool. */
  tool?: string;
  pattern: string;
  /** Why the rule exists, shown to the agent. */
  reason?: string;
  ignoreCase: boolean;
}

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

// Targets of `rm -r` that mean "everything": /, /*, ~, ~/, ~/*, $HOME, ${HOME}...
const EVERYTHING = String.raw`["']?(?:/|/\*|~|~/|~/\*|\$HOME|\$\{HOME\}|\$HOME/|\$HOME/\*|\$\{HOME\}/|\$\{HOME\}/\*)["']?`;

/**
 * The default deny rules. Each was checked against commands it must and must
 * not match (test/config/policy.test.ts).
 */
export const DEFAULT_DENY_RULES: readonly PolicyRule[] = [
  {
    name: 'rm-everything',
    tool: '^Bash$',
    // `rm` with a recursive flag whose target is /, /*, ~, ~/*, $HOME, or --no-preserve-root.
    pattern: String.raw`(?:^|[\s;&|(])(?:sudo\s+(?:-\S+\s+)*)?rm\s(?=(?:[^;&|\n]*\s)?(?:-[A-Za-z]*[rR][A-Za-z]*|--recursive)(?=\s|$))(?:[^;&|\n]*\s)?(?:--no-preserve-root|${EVERYTHING})(?=$|[\s;&|)])`,
    reason: 'it would delete everything under / or your home folder',
    ignoreCase: false,
  },
  {
    name: 'force-push',
    tool: '^Bash$',
    pattern: String.raw`\bgit\b[^;&|\n]*\spush\b[^;&|\n]*?\s(?:--force(?:-with-lease|-if-includes)?(?:=\S*)?|-[A-Za-z]*f[A-Za-z]*|\+\S+)(?=$|[\s;&|)])`,
    reason: 'a force push rewrites the history others have pulled',
    ignoreCase: false,
  },
  {
    name: 'disk-wipe',
    tool: '^Bash$',
    pattern: String.raw`(?:^|[\s;&|(])(?:sudo\s+)?(?:mkfs(?:\.\w+)?\s|dd\s[^;&|\n]*\bof=/dev/(?!null\b|zero\b|stdout\b|stderr\b)\S)`,
    reason: 'it would overwrite a disk or partition',
    ignoreCase: false,
  },
  {
    name: 'secrets',
    // Any tool: `cat .env` in Bash, a Read of ~/.ssh/id_rsa, a Grep in .env.local.
    pattern: String.raw`(?:(?:^|[\s/'"=:<])(?:\.env(?:\.(?!example\b|sample\b|template\b|dist\b|defaults?\b)[\w-]+)?|id_(?:rsa|dsa|ecdsa|ed25519)|\.netrc|\.pgpass)(?=$|[\s'";|&)<>])|\.aws/credentials\b)`,
    reason:
      'it reads a secrets file (.env, a private SSH key, cloud or network credentials)',
    ignoreCase: false,
  },
];

/** No command is sent to the controller unless the config says so. */
export const DEFAULT_ASK_RULES: readonly PolicyRule[] = [];

/** No approval is allowed by a rule unless the config says so. */
export const DEFAULT_ALLOW_RULES: readonly PolicyRule[] = [];

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
      120,
    ),
    /** The decision when none comes in time (or no bridge is running). */
    askDefault: z._default(z.enum(['deny', 'allow']), 'deny'),
  }),
  z.transform((policy) => ({
    deny: normalizeRules(policy.deny, DEFAULT_DENY_RULES, 'deny'),
    ask: normalizeRules(policy.ask, DEFAULT_ASK_RULES, 'ask'),
    allow: normalizeRules(policy.allow, DEFAULT_ALLOW_RULES, 'allow'),
    askTimeoutSec: policy.askTimeoutSec,
    askDefault: policy.askDefault,
  })),
);

export type PolicyConfig = z.output<typeof PolicySchema>;

/** The policy when the config says nothing. */
export function defaultPolicy(): PolicyConfig {
  return PolicySchema.parse({});
}
