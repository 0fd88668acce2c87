/**
 * Pure: workaround detection (docs/hooks.md#appeals). When an agent's last
 * denials were alike (the same tool, commands alike: state/denials.ts), its
 * hook leaves a notice; the bridge raises it as a `type=repeated-denials`
 * request, high priority, routed to the controller like any request (the
 * dispatcher also calls a person, reason `repeated-denials`). Its answer is
 * typed into the agent as an answer of its own.
 */
import { hashBody } from '../../protocol/ids.js';
import type { RepeatedDenialsNotice } from '../../state/hook-files.js';
import { detectedRecord } from '../../state/ledger.js';
import type { RequestRecord } from '../../state/types.js';

/** What the controller reads about the repeated denials. */
export function repeatedDenialsBody(notice: RepeatedDenialsNotice): string {
  const n = notice.denials.length;
  return [
    `${notice.agent} had ${String(n)} similar tool calls refused by the macs rules in a row; it may be trying to work around a rule.`,
    '',
    ...notice.denials.map(
      (d) => `- ${d.at} ${d.tool} (rule ${d.rule}): ${d.subject}`,
    ),
    '',
    `Your answer is typed into ${notice.agent} as its next message: tell it what to do instead (or to stop).`,
  ].join('\n');
}

export function repeatedDenialsRecord(
  notice: RepeatedDenialsNotice,
  detectedAt: string,
): RequestRecord {
  const body = repeatedDenialsBody(notice);
  const last = notice.denials[notice.denials.length - 1];
  return detectedRecord({
    id: notice.id,
    agent: notice.agent,
    type: 'repeated-denials',
    priority: 'high',
    attributes: {
      type: 'repeated-denials',
      ...(last ? { tool: last.tool, rule: last.rule } : {}),
      count: String(notice.denials.length),
    },
    bodyHash: hashBody(body),
    body,
    detectedAt,
  });
}

export function repeatedDenialsDetectedData(
  record: RequestRecord,
): Record<string, unknown> {
  return {
    type: record.type,
    priority: record.priority,
    attributes: record.attributes,
    notice: 'repeated-denials',
    chars: record.body.length,
  };
}
