/**
 * Requests' paths from the recent events: each request's stages with the
 * time it reached each (detected -> routed -> answered -> delivered ->
 * confirmed, or how it ended otherwise). Pure.
 */
import type {
  EventSnapshot,
  RequestSnapshot,
} from '../state/snapshot-schema.js';
import { STAGE_OF_EVENT } from '../state/ledger.js';
import type { PathStep, RequestPath } from './messages.js';

/**
 * The event types that are steps of a request's path, and the step's name:
 * the ledger's stages, and two steps that are no stage (queued for a
 * person, failed at an answerer).
 */
const STEP_OF: Readonly<Partial<Record<string, string>>> = {
  ...STAGE_OF_EVENT,
  'request.queued': 'queued',
  'request.failed': 'failed',
};

/** How many paths the page is given. */
export const PATHS_SHOWN = 20;

/**
 * The paths of the pending requests and of those the events mention,
 * newest first (at most PATHS_SHOWN). A pending request's detection comes
 * from its record when its event is no longer among the recent ones.
 */
export function buildRequestPaths(
  requests: readonly RequestSnapshot[],
  events: readonly EventSnapshot[],
): RequestPath[] {
  const paths = new Map<string, RequestPath>();
  const pathOf = (id: string, agent: string): RequestPath => {
    let found = paths.get(id);
    if (!found) {
      found = { id, agent, firstLine: '', steps: [] };
      paths.set(id, found);
    }
    return found;
  };
  for (const r of requests) {
    const p = pathOf(r.id, r.agent);
    p.firstLine = r.firstLine;
  }
  const oldestFirst = [...events].sort((a, b) => a.ts.localeCompare(b.ts));
  for (const e of oldestFirst) {
    const stage = e.requestId ? STEP_OF[e.type] : undefined;
    if (!stage || !e.requestId) continue;
    const p = pathOf(e.requestId, e.agent);
    if (!p.steps.some((s) => s.stage === stage))
      p.steps.push({ stage, at: e.ts });
    const line = e.data?.firstLine;
    if (!p.firstLine && typeof line === 'string') p.firstLine = line;
  }
  for (const r of requests) {
    const p = pathOf(r.id, r.agent);
    if (!p.steps.some((s) => s.stage === 'detected'))
      p.steps.unshift({ stage: 'detected', at: r.detectedAt });
  }
  const started = (p: RequestPath): string => p.steps[0]?.at ?? '';
  return [...paths.values()]
    .filter((p) => p.steps.length > 0)
    .sort((a, b) => started(b).localeCompare(started(a)))
    .slice(0, PATHS_SHOWN);
}

/** A step list in order of time (for tests and the page). */
export function orderSteps(steps: readonly PathStep[]): PathStep[] {
  return [...steps].sort((a, b) => a.at.localeCompare(b.at));
}
