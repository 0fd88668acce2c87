/**
 * Pure: read an allow/deny decision from the controller's answer to a
 * `type=approval` request that a PreToolUse hook asked for (docs/hooks.md).
 * The first word decides: `allow`, `approve`, `yes`, `ok`, `go ahead`,
 * `proceed`, `lgtm` allow; `deny`, `no`, `reject`, `refuse`, `stop`,
 * `don't` deny. An answer that starts with neither is a deny (fail closed),
 * and the whole answer is the reason the agent sees either way.
 */
export interface ApprovalAnswer {
  decision: 'allow' | 'deny';
  /** False when the answer began with no decision word (then it is a deny). */
  recognized: boolean;
  reason: string;
}

const ALLOW =
  /^(?:allow(?:ed)?|approve[ds]?|yes|y|ok(?:ay)?|go(?:\s+ahead)?|proceed|accept(?:ed)?|permit(?:ted)?|lgtm)\b/;
const DENY =
  /^(?:den(?:y|ied)|no|n|reject(?:ed)?|refuse[ds]?|stop|block(?:ed)?|decline[ds]?|don'?t|do\s+not|never)\b/;

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
