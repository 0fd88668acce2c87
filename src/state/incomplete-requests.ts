/**
 * Incomplete requests (issue 29): a block whose start marker a worker
 * printed and whose end marker has not come, shown to a person once it has
 * waited (bridge/intake/incomplete-watch.ts keeps it in the agent's state file).
 * `macs inbox` (text and `--json`), the status snapshot (`macs status`,
 * `--json`, the live view) and `macs respond` read it from there. It is no
 * request: it cannot be answered until it is complete.
 */
import { REQUEST_END } from '../protocol/request-markers.js';
import { escapeInvisible } from '../protocol/sanitize.js';
import type { IncompleteSnapshot } from './snapshot-schema.js';
import type { AgentStateFile, IncompleteRequest } from './types.js';

/** What the worker must do, in a few words (rows, lists). */
export const INCOMPLETE_FIX = `the worker must print the line ${REQUEST_END}, or ask again with a complete block`;

/** What a person is told: the worker waits, and what it must do. */
export function describeIncomplete(
  agent: string,
  notice: Pick<IncompleteRequest, 'reason'>,
): string {
  const why =
    notice.reason === 'prompt'
      ? 'its prompt came back under it'
      : 'its pane went quiet';
  return `${agent} printed a request without its end marker (${why}) and may be waiting: it is not in the inbox and cannot be answered until ${agent} prints the line ${REQUEST_END} or asks again with a complete block; tell it with macs send ${agent} "…"`;
}

/** An agent's incomplete request as the snapshot and `macs inbox --json` show it. */
export function toIncompleteSnapshot(
  agent: string,
  notice: IncompleteRequest,
): IncompleteSnapshot {
  return {
    agent,
    since: notice.since,
    reason: notice.reason === 'prompt' ? 'prompt' : 'quiet',
    firstLine: escapeInvisible(notice.firstLine),
    head: notice.head.map(escapeInvisible),
    lines:
      Number.isInteger(notice.lines) && notice.lines >= 0 ? notice.lines : 0,
    requestId: notice.requestId ?? null,
    message: describeIncomplete(agent, notice),
  };
}

/** The incomplete requests of these agents' states, oldest first. */
export function selectIncomplete(
  states: readonly AgentStateFile[],
  agent?: string,
): IncompleteSnapshot[] {
  return states
    .filter(
      (s) =>
        s.incomplete !== undefined &&
        (agent === undefined || s.agent === agent),
    )
    .map((s) =>
      toIncompleteSnapshot(s.agent, s.incomplete as IncompleteRequest),
    )
    .sort((a, b) => a.since.localeCompare(b.since));
}

/** The incomplete request that will have this id once complete, if any. */
export function findIncompleteById(
  states: readonly AgentStateFile[],
  id: string,
): IncompleteSnapshot | undefined {
  return selectIncomplete(states).find((i) => i.requestId === id);
}
