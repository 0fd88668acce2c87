/**
 * What `macs start --demo --detach` tells while the demo runs and after
 * (follow.ts follows it): a line per step worth showing, then what the
 * demo did and what to try next.
 */
import type { MacsEvent } from '../../events/types.js';
import type { DemoResult } from './script.js';

/** A data field as text (primitives only). */
function field(
  data: Record<string, unknown>,
  key: string,
  fallback = '',
): string {
  const value = data[key];
  return typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
    ? String(value)
    : fallback;
}

const DEMO_EVENT_LINES: Partial<
  Record<string, (event: MacsEvent, data: Record<string, unknown>) => string>
> = {
  'agent.prompted': (e) =>
    `  ${e.agent} got its first message: the worker protocol (prompts/worker.md)`,
  'request.detected': (e, d) =>
    `  ${e.agent} asked      ${e.requestId ?? ''} (${field(d, 'type', 'question')})`,
  'request.answered': (e, d) =>
    `  answered       ${e.requestId ?? ''} (${field(d, 'source')})`,
  'request.delivered': (e, d) =>
    `  delivered      ${e.requestId ?? ''} to ${e.agent} (${field(d, 'method')}, ${field(d, 'chars', '?')} chars)`,
  'agent.exited': (e, d) =>
    `  ${e.agent} exited${d.exitCode === undefined ? '' : ` with status ${field(d, 'exitCode')}`}`,
  'delivery.timeout': (e, d) =>
    `  ${e.type} (${e.agent}): ${JSON.stringify(d)}`,
  error: (e, d) => `  ${e.type} (${e.agent}): ${JSON.stringify(d)}`,
};

/** One line for a demo event worth showing; undefined for the rest. */
export function describeDemoEvent(event: MacsEvent): string | undefined {
  return DEMO_EVENT_LINES[event.type]?.(event, event.data ?? {});
}

/**
 * What the demo did, request by request, and what to try next;
 * `hint('stop')` is how the person runs `macs stop` for this session.
 */
export function demoResultLines(
  result: DemoResult,
  hint: (sub: string) => string,
): string[] {
  const seconds = (
    (Date.parse(result.finishedAt) - Date.parse(result.startedAt)) /
    1000
  ).toFixed(1);
  const pad = ''.padEnd(9);
  const next = (command: string, what: string) =>
    `  ${command.padEnd(34)} ${what}`;
  return [
    '',
    `The demo finished in ${seconds} s. ${result.agent} asked ${result.requests.length} requests; for each, the bridge`,
    'detected it in the pane, the controller answered it, and the bridge typed the answer back:',
    ...result.requests.flatMap((r) => [
      `  ${r.type.padEnd(9)} ${r.asked}`,
      `  ${pad} → ${r.answer.split('\n', 1)[0] ?? ''}`,
      ...r.did.map((did) => `  ${pad}   ${result.agent}: ${did}`),
    ]),
    'The NOTES of each answer stayed out of the worker (they are in the archive).',
    '',
    'The session is still running. Try next:',
    next(hint('attach'), 'look at the panes (detach: tmux prefix, then d)'),
    next(hint(`events --agent ${result.agent}`), 'every step, with times'),
    next('ls archive/*/', 'each request, answer and context'),
    next(hint('stop'), 'end the demo: agents, bridge, tmux server'),
    next(hint('start --worker "codex"'), 'then a real agent'),
  ];
}
