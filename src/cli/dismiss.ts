// `macs dismiss`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { Command } from 'commander';

export interface DismissOptions extends CommonOptions {
  reason?: string;
  json?: boolean;
}

/**
 * `macs dismiss <id>…`: end pending requests without an answer; each is
 * archived as `dismissed` with the reason and never typed into its worker
 * (operations/dismiss-requests.ts); `<host>/<id>` by that host's macs.
 */
export async function runDismiss(
  ids: string[],
  opts: DismissOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { describeDismissal, dismissEach },
    { createContext, loadConfigOrDefaults },
  ] = await Promise.all([
    import('../operations/dismiss-requests.js'),
    import('./common.js'),
  ]);
  const ctx = createContext(opts, deps);
  let { config } = await loadConfigOrDefaults(ctx, opts, deps);
  // A host's request needs the hosts of the config file itself.
  if (ids.some((i) => i.includes('/'))) ({ config } = await ctx.loadConfig());
  const hub = { config, env: deps.env, paths: ctx.paths, log: ctx.log };
  const { hostLines, outcomes } = await dismissEach(hub, ids, opts.reason);
  for (const line of hostLines) deps.output.out(line);
  if (outcomes.length === 0) return 0;
  if (opts.json) deps.output.json(outcomes);
  else
    for (const o of outcomes) {
      const ok = o.result === 'dismissed' || o.result === 'handed-over';
      if (ok) deps.output.out(describeDismissal(o));
      else deps.output.err(`macs: ${describeDismissal(o)}`);
    }
  const failed = outcomes.filter(
    (o) => o.result === 'not-pending' || o.result === 'too-late',
  ).length;
  if (failed > 0 && !opts.json)
    deps.output.err('hint: list pending requests with `macs inbox`');
  return failed > 0 ? 1 : 0;
}

export function registerDismissCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('dismiss')
      .description(
        'end pending requests without an answer (archived as dismissed, never sent to the worker)',
      )
      .argument('<id...>', 'request ids, as `macs inbox` lists them')
      .option('--reason <text>', 'why (kept in the archive and the event log)')
      .option('--json', 'print the outcome of each id as JSON'),
  )
    .addHelpText(
      'after',
      `
A request whose answer is already being typed cannot be dismissed. With a
bridge running for the agent, the bridge ends the request (it is asked through
outbox/<id>.dismiss); otherwise macs ends it at once.

Examples:
  macs dismiss worker-1-q-17
  macs dismiss worker-1-q-17 worker-2-q-3 --reason "superseded by the new plan"
Exit: 0 all dismissed, 1 some were not pending or too late, 2 bad usage or
config.`,
    )
    .action((ids: string[], opts: DismissOptions) =>
      run(runDismiss(ids, opts, deps)),
    );
}
