/**
 * The fleet's usage reading and budgets (docs/usage.md): which agents it
 * reads (the fleet's, with how the session launched them), the session
 * budgets count in, and the budget check.
 */
import type { MacsConfig } from '../../config/schema.js';
import { localWorkers } from '../../config/workers.js';
import type { EventSink } from '../../events/log.js';
import type { HomePaths } from '../../home/paths.js';
import type { Logger } from '../../log/logger.js';
import { readTeammates } from '../../state/teammates.js';
import type { TmuxClient } from '../../tmux/client.js';
import type { MultiBridge } from '../fleet/multi-bridge.js';
import type { Roster } from '../fleet/types.js';
import type { Attention } from '../route/attention.js';
import { createBudgetCheck } from './budget.js';
import {
  createUsageWatch,
  type UsageAgent,
  type UsageWatch,
} from './usage-watch.js';

export interface FleetUsageOptions {
  paths: HomePaths;
  config: MacsConfig;
  events: EventSink;
  log: Logger;
  attention: Attention;
  tmux: TmuxClient;
  roster: Roster;
  bridge: MultiBridge;
}

export function createFleetUsage(options: FleetUsageOptions): UsageWatch {
  const { paths, config, bridge, roster } = options;
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
      const session = await roster.launched().catch(() => undefined);
      // A teammate runs as its lead was launched (docs/hooks.md "Agent teams").
      const teammates = await readTeammates(paths);
      const agents: UsageAgent[] = bridge.snapshot().map((slot) => {
        const lead = teammates.find((t) => t.agent === slot.agent)?.lead;
        const launched =
          session?.agents.get(slot.agent) ??
          (lead ? session?.agents.get(lead) : undefined);
        const preset =
          launched?.preset ??
          roster.agents.find((a) => a.name === slot.agent)?.profile.preset ??
          'generic';
        const budget = configured.find((a) => a.name === slot.agent)?.budget;
        return {
          name: slot.agent,
          preset,
          ...(slot.pane ? { pane: slot.pane } : {}),
          ...(launched?.cwd ? { cwd: launched.cwd } : {}),
          ...(launched?.env ? { env: launched.env } : {}),
          ...(budget ? { budget } : {}),
        };
      });
      return {
        agents,
        session: session
          ? { id: session.id, since: session.since }
          : { id: 'no-session' },
      };
    },
    onTotals: checkBudgets,
  });
}
