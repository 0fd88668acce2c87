// `macs events`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { Option, type Command } from 'commander';
import { ConfigError } from '../errors.js';
import { formatEventLine } from '../events/event-line.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { MacsConfig } from '../config/schema.js';
import type { EventFilter } from '../events/log.js';
import type { FollowedEvent } from '../operations/follow-events.js';
import type { CommandContext } from './common.js';

export interface EventsOptions extends CommonOptions {
  agent?: string;
  type?: string;
  request?: string;
  since?: string;
  follow?: boolean;
  json?: boolean;
  stats?: boolean;
  /** Run by a hub over ssh: --follow ends when stdin ends (the hub went). */
  fromHub?: boolean;
}

/**
 * `interrupted`, or the end of stdin: a hub's follower (`--from-hub`) ends
 * with its ssh. ssh without a terminal sends no hangup, and a follower with
 * nothing to print would never notice the hub had gone (it was left running,
 * its parent init, until killed).
 */
function endedWithStdin(
  deps: CliDeps,
  stdin: NodeJS.ReadableStream = process.stdin,
): CliDeps {
  const gone = new Promise<'SIGTERM'>((resolve) => {
    stdin.once('end', () => resolve('SIGTERM'));
    stdin.once('close', () => resolve('SIGTERM'));
    stdin.once('error', () => resolve('SIGTERM'));
    stdin.resume();
  });
  return { ...deps, interrupted: Promise.race([deps.interrupted, gone]) };
}

/** An event as printed: this machine's, or a host's (its `type` unchecked against ours). */
type PrintedEvent = FollowedEvent;

// `macs bridge` prints its events with it too (bridge-runtime.ts).
export { formatEventLine };

/** Query the event log; with --follow, keep printing new events until interrupted. */
export async function runEvents(
  opts: EventsOptions,
  given: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [{ eventFilterOf }, { createContext, loadConfigOrDefaults }] =
    await Promise.all([import('../events/log.js'), import('./common.js')]);
  const deps = opts.fromHub && opts.follow ? endedWithStdin(given) : given;
  const ctx = createContext(opts, deps);
  const { config } = await loadConfigOrDefaults(ctx, opts, deps);
  if (opts.agent?.includes('/') && !opts.follow) {
    const remote = await forwardToHost(opts, ctx, deps);
    if (remote !== undefined) return remote;
  }
  await checkAgentKnown(opts, ctx, config, deps);
  const filter = eventFilterOf(opts);
  if (opts.stats) {
    if (opts.follow)
      throw new ConfigError('--stats and --follow do not go together');
    await printStats(opts, ctx, filter, deps);
    return 0;
  }
  const print = (event: PrintedEvent) =>
    opts.json
      ? deps.output.out(JSON.stringify(event))
      : deps.output.out(formatEventLine(event));
  if (!opts.follow) {
    const { readEvents } = await import('../events/log.js');
    const events = await readEvents(ctx.paths, filter);
    if (opts.json) deps.output.json(events);
    else if (events.length === 0) deps.output.out('no events');
    else events.forEach(print);
    return 0;
  }
  const stop = new AbortController();
  void deps.interrupted.then(() => stop.abort());
  const { followEvents } = await import('../operations/follow-events.js');
  await followEvents({
    paths: ctx.paths,
    config,
    env: deps.env,
    filter,
    names: opts,
    onEvent: print,
    onNotice: (line) => deps.output.err(`macs: ${line}`),
    signal: stop.signal,
  });
  return 0;
}

/** A host's agent: its own event log, read by its macs (docs/remote.md). */
async function forwardToHost(
  opts: EventsOptions,
  ctx: CommandContext,
  deps: CliDeps,
): Promise<number | undefined> {
  const { forwardIfRemote } = await import('./remote.js');
  return forwardIfRemote(opts.agent ?? '', 'agent', ctx, deps, (name) => [
    'events',
    '--agent',
    name,
    ...(opts.type ? ['--type', opts.type] : []),
    ...(opts.since ? ['--since', opts.since] : []),
    ...(opts.json ? ['--json'] : []),
  ]);
}

/** `--stats`: counts by type and latency percentiles of the matching events. */
async function printStats(
  opts: EventsOptions,
  ctx: CommandContext,
  filter: EventFilter,
  deps: CliDeps,
): Promise<void> {
  const [{ readEvents }, { computeEventStats, formatEventStats }] =
    await Promise.all([
      import('../events/log.js'),
      import('../events/stats.js'),
    ]);
  const stats = computeEventStats(await readEvents(ctx.paths, filter));
  if (opts.json) deps.output.json(stats);
  else formatEventStats(stats).forEach((line) => deps.output.out(line));
}

/**
 * An agent of an earlier session still has its events; a name with no
 * events, state, session or config entry is a typo, not "no events".
 */
async function checkAgentKnown(
  opts: EventsOptions,
  ctx: CommandContext,
  config: Pick<MacsConfig, 'workers' | 'controller'>,
  deps: CliDeps,
): Promise<void> {
  const { describeKnownAgents, listKnownAgents } =
    await import('../session/known-agents.js');
  if (!opts.agent || opts.agent.includes('/')) return;
  const known = await listKnownAgents(ctx.paths, config, { events: true });
  if (known.includes(opts.agent)) return;
  const what = `no agent '${opts.agent}' in ${ctx.paths.home} (no events, state or config entry)`;
  if (!opts.follow)
    throw new ConfigError(what, {
      hint: `${describeKnownAgents(known)}; macs events without --agent shows them all`,
    });
  deps.output.err(
    `warning: ${what}; following in case it appears (${describeKnownAgents(known)})`,
  );
}

export function registerEventsCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('events')
      .description('query the event log (.macs/events/<agent>.jsonl)')
      .option('--agent <name>', 'only this agent')
      .option('--type <type>', 'only this type, or a prefix such as `request`')
      .option('--request <id>', 'only this request')
      .addOption(
        new Option(
          '--since <when>',
          'only since a duration ago (30s, 10m, 2h, 1d) or an ISO date',
        ),
      )
      .option('-f, --follow', 'keep printing new events until interrupted')
      .option(
        '--stats',
        'counts by type and request latency percentiles (p50/p95) per stage',
      )
      .option(
        '--json',
        'print JSON (an array; one object a line with --follow)',
      )
      .addOption(
        new Option(
          '--from-hub',
          '(run by a hub) with --follow: end when stdin ends',
        ).hideHelp(),
      ),
  ).action((opts: EventsOptions) => run(runEvents(opts, deps)));
}
