/**
 * `macs usage`: tokens and cost of the agents' model calls from the usage
 * ledgers (`.macs/usage/<agent>.jsonl`), grouped by agent, model or day
 * (docs/usage.md).
 */
// Only the flags load with the program (`macs --help` starts at once);
// what the run needs is imported when it runs.
import { Option, type Command } from 'commander';
import { ConfigError } from '../errors.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { UsageGrouping } from '../usage/report.js';

export interface UsageOptions extends CommonOptions {
  since?: string;
  by?: string;
  json?: boolean;
}

const GROUPINGS: readonly UsageGrouping[] = ['agent', 'model', 'day'];

/** `macs usage`: the figures grouped as asked, as a table or JSON. */
export async function runUsage(
  opts: UsageOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { parseSinceOption },
    { readUsageReport },
    { formatUsageTable },
    { createContext },
  ] = await Promise.all([
    import('../events/log.js'),
    import('../operations/usage-report.js'),
    import('../usage/usage-format.js'),
    import('./common.js'),
  ]);
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig();
  const by = (opts.by ?? 'agent') as UsageGrouping;
  if (!GROUPINGS.includes(by))
    throw new ConfigError(`--by '${opts.by}' is not one of agent, model, day`);
  const since = opts.since ? parseSinceOption(opts.since) : undefined;
  const usage = await readUsageReport(ctx.paths, config, { by, since });
  if (opts.json) deps.output.json(usage);
  else if (usage.rows.length === 0)
    deps.output.out(
      `no usage recorded${since ? ' in that time' : ''} (the bridge records it from Claude Code, Codex and Gemini CLI agents)`,
    );
  else
    for (const line of formatUsageTable(usage, usage.compactions))
      deps.output.out(line);
  return 0;
}

export function registerUsageCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('usage')
      .description(
        "tokens and cost of the agents' model calls, from their own records",
      )
      .addOption(
        new Option(
          '--since <when>',
          'only since a duration ago (30m, 2h, 1d) or an ISO date',
        ),
      )
      .addOption(
        new Option('--by <what>', 'one row per agent, model or day')
          .choices(['agent', 'model', 'day'])
          .default('agent'),
      )
      .option('--json', 'print JSON: { by, since, rows, total }'),
  ).action((opts: UsageOptions) => run(runUsage(opts, deps)));
}
