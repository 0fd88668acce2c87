/**
 * `macs start --demo --detach`: the demo's steps from the event log while
 * it runs, then what it did and what to try next (start-run.ts).
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { MacsError } from '../errors.js';
import { readEvents } from '../events/log.js';
import type { MacsEvent } from '../events/types.js';
import { DEMO_WAIT_MS } from '../session/demo/config.js';
import type { DemoResult } from '../session/demo/script.js';
import type { DemoRun } from '../session/start-flags.js';
import type { CommandContext } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';
import { hintCommand } from './session-common.js';

const DEMO_POLL_MS = 250;

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

async function readDemoResult(file: string): Promise<DemoResult | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as DemoResult;
  } catch {
    return undefined;
  }
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
  const seen = new Set<string>();
  const show = async () => {
    for (const event of await readEvents(ctx.paths, { since })) {
      const key = JSON.stringify(event);
      if (seen.has(key)) continue;
      seen.add(key);
      const line = describeDemoEvent(event);
      if (line) out(line);
    }
  };
  const started = Date.now();
  let result: DemoResult | undefined;
  let interrupted = false;
  void deps.interrupted.then(() => (interrupted = true));
  while (Date.now() - started < DEMO_WAIT_MS && !interrupted) {
    await show();
    result = await readDemoResult(demo.result);
    if (result) break;
    await delay(DEMO_POLL_MS);
  }
  await show();
  if (interrupted) return 130;
  if (!result) {
    throw new MacsError(
      `the demo did not finish within ${DEMO_WAIT_MS / 1000} s`,
      {
        hint: `look at its panes with \`${hintCommand('attach', opts, deps)}\` and at \`${hintCommand('events', opts, deps)}\`; end it with \`${hintCommand('stop', opts, deps)}\``,
      },
    );
  }
  printDemoResult(result, opts, deps);
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
