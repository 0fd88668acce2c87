/**
 * `macs usage`: tokens and cost of the agents' model calls from the usage
 * ledgers (`.macs/usage/<agent>.jsonl`), grouped by agent, model or day
 * (docs/usage.md).
 */
// Only the flags load with the program (`macs --help` starts at once);
// what the run needs is imported when it runs.
import { readdir } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { ConfigError } from '../errors.js';
// Pure and small: the rows' formatting.
import { formatTokens, formatUsd } from '../usage/usage-format.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { UsageGrouping, UsageRow } from '../usage/report.js';

export interface UsageOptions extends CommonOptions {
  since?: string;
  by?: string;
  json?: boolean;
}

const GROUPINGS: readonly UsageGrouping[] = ['agent', 'model', 'day'];

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

export async function runUsage(
  opts: UsageOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { parseSince },
    { isValidAgentName },
    { readLedger, usageDir },
    { priceTable },
    { buildUsageReport },
    { countCompactions, readActivity },
    { createContext },
  ] = await Promise.all([
    import('../events/log.js'),
    import('../protocol/ids.js'),
    import('../usage/usage-ledger.js'),
    import('../usage/prices.js'),
    import('../usage/report.js'),
    import('../state/agent-activity.js'),
    import('./common.js'),
  ]);
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig();
  const by = (opts.by ?? 'agent') as UsageGrouping;
  if (!GROUPINGS.includes(by))
    throw new ConfigError(`--by '${opts.by}' is not one of agent, model, day`);
  let since: Date | undefined;
  if (opts.since) {
    since = parseSince(opts.since);
    if (!since)
      throw new ConfigError(
        `--since '${opts.since}' is not a duration (10m, 2h, 1d) or a date`,
      );
  }
  const names = await readdir(usageDir(ctx.paths)).catch(() => [] as string[]);
  const agents = names
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => n.slice(0, -'.jsonl'.length))
    .filter(isValidAgentName)
    .sort();
  const entries = [];
  for (const agent of agents)
    for (const entry of await readLedger(ctx.paths, agent))
      entries.push({ ...entry, agent });
  const report = buildUsageReport(entries, {
    by,
    ...(since ? { since } : {}),
    prices: priceTable(config.prices),
  });
  // How often each agent's context was compacted in that time (docs/usage.md).
  const compactions: Record<string, number> = {};
  for (const agent of agents)
    compactions[agent] = countCompactions(
      await readActivity(ctx.paths, agent),
      since,
    );
  if (opts.json) {
    deps.output.json({ ...report, compactions });
    return 0;
  }
  if (report.rows.length === 0) {
    deps.output.out(
      `no usage recorded${since ? ' in that time' : ''} (the bridge records it from Claude Code, Codex and Gemini CLI agents)`,
    );
    return 0;
  }
  const width = Math.max(5, ...report.rows.map((r) => r.key.length));
  deps.output.out(
    [
      by.padEnd(width),
      'calls'.padStart(6),
      'input'.padStart(9),
      'output'.padStart(9),
      'cache rd'.padStart(9),
      'cache wr'.padStart(9),
      'cost'.padStart(10),
      ...(by === 'agent' ? ['compacted'.padStart(9)] : []),
    ].join('  '),
  );
  const total = Object.values(compactions).reduce((a, b) => a + b, 0);
  for (const row of report.rows)
    deps.output.out(
      formatRow(
        row,
        width,
        by === 'agent' ? (compactions[row.key] ?? 0) : undefined,
      ),
    );
  deps.output.out(
    formatRow(report.total, width, by === 'agent' ? total : undefined),
  );
  if (report.total.costUsd === null)
    deps.output.out(
      '$?: a model without a price (see prices in docs/usage.md)',
    );
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
