/**
 * The bridge's usage reading and budgets (docs/usage.md), wired for `macs
 * bridge`: which agents it reads (the fleet's, with how the session
 * launched them), the session budgets count in, and the budget check.
 */
import type { Attention } from '../bridge/route/attention.js';
import type { MultiAgent } from '../bridge/fleet/types.js';
import type { MultiBridge } from '../bridge/fleet/fleet.js';
import { createBudgetCheck } from '../bridge/usage/budget.js';
import {
  createUsageWatch,
  type UsageAgent,
  type UsageWatch,
} from '../bridge/usage/watch.js';
import type { MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import type { EventSink } from '../events/log.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { readSessionRecord } from '../session/record.js';
import type { TmuxClient } from '../tmux/client.js';

export interface BridgeUsageOptions {
  paths: HomePaths;
  config: MacsConfig;
  events: EventSink;
  log: Logger;
  attention: Attention;
  tmux: TmuxClient;
  agents: readonly MultiAgent[];
  bridge: MultiBridge;
}

export function createBridgeUsage(options: BridgeUsageOptions): UsageWatch {
  const { paths, config, bridge } = options;
  const configured = [
    ...(config.controller ? [config.controller] : []),
    ...localWorkers(config),
  ];
  const checkBudgets = createBudgetCheck(options);
  return createUsageWatch({
    paths,
    config,
    log: options.log.child({ component: 'usage' }),
    async describe() {
      const record = await readSessionRecord(paths).catch(() => undefined);
      const agents: UsageAgent[] = bridge.snapshot().map((slot) => {
        const launched = record?.agents.find((a) => a.name === slot.agent);
        const preset =
          launched?.preset ??
          options.agents.find((a) => a.name === slot.agent)?.profile.preset ??
          'generic';
        const budget = configured.find((a) => a.name === slot.agent)?.budget;
        const cwd = launched?.launch?.cwd ?? launched?.cwd;
        const env = launched?.launch?.env;
        return {
          name: slot.agent,
          preset,
          ...(slot.pane ? { pane: slot.pane } : {}),
          ...(cwd ? { cwd } : {}),
          ...(env ? { env } : {}),
          ...(budget ? { budget } : {}),
        };
      });
      return {
        agents,
        session: record
          ? { id: record.id ?? record.createdAt, since: record.createdAt }
          : { id: 'no-session' },
      };
    },
    onTotals: checkBudgets,
  });
}
