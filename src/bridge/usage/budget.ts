/**
 * Budgets (docs/usage.md): after each reading of the agents' usage, an
 * agent's spending is set against its own budget and the fleet's against
 * the session's. At 80% a person is called; at 100% the agent (every agent,
 * for the session's budget) is paused as `macs pause` pauses it, so no
 * answer is typed into it, and with `onBudget: "interrupt"` its turn is
 * interrupted with its interrupt key. Each level happens once per session
 * and scope (a marker under `.macs/usage/budget/`), not at every reading.
 * A dollar budget over a model without a price cannot be checked: that is
 * said once, never guessed.
 */
import type { Budget, MacsConfig } from '../../config/schema.js';
import { emitSafely, type EventSink } from '../../events/log.js';
import type { HomePaths } from '../../home/paths.js';
import type { Logger } from '../../log/logger.js';
import {
  setDeliveryPaused,
  type PauseNote,
} from '../../state/person-controls.js';
import type { TmuxClient } from '../../tmux/client.js';
import { claimBudgetLevel, type UsageFile } from '../../usage/usage-ledger.js';
import { priceTable } from '../../usage/prices.js';
import {
  BUDGET_LEVELS,
  budgetLevel,
  costOfModels,
  readBudget,
  roundUsd,
} from '../../usage/summary.js';
import { addFigures, emptyTotals, tokenCount } from '../../usage/types.js';
import type { Attention } from '../route/attention.js';
import type { UsageAgent, UsageSession } from './usage-watch.js';

/** The scope of the session's budget in markers and events. */
export const SESSION_SCOPE = '_session';

/** Keys that interrupt a turn: Escape for the agents that say "esc to interrupt". */
export function budgetInterruptKey(preset: string): string {
  return preset === 'claude' || preset === 'codex' || preset === 'gemini'
    ? 'Escape'
    : 'C-c';
}

export interface BudgetCheckOptions {
  paths: HomePaths;
  config: MacsConfig;
  events: EventSink;
  log: Logger;
  attention: Attention;
  tmux: TmuxClient;
}

interface Spent {
  tokens: number;
  costUsd: number | null;
}

function describeBudget(budget: Budget): string {
  return [
    budget.usd !== undefined ? `$${budget.usd}` : undefined,
    budget.tokens !== undefined ? `${budget.tokens} tokens` : undefined,
  ]
    .filter(Boolean)
    .join(' or ');
}

function describeSpent(spent: Spent): string {
  return `${spent.tokens} tokens${spent.costUsd === null ? '' : `, $${roundUsd(spent.costUsd)}`}`;
}

export function createBudgetCheck(options: BudgetCheckOptions) {
  const { paths, config, events, log, attention, tmux } = options;
  const prices = priceTable(config.prices);
  const unpricedSaid = new Set<string>();

  function spentOf(files: readonly UsageFile[]): Spent {
    const models = files.flatMap((f) => f.models);
    let totals = emptyTotals();
    for (const m of models) totals = addFigures(totals, m, m.calls);
    return {
      tokens: tokenCount(totals),
      costUsd: costOfModels(models, prices),
    };
  }

  async function pause(
    agent: UsageAgent,
    scope: string,
    reading: Omit<PauseNote, 'by'>,
  ): Promise<void> {
    // Said in the control file, so `wait_for_request` can tell the
    // controller why (docs/mcp.md).
    await setDeliveryPaused(paths, agent.name, true, {
      by: 'budget',
      ...reading,
    });
    await emitSafely(events, log, {
      agent: agent.name,
      type: 'delivery.paused',
      data: { by: 'budget', scope },
    });
    if (config.onBudget === 'interrupt' && agent.pane)
      await tmux
        .sendKey(agent.pane, budgetInterruptKey(agent.preset))
        .catch((error: unknown) =>
          log.warn(
            { err: error, agent: agent.name },
            'budget interrupt failed',
          ),
        );
  }

  async function reach(
    level: number,
    scope: string,
    budget: Budget,
    spent: Spent,
    targets: readonly UsageAgent[],
  ): Promise<void> {
    const who = scope === SESSION_SCOPE ? 'the session' : scope;
    const agent = scope === SESSION_SCOPE ? 'bridge' : scope;
    const reading = {
      percent: level,
      scope:
        scope === SESSION_SCOPE ? ('session' as const) : ('agent' as const),
      budget,
      spentTokens: spent.tokens,
      spentUsd: spent.costUsd === null ? null : roundUsd(spent.costUsd),
    };
    if (level >= 100)
      for (const target of targets) await pause(target, scope, reading);
    const paused = level >= 100 ? targets.map((t) => t.name) : [];
    const message =
      level >= 100
        ? `${who} reached its budget (${describeBudget(budget)}; spent ${describeSpent(spent)}): ${paused.join(', ')} paused (macs resume <agent> to go on)`
        : `${who} used ${level}% of its budget (${describeBudget(budget)}; spent ${describeSpent(spent)})`;
    const data = {
      ...reading,
      ...(paused.length ? { paused } : {}),
      ...(config.onBudget === 'interrupt' && level >= 100
        ? { interrupted: true }
        : {}),
    };
    await emitSafely(events, log, { agent, type: 'usage.budget', data });
    const pane = targets[0]?.pane;
    await attention.notice({
      agent,
      reason: 'budget',
      message,
      ...(pane && scope !== SESSION_SCOPE ? { pane } : {}),
      data,
    });
  }

  async function check(
    scope: string,
    budget: Budget,
    spent: Spent,
    targets: readonly UsageAgent[],
    session: UsageSession,
  ): Promise<void> {
    const reading = readBudget(budget, spent);
    if (reading.unpriced && !unpricedSaid.has(scope)) {
      unpricedSaid.add(scope);
      await emitSafely(events, log, {
        agent: scope === SESSION_SCOPE ? 'bridge' : scope,
        type: 'warning',
        data: {
          message: `the dollar budget of ${scope === SESSION_SCOPE ? 'the session' : scope} cannot be checked: a model it used has no price (add it to "prices" in macs.config.json)`,
          budget: true,
        },
      });
    }
    const level = budgetLevel(reading);
    if (level === undefined) return;
    for (const l of BUDGET_LEVELS) {
      if (l > level) break;
      if (await claimBudgetLevel(paths, session.id, scope, l))
        await reach(l, scope, budget, spent, targets);
    }
  }

  /** Check every budget against the totals of a reading. */
  return async function checkBudgets(
    totals: ReadonlyMap<string, UsageFile>,
    agents: readonly UsageAgent[],
    session: UsageSession,
  ): Promise<void> {
    for (const agent of agents) {
      const file = totals.get(agent.name);
      if (agent.budget && file)
        await check(
          agent.name,
          agent.budget,
          spentOf([file]),
          [agent],
          session,
        );
    }
    if (config.budget)
      await check(
        SESSION_SCOPE,
        config.budget,
        spentOf([...totals.values()]),
        agents,
        session,
      );
  };
}
