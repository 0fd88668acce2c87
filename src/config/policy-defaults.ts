/**
 * The tool policy's plain side: its types and the policy when the config
 * says nothing. No zod here: `macs hook` falls back to `defaultPolicy()`
 * when the config cannot be read, and loading zod for that would cost every
 * hook call its start-up (issue 15). The schema that reads a `policy` from
 * the config, and what its rules mean, is config/policy.ts; its defaults
 * are the constants below, so the two cannot drift
 * (test/config/policy-defaults.test.ts checks `PolicySchema.parse({})`
 * against `defaultPolicy()`).
 */

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

/** The policy as the hooks apply it (`policy` of a parsed config). */
export interface PolicyConfig {
  deny: PolicyRule[];
  ask: PolicyRule[];
  allow: PolicyRule[];
  askTimeoutSec: number;
  askDefault: 'deny' | 'allow';
}

/** How long a hook waits for the controller's decision, by default. */
export const DEFAULT_ASK_TIMEOUT_SEC = 120;
/** The decision when none comes in time, by default. */
export const DEFAULT_ASK_DEFAULT: PolicyConfig['askDefault'] = 'deny';

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

/** The policy when the config says nothing (as `PolicySchema.parse({})`). */
export function defaultPolicy(): PolicyConfig {
  return {
    deny: [...DEFAULT_DENY_RULES],
    ask: [...DEFAULT_ASK_RULES],
    allow: [...DEFAULT_ALLOW_RULES],
    askTimeoutSec: DEFAULT_ASK_TIMEOUT_SEC,
    askDefault: DEFAULT_ASK_DEFAULT,
  };
}
