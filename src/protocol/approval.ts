/**
 * Pure: read an allow/deny decision from the controller's answer to a
 * `type=approval` request that a PreToolUse hook asked for (docs/hooks.md).
 * The first word decides: `allow`, `approve`, `yes`, `ok`, `go ahead`,
 * `proceed`, `lgtm` (and `overturn`, for an appeal) allow; `deny`, `no`,
 * `reject`, `refuse`, `stop`, `don't` (and `uphold`) deny. An answer that starts with neither is a deny (fail closed),
 * and the whole answer is the reason the agent sees either way.
 */
import { createHash } from 'node:crypto';

/** Who decided an approval: a rule of the config, the controller, a person. */
export type DecidedBy = 'rule' | 'controller' | 'person';

export interface ApprovalAnswer {
  decision: 'allow' | 'deny';
  /** False when the answer began with no decision word (then it is a deny). */
  recognized: boolean;
  reason: string;
}

const ALLOW =
  /^(?:allow(?:ed)?|overturn(?:ed|s)?|approve[ds]?|yes|y|ok(?:ay)?|go(?:\s+ahead)?|proceed|accept(?:ed)?|permit(?:ted)?|lgtm)\b/;
const DENY =
  /^(?:den(?:y|ied)|uph(?:old|olds|eld)|no|n|reject(?:ed)?|refuse[ds]?|stop|block(?:ed)?|decline[ds]?|don'?t|do\s+not|never)\b/;

export function parseApprovalAnswer(instructions: string): ApprovalAnswer {
  const reason = instructions.trim();
  // Skip Markdown emphasis, quotes and list bullets around the first word.
  const head = reason
    .replace(/^[\s>*_`"'#\-•]+/, '')
    .toLowerCase()
    .replace(/\u2019/g, "'");
  if (DENY.test(head)) return { decision: 'deny', recognized: true, reason };
  if (ALLOW.test(head)) return { decision: 'allow', recognized: true, reason };
  return { decision: 'deny', recognized: false, reason };
}

/** JSON with object keys sorted at every level, so equal inputs hash alike. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Hex digits of an approval fingerprint (fits a request attribute). */
export const FINGERPRINT_CHARS = 16;

/**
 * The fingerprint of what an approval asks: a hash of the tool and its whole
 * input (for a hook), or of the dialog's text (for a screen). A decision is
 * applied only to a prompt with the same fingerprint.
 */
export function approvalFingerprint(
  tool: string,
  input: Record<string, unknown> | string,
): string {
  const text = typeof input === 'string' ? input : canonicalJson(input);
  return createHash('sha256')
    .update(`${tool}\n${text}`, 'utf8')
    .digest('hex')
    .slice(0, FINGERPRINT_CHARS);
}

/**
 * Who answered at a hub, as the hub tells its host's `answer_request` and
 * `decide_approval` (docs/remote.md): the hub's controller through its MCP
 * tools, or a person (`macs respond`, the status view, `macs web`).
 */
export const HUB_ANSWER_BY = [
  'hub:answer_request',
  'hub:decide_approval',
  'hub:respond',
  'hub:status',
  'hub:web',
] as const;
export type HubAnswerBy = (typeof HUB_ANSWER_BY)[number];

/** `by` as a hub gives it, else undefined (an older label, or none). */
export function hubAnswerBy(by: string | undefined): HubAnswerBy | undefined {
  return (HUB_ANSWER_BY as readonly string[]).includes(by ?? '')
    ? (by as HubAnswerBy)
    : undefined;
}

/** Who decided an approval, and through what (docs/backends.md). */
export interface Decider {
  decidedBy: DecidedBy;
  /** The rule's name, or how the answer came (`mcp:decide_approval`, `outbox`, `exec:codex`, `controller:%3`). */
  via: string;
}

/**
 * Who gave an answer, from where it came: `rule:<name>` is a rule of the
 * config; a controller's MCP tool call (`by`, e.g. `mcp:decide_approval`),
 * an exec command (`exec:…`) or the controller pane (`controller:…`) is the
 * controller; one from the page of `macs web` (`web:…`) is a person, and
 * one a hub gave (`hub:…`) is the hub's controller or a person there, and
 * so is a file in the outbox with no tool call behind it (`macs respond`,
 * the status view, an editor).
 */
export function deciderOf(source: string, by?: string): Decider {
  if (source.startsWith('rule:'))
    return { decidedBy: 'rule', via: source.slice('rule:'.length) };
  if (by?.startsWith('mcp:')) return { decidedBy: 'controller', via: by };
  // From a hub (docs/remote.md): its controller's tool, or a person there.
  if (by === 'hub:answer_request' || by === 'hub:decide_approval')
    return { decidedBy: 'controller', via: by };
  if (by?.startsWith('hub:')) return { decidedBy: 'person', via: by };
  // A person in the page of `macs web` (`web:decide_approval`).
  if (by?.startsWith('web:')) return { decidedBy: 'person', via: by };
  if (source.startsWith('outbox'))
    return { decidedBy: 'person', via: 'outbox' };
  return { decidedBy: 'controller', via: source || 'unknown' };
}
