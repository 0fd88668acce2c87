// `macs dismiss`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { ConfigError } from '../errors.js';
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
 * archived as `dismissed` with the reason and never typed into its worker.
 */
export async function runDismiss(
  ids: string[],
  opts: DismissOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { describeDismissal, dismissRequests },
    { isSafeFileName },
    { createContext, loadConfigOrDefaults },
    { forwardIfRemote },
  ] = await Promise.all([
    import('../operations/dismiss-requests.js'),
    import('../protocol/ids.js'),
    import('./common.js'),
    import('./remote.js'),
  ]);
  const ctx = createContext(opts, deps);
  await loadConfigOrDefaults(ctx, opts, deps);
  // `<host>/<id>`: dismissed by that host's macs, one id at a time.
  let remote = 0;
  for (const id of ids.filter((i) => i.includes('/')))
    remote +=
      (await forwardIfRemote(id, 'request', ctx, deps, (name) => [
        'dismiss',
        name,
        ...(opts.reason ? ['--reason', opts.reason] : []),
      ])) ?? 0;
  ids = ids.filter((i) => !i.includes('/'));
  if (ids.length === 0) return remote;
  for (const id of ids)
    if (!isSafeFileName(id))
      throw new ConfigError(`'${id}' is not a request id`, {
        hint: 'see the ids with `macs inbox`',
      });
  const outcomes = await dismissRequests(
    ctx.paths,
    ids,
    opts.reason?.trim() || 'dismissed by a person',
    ctx.log,
  );
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
