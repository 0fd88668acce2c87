/**
 * Pure: the agent detail's line about the work an agent does inside its
 * pane: the subagents it runs and the compactions of its context
 * (docs/status.md `subagents`, `compactions`). Undefined when there is
 * nothing to say.
 */
import type { AgentSnapshot } from '../state/snapshot-schema.js';
import { formatAgeAt } from './view-format.js';

/** Kinds with how many of each, e.g. `Explore ×2, general-purpose`. */
function kinds(runs: readonly { kind: string }[]): string {
  const counted = new Map<string, number>();
  for (const run of runs)
    counted.set(run.kind, (counted.get(run.kind) ?? 0) + 1);
  return [...counted]
    .map(([kind, n]) => (n > 1 ? `${kind} ×${n}` : kind))
    .join(', ');
}

export function agentWorkLine(
  a: AgentSnapshot,
  now: number,
): string | undefined {
  const parts: string[] = [];
  const sub = a.subagents;
  if (sub) {
    parts.push(
      sub.running.length > 0
        ? `subagents: ${sub.running.length} running (${kinds(sub.running)})`
        : 'subagents: none running',
      `${sub.finishedTotal} finished`,
    );
  }
  const compactions = a.compactions ?? 0;
  if (compactions > 0) {
    const last = a.lastCompaction;
    parts.push(
      `context compacted ${compactions}×${last ? ` (last ${last.trigger}, ${formatAgeAt(last.at, now)} ago)` : ''}`,
    );
  }
  return parts.length > 0 ? parts.join(' · ') : undefined;
}
