/**
 * Selectors: snapshot (+ the clock) -> the plain props rows are drawn from.
 * Pure; no React.
 */
import type {
  AgentSnapshot,
  AnswerSnapshot,
  EventSnapshot,
  RequestSnapshot,
  Snapshot,
} from '../state/snapshot-schema.js';
import { isFinalStage } from '../state/types.js';
import {
  describeEventData,
  formatAgeAt,
  formatClock,
  formatRoundTrip,
  truncate,
  wrapText,
} from './view-format.js';
import { formatUsageCell } from '../usage/usage-format.js';
import { agentWorkLine } from './agent-work.js';
import { addFigures, emptyTotals } from '../usage/types.js';
import {
  eventColour,
  requestColour,
  stateColour,
  type Colour,
} from './theme.js';

export interface AgentRowData {
  key: string;
  name: string;
  preset: string;
  state: AgentSnapshot['state'];
  stateColour: Colour;
  source: string;
  since: string;
  pane: string;
  pending: number;
  waiting: number;
  delivered: number;
  lastRoundTrip: string;
  /** Tokens and cost this session (docs/usage.md), e.g. `12.3k $0.42`. */
  usage: string;
  /** Short flags: `paused`, `no bridge`. */
  flags: string;
}

export interface RequestRowData {
  key: string;
  id: string;
  agent: string;
  type: string;
  age: string;
  firstLine: string;
  status: string;
  colour: Colour;
  waitingForPerson: boolean;
  high: boolean;
}

export interface EventRowData {
  key: string;
  time: string;
  agent: string;
  type: string;
  requestId: string;
  summary: string;
  colour: Colour;
}

/** Something the cursor can sit on: an agent row or a request row. */
export type SelectableItem =
  | { kind: 'agent'; key: string; agent: AgentSnapshot }
  | {
      kind: 'request';
      key: string;
      request: RequestSnapshot;
      agent: AgentSnapshot | undefined;
    };

export const agentKey = (name: string) => `agent:${name}`;
export const requestKey = (id: string) => `request:${id}`;

export function selectAgentRows(
  snapshot: Snapshot,
  now: number,
): AgentRowData[] {
  return snapshot.agents.map((a) => ({
    key: agentKey(a.name),
    // A teammate: `<lead>/<teammate>` under its lead, as `macs status` has it.
    name: a.teammate ? `  ${a.teammate.shownAs}` : a.name,
    preset: a.preset,
    state: a.state,
    stateColour: stateColour(a.state),
    source: a.stateSource,
    since: formatAgeAt(a.stateSince, now),
    pane: a.pane ?? '—',
    pending: a.counts.pending,
    waiting: a.counts.waitingForPerson,
    delivered: a.counts.delivered,
    lastRoundTrip: formatRoundTrip(a.lastRoundTripMs),
    usage: formatUsageCell(a.usage),
    flags: [a.paused ? 'paused' : '', a.bridge.running ? '' : 'no bridge']
      .filter(Boolean)
      .join(' · '),
  }));
}

/**
 * The usage of every agent together, for the table's heading; undefined
 * when no agent has any recorded. The cost is `$?` when a model has no price.
 */
export function selectUsageTotal(snapshot: Snapshot): string | undefined {
  const used = snapshot.agents.flatMap((a) => (a.usage ? [a.usage] : []));
  if (used.length === 0) return undefined;
  let total = emptyTotals();
  let cost: number | null = 0;
  for (const u of used) {
    total = addFigures(total, u);
    cost = cost === null || u.costUsd === null ? null : cost + u.costUsd;
  }
  return formatUsageCell({ ...total, costUsd: cost });
}

/** The short status word of a pending request. */
export function requestStatus(request: RequestSnapshot): string {
  if (request.waitingForPerson) return 'needs you';
  if (isFinalStage(request.stage)) return request.stage;
  switch (request.stage) {
    case 'detected':
      return 'detected';
    case 'routed':
      return request.backend ? `at ${request.backend}` : 'routed';
    case 'answered':
      return request.waits ? 'waits' : 'answered';
    case 'delivering':
    case 'pasted':
      return 'delivering';
    default: {
      const never: never = request.stage;
      return never;
    }
  }
}

export function selectRequestRows(
  snapshot: Snapshot,
  now: number,
): RequestRowData[] {
  return snapshot.requests.map((r) => ({
    key: requestKey(r.id),
    id: r.id,
    agent: r.agent,
    type: r.type,
    age: formatAgeAt(r.detectedAt, now),
    firstLine: r.firstLine || '(empty)',
    status: requestStatus(r),
    colour: requestColour(r),
    waitingForPerson: r.waitingForPerson,
    high: r.priority === 'high',
  }));
}

/**
 * Requests refused for their size (issue 25): drawn under the open ones as
 * red `refused` rows that say why; never selectable (nothing to answer).
 */
export function selectRefusedRows(
  snapshot: Snapshot,
  now: number,
): RequestRowData[] {
  return (snapshot.refused ?? []).map((r, i) => ({
    key: `refused:${r.agent}:${r.at}:${String(i)}`,
    id: '',
    agent: r.agent,
    type: r.reason,
    age: formatAgeAt(r.at, now),
    firstLine: `too long (${r.reason === 'max-bytes' ? `${String(r.bytes)}+ bytes` : `${String(r.lines)}+ lines`}), never raised; tell it: macs send ${r.agent} … · ${r.firstLine}`,
    status: 'refused',
    colour: 'red',
    waitingForPerson: false,
    high: true,
  }));
}

/** Newest last, at most `limit`. */
export function selectEventRows(
  events: readonly EventSnapshot[],
  limit: number,
  timeZone?: string,
): EventRowData[] {
  return events.slice(-Math.max(0, limit)).map((e, i) => ({
    key: `${e.ts}:${e.agent}:${e.type}:${i}`,
    time: formatClock(e.ts, timeZone),
    agent: e.agent,
    type: e.type,
    requestId: e.requestId ?? '',
    summary: describeEventData(e.type, e.data),
    colour: eventColour(e.type),
  }));
}

/** Every row the cursor can visit, in the order they are drawn. */
export function selectItems(snapshot: Snapshot): SelectableItem[] {
  const byName = new Map(snapshot.agents.map((a) => [a.name, a]));
  return [
    ...snapshot.agents.map((agent): SelectableItem => ({
      kind: 'agent',
      key: agentKey(agent.name),
      agent,
    })),
    ...snapshot.requests.map((request): SelectableItem => ({
      kind: 'request',
      key: requestKey(request.id),
      request,
      agent: byName.get(request.agent),
    })),
  ];
}

/** Why a request cannot be answered from the view; undefined when it can. */
export function whyNotAnswerable(request: RequestSnapshot): string | undefined {
  if (request.waitingForPerson) return undefined;
  if (
    request.answer ||
    request.stage === 'delivering' ||
    request.stage === 'pasted'
  )
    return `${request.id} is already answered; it is waiting to be delivered`;
  if (request.backend && request.backend !== 'file')
    return `${request.id} is answered by the ${request.backend} backend, not by a person`;
  return `${request.id} is not waiting for an answer yet (stage ${request.stage})`;
}

export type DetailTone = 'title' | 'dim' | 'text' | 'attention' | 'notes';
export interface DetailLine {
  text: string;
  tone: DetailTone;
}

function section(title: string, width: number): DetailLine {
  const bar = '─'.repeat(Math.max(0, width - [...title].length - 4));
  return { text: truncate(`── ${title} ${bar}`, width), tone: 'title' };
}

function textLines(text: string, width: number, tone: DetailTone = 'text') {
  return wrapText(text, width).map((line) => ({ text: line, tone }));
}

/** Context from the inbox metadata: objects as `key: value` lines. */
function contextText(context: unknown): string {
  if (typeof context === 'string') return context;
  if (context && typeof context === 'object' && !Array.isArray(context)) {
    return Object.entries(context as Record<string, unknown>)
      .map(([key, value]) =>
        typeof value === 'string' && value.includes('\n')
          ? `${key}:\n${value}`
          : `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
      )
      .join('\n');
  }
  return JSON.stringify(context, null, 2);
}

function answerLines(
  answer: AnswerSnapshot,
  width: number,
  now: number,
): DetailLine[] {
  const when = answer.deliveredAt
    ? `delivered ${formatAgeAt(answer.deliveredAt, now)} ago`
    : answer.receivedAt
      ? `answered ${formatAgeAt(answer.receivedAt, now)} ago`
      : answer.stage;
  const lines: DetailLine[] = [
    { text: `${answer.requestId} · ${when}`, tone: 'dim' },
  ];
  if (answer.instructions)
    lines.push(...textLines(`instructions: ${answer.instructions}`, width));
  else lines.push({ text: 'instructions: (none)', tone: 'dim' });
  if (answer.notes)
    lines.push(...textLines(`notes: ${answer.notes}`, width, 'notes'));
  else lines.push({ text: 'notes: (none)', tone: 'dim' });
  return lines;
}

/** The detail panel's lines for the selected row, wrapped to `width`. */
export function buildDetailLines(
  item: SelectableItem | undefined,
  width: number,
  now: number,
): DetailLine[] {
  if (!item) return [{ text: 'Nothing selected.', tone: 'dim' }];
  if (item.kind === 'agent') {
    const a = item.agent;
    const lines: DetailLine[] = [
      ...textLines(
        [
          `agent ${a.name}`,
          `preset ${a.preset}`,
          `pane ${a.pane ?? '—'}`,
          `${a.state} (${a.stateSource}) for ${formatAgeAt(a.stateSince, now)}`,
          a.bridge.running
            ? `bridge running (pid ${a.bridge.pid ?? '?'})`
            : 'no bridge running',
          a.paused ? 'delivery PAUSED (p resumes)' : 'delivery on',
          ...(a.hooks && a.hooks.status !== 'off'
            ? [
                `hooks ${a.hooks.status}${a.hooks.reason ? ` (${a.hooks.reason})` : ''}`,
              ]
            : []),
        ].join(' · '),
        width,
      ),
      ...textLines(
        `requests: ${a.counts.pending} pending (${a.counts.waitingForPerson} need you) · ${a.counts.detected} detected · ${a.counts.delivered} delivered · ${a.counts.duplicates} duplicates · ${a.counts.malformed} malformed · last round trip ${formatRoundTrip(a.lastRoundTripMs)}`,
        width,
        'dim',
      ),
    ];
    const work = agentWorkLine(a, now);
    if (work) lines.push(...textLines(work, width, 'dim'));
    lines.push(section('last response', width));
    if (a.lastResponse) lines.push(...answerLines(a.lastResponse, width, now));
    else lines.push({ text: 'none yet', tone: 'dim' });
    return lines;
  }
  const r = item.request;
  const lines: DetailLine[] = [
    ...textLines(
      `${r.id} · agent ${r.agent} · ${r.type} · ${r.priority} priority · ${r.stage}${r.backend ? ` via ${r.backend}` : ''} · ${formatAgeAt(r.detectedAt, now)} old`,
      width,
      'dim',
    ),
  ];
  if (r.waitingForPerson)
    lines.push(
      ...textLines(
        '● waiting for you: r answers here, e answers in $EDITOR',
        width,
        'attention',
      ),
    );
  else {
    const why = whyNotAnswerable(r);
    if (why) lines.push(...textLines(why, width, 'dim'));
  }
  if (r.waits)
    lines.push(
      ...textLines(
        `waits: ${r.waits.reason} (for ${formatAgeAt(r.waits.since, now)})`,
        width,
        'attention',
      ),
    );
  lines.push(section('request', width), ...textLines(r.body, width));
  if (r.context !== null)
    lines.push(
      section('context', width),
      ...textLines(contextText(r.context), width, 'dim'),
    );
  if (r.answer)
    lines.push(
      section('answer (not yet delivered)', width),
      ...answerLines(r.answer, width, now),
    );
  lines.push(section(`last response to ${r.agent}`, width));
  if (item.agent?.lastResponse)
    lines.push(...answerLines(item.agent.lastResponse, width, now));
  else lines.push({ text: 'none yet', tone: 'dim' });
  return lines;
}

/** Every time whose age the view shows (to know when to redraw). */
export function selectShownTimes(snapshot: Snapshot): string[] {
  const times: string[] = [];
  for (const a of snapshot.agents) {
    times.push(a.stateSince);
    if (a.lastResponse?.deliveredAt) times.push(a.lastResponse.deliveredAt);
    else if (a.lastResponse?.receivedAt) times.push(a.lastResponse.receivedAt);
  }
  for (const r of snapshot.requests) {
    times.push(r.detectedAt);
    if (r.answer?.receivedAt) times.push(r.answer.receivedAt);
  }
  for (const r of snapshot.refused ?? []) times.push(r.at);
  for (const r of snapshot.incomplete ?? []) times.push(r.since);
  return times;
}
