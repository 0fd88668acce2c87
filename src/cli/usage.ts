/**
 * `macs usage`: tokens and cost of the agents' model calls from the usage
 * ledgers (`.macs/usage/<agent>.jsonl`), grouped by agent, model or day
 * (docs/usage.md).
 */
// Only the flags load with the program (`macs --help` starts at once);
// what the run needs is imported when it runs.
import { Option, type Command } from 'commander';
import { ConfigError } from '../errors.js';
// Pure and small: the rows' formatting.
import { formatTokens, formatUsd } from '../usage/usage-format.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { UsageReading } from '../operations/usage-report.js';
import type { UsageGrouping, UsageRow } from '../usage/report.js';

export interface UsageOptions extends CommonOptions {
  since?: string;
  by?: string;
  json?: boolean;
}

const GROUPINGS: readonly UsageGrouping[] = ['agent', 'model', 'day'];

/** A row of figures (and its compactions, by agent). */
function formatRow(row: UsageRow, width: number, compacted?: number): string {
  return [
    row.key.padEnd(width),
    String(row.calls).padStart(6),
    formatTokens(row.inputTokens).padStart(9),
    formatTokens(row.outputTokens).padStart(9),
    formatTokens(row.cacheReadTokens).padStart(9),
    formatTokens(row.cacheWriteTokens).padStart(9),
    formatUsd(row.costUsd).padStart(10),
    ...(compacted === undefined ? [] : [String(compacted).padStart(9)]),
  ].join('  ');
}

/** The header line: the grouping, the figures, and `compacted` per agent. */
function formatHeader(by: UsageGrouping, width: number): string {
  return [
    by.padEnd(width),
    'calls'.padStart(6),
    'input'.padStart(9),
    'output'.padStart(9),
    'cache rd'.padStart(9),
    'cache wr'.padStart(9),
    'cost'.padStart(10),
    ...(by === 'agent' ? ['compacted'.padStart(9)] : []),
  ].join('  ');
}

/** The table: a header, a row per group, the total, and a note on prices. */
function formatUsageTable(usage: UsageReading): string[] {
  const { by, compactions } = usage;
  const width = Math.max(5, ...usage.rows.map((r) => r.key.length));
  const total = Object.values(compactions).reduce((a, b) => a + b, 0);
  return [
    formatHeader(by, width),
    ...usage.rows.map((row) =>
      formatRow(
        row,
        width,
        by === 'agent' ? (compactions[row.key] ?? 0) : undefined,
      ),
    ),
    formatRow(usage.total, width, by === 'agent' ? total : undefined),
    ...(usage.total.costUsd === null
      ? ['$?: a model without a price (see prices in docs/usage.md)']
      : []),
  ];
}

export async function runUsage(
  opts: UsageOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [{ parseSinceOption }, { readUsageReport }, { createContext }] =
    await Promise.all([
      import('../events/log.js'),
      import('../operations/usage-report.js'),
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
  else for (const line of formatUsageTable(usage)) deps.output.out(line);
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
