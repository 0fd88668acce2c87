/**
 * Selector for the live view's incomplete rows (issue 29): request blocks
 * shown without their end marker (state/incomplete-requests.ts).
 */
import { REQUEST_END } from '../protocol/request-markers.js';
import type { Snapshot } from '../state/snapshot-schema.js';
import { formatAgeAt } from './view-format.js';
import type { RequestRowData } from './view-model.js';

/**
 * Request blocks shown without their end marker (issue 29): drawn under the
 * open requests as yellow `incomplete` rows with their first line and what
 * the worker must do; never selectable (nothing to answer yet).
 */
export function selectIncompleteRows(
  snapshot: Snapshot,
  now: number,
): RequestRowData[] {
  return (snapshot.incomplete ?? []).map((r) => ({
    key: `incomplete:${r.agent}:${r.since}`,
    id: '',
    agent: r.agent,
    type: 'no end',
    age: formatAgeAt(r.since, now),
    firstLine: `${r.head[0] ?? r.firstLine} · no end marker: not answerable until ${r.agent} prints ${REQUEST_END} or asks again`,
    status: 'incomplete',
    colour: 'yellow',
    waitingForPerson: false,
    high: true,
  }));
}
