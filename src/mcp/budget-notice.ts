/**
 * The budget notices of `wait_for_request` (docs/mcp.md): when the bridge
 * pauses an agent at 100% of a budget (docs/usage.md), the controller waiting
 * for requests hears of it through the same call, once per pause and
 * server, whether the pause came while it waited or between two calls.
 * Read from the agent's control file, which says who paused it and why.
 */
import { readPauseReason } from '../state/pause-reason.js';
import type { Snapshot } from '../state/snapshot-schema.js';
import type { ToolContext } from './tool.js';
import type { BudgetNotice, ToolOutput } from '../operations/types.js';

export type { BudgetNotice } from '../operations/types.js';

/** The tool's answer for one budget pause. */
export function budgetNoticeOutput(notice: BudgetNotice): ToolOutput {
  const whose =
    notice.scope === 'session' ? "the session's budget" : 'its budget';
  return {
    text: `${notice.agent} was paused by ${whose} (${notice.percent}%): nothing is typed into it, answers to it wait until a person runs macs resume ${notice.agent}. Call wait_for_request again to go on waiting.`,
    data: { request: null, timedOut: false, notice },
    agent: notice.agent,
    event: { notice: 'budget' },
  };
}

/**
 * A finder of the next budget pause this server has not told of yet,
 * among the snapshot's paused agents (of one agent, when given).
 */
export function createBudgetNotices(
  context: Pick<ToolContext, 'paths'>,
): (
  snapshot: Snapshot | undefined,
  agent: string | undefined,
) => Promise<ToolOutput | undefined> {
  const told = new Set<string>();
  return async (snapshot, agent) => {
    for (const a of snapshot?.agents ?? []) {
      if (!a.paused || (agent !== undefined && a.name !== agent)) continue;
      const reason = await readPauseReason(context.paths, a.name);
      if (reason?.by !== 'budget') continue;
      const key = `${a.name}\n${reason.at}`;
      if (told.has(key)) continue;
      told.add(key);
      return budgetNoticeOutput({
        notice: 'budget',
        agent: a.name,
        scope: reason.scope ?? 'agent',
        percent: reason.percent ?? 100,
        paused: true,
        pausedAt: reason.at,
        ...(reason.budget ? { budget: reason.budget } : {}),
        ...(reason.spentTokens !== undefined
          ? { spentTokens: reason.spentTokens }
          : {}),
        ...(reason.spentUsd !== undefined ? { spentUsd: reason.spentUsd } : {}),
      });
    }
    return undefined;
  };
}
