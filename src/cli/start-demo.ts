/**
 * `macs start --demo --detach`: the demo's steps while it runs
 * (session/demo/follow.ts), then what it did and what to try next
 * (session/demo/narration.ts).
 */
import { MacsError } from '../errors.js';
import { followDemoRun } from '../session/demo/follow.js';
import {
  demoResultLines,
  describeDemoEvent,
} from '../session/demo/narration.js';
import type { DemoRun } from '../session/start-flags.js';
import type { CommandContext } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';
import { hintCommand } from './session-common.js';

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
  const hint = (sub: string) => hintCommand(sub, opts, deps);
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
  if (end.kind === 'timed-out')
    throw new MacsError(
      `the demo did not finish within ${end.waitedMs / 1000} s`,
      {
        hint: `look at its panes with \`${hint('attach')}\` and at \`${hint('events')}\`; end it with \`${hint('stop')}\``,
      },
    );
  for (const line of demoResultLines(end.result, hint)) out(line);
  return 0;
}
