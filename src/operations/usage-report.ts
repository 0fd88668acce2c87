/**
 * `macs usage`'s figures (docs/usage.md): every agent's usage ledger
 * (`.macs/usage/<agent>.jsonl`) grouped by agent, model or day
 * (usage/report.ts), with how often each agent's context was compacted in
 * that time (its activity file, state/agent-activity.ts).
 */
import { readdir } from 'node:fs/promises';
import type { MacsConfig } from '../config/schema.js';
import type { HomePaths } from '../home/paths.js';
import { isValidAgentName } from '../protocol/ids.js';
import { countCompactions, readActivity } from '../state/agent-activity.js';
import { priceTable } from '../usage/prices.js';
import {
  buildUsageReport,
  type UsageGrouping,
  type UsageReport,
} from '../usage/report.js';
import { readLedger, usageDir } from '../usage/usage-ledger.js';
import { compareAgentNames } from '../state/agent-order.js';

/** The report, and the compactions per agent (`compactions` of `--json`). */
export interface UsageReading extends UsageReport {
  compactions: Record<string, number>;
}

/** The agents with a usage ledger, sorted (a file with another name is skipped). */
async function ledgerAgents(paths: HomePaths): Promise<string[]> {
  const names = await readdir(usageDir(paths)).catch(() => [] as string[]);
  return names
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => n.slice(0, -'.jsonl'.length))
    .filter(isValidAgentName)
    .sort(compareAgentNames);
}

/** The home's usage since `since` (all of it without), one row per group. */
export async function readUsageReport(
  paths: HomePaths,
  config: Pick<MacsConfig, 'prices'>,
  options: { by: UsageGrouping; since?: Date | undefined },
): Promise<UsageReading> {
  const { by, since } = options;
  const agents = await ledgerAgents(paths);
  const entries = [];
  for (const agent of agents)
    for (const entry of await readLedger(paths, agent))
      entries.push({ ...entry, agent });
  const report = buildUsageReport(entries, {
    by,
    ...(since ? { since } : {}),
    prices: priceTable(config.prices),
  });
  const compactions: Record<string, number> = {};
  for (const agent of agents)
    compactions[agent] = countCompactions(
      await readActivity(paths, agent),
      since,
    );
  return { ...report, compactions };
}
