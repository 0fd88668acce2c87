/**
 * `macs start --demo --detach`: the demo's steps while it runs
 * (session/demo/follow.ts), then what it did and what to try next.
 */
import { MacsError } from '../errors.js';
import type { MacsEvent } from '../events/types.js';
import { followDemoRun } from '../session/demo/follow.js';
import type { DemoResult } from '../session/demo/script.js';
import type { DemoRun } from '../session/start-flags.js';
import type { CommandContext } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';
import { hintCommand } from './session-common.js';

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
 * `macs start --demo --detach`: show the demo's progress from the event log
 * until the scripted worker says it has finished, then what happened and
 * what to try next. The session keeps running.
 */
export async function followDemo(
  opts: CommonOptions,
  deps: CliDeps,
  ctx: Pick<CommandContext, 'paths'>,
  demo: DemoRun,
  since: Date,
): Promise<number> {
  const out = deps.output.out;
  out('');
  out('The demo is running (about 20 seconds); its steps from the event log:');
  const end = await followDemoRun(
    ctx.paths,
    demo.result,
    since,
    (event) => {
      const line = describeDemoEvent(event);
      if (line) out(line);
    },
    deps.interrupted,
  );
  if (end.kind === 'interrupted') return 130;
  if (end.kind === 'timed-out') {
    const hint = (sub: string) => hintCommand(sub, opts, deps);
    throw new MacsError(
      `the demo did not finish within ${end.waitedMs / 1000} s`,
      {
        hint: `look at its panes with \`${hint('attach')}\` and at \`${hint('events')}\`; end it with \`${hint('stop')}\``,
      },
    );
  }
  printDemoResult(end.result, opts, deps);
  return 0;
}
/** What the demo did, request by request, and what to try next. */
function printDemoResult(
  result: DemoResult,
  opts: CommonOptions,
  deps: CliDeps,
): void {
  const out = deps.output.out;
  const attach = hintCommand('attach', opts, deps);
  const stop = hintCommand('stop', opts, deps);
  const seconds = (
    (Date.parse(result.finishedAt) - Date.parse(result.startedAt)) /
    1000
  ).toFixed(1);
  out('');
  out(
    `The demo finished in ${seconds} s. ${result.agent} asked ${result.requests.length} requests; for each, the bridge`,
  );
  out(
    'detected it in the pane, the controller answered it, and the bridge typed the answer back:',
  );
  for (const r of result.requests) {
    out(`  ${r.type.padEnd(9)} ${r.asked}`);
    out(`  ${''.padEnd(9)} → ${r.answer.split('\n', 1)[0] ?? ''}`);
    for (const did of r.did) out(`  ${''.padEnd(9)}   ${result.agent}: ${did}`);
  }
  out(
    'The NOTES of each answer stayed out of the worker (they are in the archive).',
  );
  out('');
  out('The session is still running. Try next:');
  out(`  ${attach.padEnd(34)} look at the panes (detach: tmux prefix, then d)`);
  out(
    `  ${hintCommand(`events --agent ${result.agent}`, opts, deps).padEnd(34)} every step, with times`,
  );
  out(`  ${'ls archive/*/'.padEnd(34)} each request, answer and context`);
  out(`  ${stop.padEnd(34)} end the demo: agents, bridge, tmux server`);
  out(
    `  ${hintCommand('start --worker "codex"', opts, deps).padEnd(34)} then a real agent`,
  );
}
