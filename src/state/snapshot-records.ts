/**
 * The status snapshot's parts, made from what the bridges keep: a request
 * record becomes a request row, an agent's state file an agent row, an
 * event an event row. Pure (no file is read here), so each rule of what
 * `macs status` shows can be tested on plain values; snapshot.ts reads the
 * home (with snapshot-files.ts and snapshot-events.ts) and puts the parts
 * together.
 */
import type { MacsEvent } from '../events/types.js';
import { escapeInvisible } from '../protocol/sanitize.js';
import type {
  AgentSnapshot,
  AnswerSnapshot,
  ApprovalSnapshot,
  DecisionSnapshot,
  EventSnapshot,
  RequestSnapshot,
} from './snapshot-schema.js';
import { freshAgentState } from './store.js';
import { FINISHED_SHOWN, type ActivitySummary } from './agent-activity.js';
import {
  isFinalStage,
  type ApprovalVerdict,
  type AgentStateFile,
  type RecentRequest,
  type RequestRecord,
  type StoredResponse,
} from './types.js';

/** The first line of a text, without trailing blanks. */
export function firstLineOf(text: string): string {
  const line = text.split('\n').find((l) => l.trim()) ?? '';
  return line.trimEnd();
}

/**
 * A request waits for a person when it is in the inbox (routed to the file
 * backend first, or fallen back to it from an answerer that failed) and no
 * answer has come yet (SPEC §3: "a person (or any program) writes the
 * answer to outbox/"). `inInbox`: its `inbox/<id>.json` exists.
 */
export function isWaitingForPerson(
  record: Pick<RequestRecord, 'backend' | 'stage'>,
  inInbox = false,
): boolean {
  return (
    (record.backend === 'file' || inInbox) &&
    (record.stage === 'routed' || record.stage === 'detected')
  );
}

function answerOf(
  requestId: string,
  stage: RequestSnapshot['stage'],
  response: StoredResponse,
  deliveredAt: string | undefined,
): AnswerSnapshot {
  return {
    requestId,
    stage,
    instructions: response.instructions,
    notes: response.notes,
    source: response.source,
    receivedAt: response.receivedAt,
    deliveredAt: deliveredAt ?? null,
  };
}

/**
 * The newest finished request that was answered (an empty answer counts),
 * whose answer an agent row shows.
 */
export function newestAnswered(
  recent: readonly RecentRequest[],
): RecentRequest | undefined {
  return recent.find(
    (r) => r.instructions !== undefined || r.stage === 'answered-empty',
  );
}

/**
 * The answer of a finished request: the archived one when there is one,
 * else what the state file kept of it (the instructions only).
 */
export function lastAnswerOf(
  newest: RecentRequest,
  stored: StoredResponse | null,
): AnswerSnapshot {
  if (stored)
    return answerOf(newest.id, newest.stage, stored, newest.deliveredAt);
  return {
    requestId: newest.id,
    stage: newest.stage,
    instructions: newest.instructions ?? '',
    notes: '',
    source: null,
    receivedAt: null,
    deliveredAt: newest.deliveredAt ?? null,
  };
}

function toDecisionSnapshot(
  verdict: ApprovalVerdict | undefined,
): DecisionSnapshot | null {
  if (!verdict) return null;
  return {
    decision: verdict.decision ?? null,
    decidedBy: verdict.decidedBy,
    via: verdict.via,
    at: verdict.at,
  };
}

export function toRequestSnapshot(
  record: RequestRecord,
  context: unknown,
  now: number,
  inInbox = false,
): RequestSnapshot {
  const waiting = isWaitingForPerson(record, inInbox);
  return {
    id: record.id,
    agent: record.agent,
    workerId: record.workerId ?? null,
    type: record.type,
    priority: record.priority,
    stage: record.stage,
    // A request that fell back to a person waits at the file backend.
    backend: waiting ? 'file' : (record.backend ?? null),
    waitingForPerson: waiting,
    detectedAt: record.detectedAt,
    ageMs: Math.max(0, now - Date.parse(record.detectedAt)),
    firstLine: escapeInvisible(firstLineOf(record.body)),
    body: escapeInvisible(record.body),
    attributes: record.attributes,
    context: context ?? null,
    answer: record.response
      ? answerOf(record.id, record.stage, record.response, record.deliveredAt)
      : null,
    decision: toDecisionSnapshot(record.decision),
    waits:
      record.waits && record.stage === 'answered'
        ? {
            reason: escapeInvisible(record.waits.reason),
            since: record.waits.since,
          }
        : null,
  };
}

export function toEventSnapshot(event: MacsEvent): EventSnapshot {
  return {
    ts: event.ts,
    agent: event.agent,
    type: event.type,
    requestId: event.requestId ?? null,
    data: event.data ?? null,
  };
}

/** The decided approvals among an agent's finished requests. */
export function approvalsOf(state: AgentStateFile): ApprovalSnapshot[] {
  const approvals: ApprovalSnapshot[] = [];
  for (const recent of state.recent) {
    const decision = toDecisionSnapshot(recent.decision);
    if (decision)
      approvals.push({
        id: recent.id,
        agent: state.agent,
        stage: recent.stage,
        firstLine: escapeInvisible(recent.firstLine),
        ...decision,
      });
  }
  return approvals;
}

/** Round trip of the newest delivered request: detection to delivery. */
export function lastRoundTrip(recent: readonly RecentRequest[]): number | null {
  const last = recent.find((r) => r.deliveredAt !== undefined);
  if (!last?.deliveredAt) return null;
  const ms = Date.parse(last.deliveredAt) - Date.parse(last.detectedAt);
  return Number.isFinite(ms) ? Math.max(0, ms) : null;
}

/** What an agent row needs besides the agent's state file. */
export interface AgentFacts {
  now: number;
  /** Delivery is paused for it by `macs pause` (a control file). */
  paused: boolean;
  /** Ids of the requests in `inbox/`. */
  inbox: ReadonlySet<string>;
  bridge: AgentSnapshot['bridge'];
  lastResponse: AnswerSnapshot | null;
  /** Its usage (docs/usage.md); null when none is recorded. */
  usage?: AgentSnapshot['usage'];
  /** What its hooks said of its subagents and compactions (agent-activity.ts). */
  activity?: ActivitySummary;
}

export function toAgentSnapshot(
  state: AgentStateFile,
  facts: AgentFacts,
): AgentSnapshot {
  const { now, inbox } = facts;
  const open = Object.values(state.requests);
  const waiting = (r: RequestRecord) => isWaitingForPerson(r, inbox.has(r.id));
  return {
    name: state.agent,
    preset: state.preset,
    pane: state.pane ?? null,
    state: state.state,
    stateSource: state.stateSource,
    stateSince: state.stateSince,
    stateAgeMs: Math.max(0, now - Date.parse(state.stateSince)),
    paused: state.paused || facts.paused,
    bridge: facts.bridge,
    counts: {
      pending: open.length,
      waitingForPerson: open.filter(waiting).length,
      detected: state.counters.detected,
      delivered: state.counters.delivered,
      duplicates: state.counters.duplicates,
      malformed: state.counters.malformed,
    },
    lastRoundTripMs: lastRoundTrip(state.recent),
    lastResponse: facts.lastResponse,
    exit:
      state.state === 'dead'
        ? {
            code: state.exitCode ?? null,
            signal: state.exitSignal ?? null,
            lastLines: state.lastLines ?? [],
          }
        : null,
    hooks: state.hooks
      ? { status: state.hooks.status, reason: state.hooks.reason ?? null }
      : null,
    usage: facts.usage ?? null,
    ...activityFields(state, facts.activity),
    updatedAt: state.updatedAt,
  };
}

/**
 * The subagents and compactions of an agent. A dead agent runs no
 * subagent, whatever its last hooks said: those still running are shown
 * finished, with no stop time.
 */
function activityFields(
  state: AgentStateFile,
  activity: ActivitySummary | undefined,
): Pick<AgentSnapshot, 'subagents' | 'compactions' | 'lastCompaction'> {
  if (!activity)
    return { subagents: null, compactions: 0, lastCompaction: null };
  const dead = state.state === 'dead';
  const ended = dead ? activity.running : [];
  const hasSubagents =
    activity.running.length > 0 || activity.finishedTotal > 0;
  return {
    subagents: hasSubagents
      ? {
          running: dead ? [] : activity.running,
          finished: [...ended, ...activity.finished].slice(0, FINISHED_SHOWN),
          finishedTotal: activity.finishedTotal + ended.length,
        }
      : null,
    compactions: activity.compactions,
    lastCompaction: activity.lastCompaction,
  };
}

/** A state file written by an older bridge may lack newer fields. */
export function normalizeAgentState(state: AgentStateFile): AgentStateFile {
  const base = freshAgentState(state.agent, state.preset ?? 'generic');
  return {
    ...base,
    ...state,
    requests: state.requests ?? {},
    recent: state.recent ?? [],
    counters: { ...base.counters, ...state.counters },
  };
}

/**
 * What an open request waits for, for people: `you` when a person is to
 * answer it; else who or what holds it (the answerer, the delivery, a
 * pause), so an answered request is never offered for answering again.
 */
export function describeWaiting(
  record: Pick<RequestRecord, 'agent' | 'stage' | 'backend'>,
  facts: { paused: boolean; inInbox: boolean },
): { forPerson: boolean; text: string } {
  if (isWaitingForPerson(record, facts.inInbox))
    return { forPerson: true, text: 'waits for you' };
  if (isFinalStage(record.stage))
    return { forPerson: false, text: record.stage };
  switch (record.stage) {
    case 'detected':
      return { forPerson: false, text: 'being routed' };
    case 'routed':
      return {
        forPerson: false,
        text: `with the ${record.backend ?? 'answering'} backend`,
      };
    case 'answered':
    case 'delivering':
    case 'pasted':
      return {
        forPerson: false,
        text: facts.paused
          ? `answered; held while delivery to ${record.agent} is paused (macs resume ${record.agent})`
          : `answered; waiting to be typed into ${record.agent}`,
      };
    default: {
      const never: never = record.stage;
      return { forPerson: false, text: String(never) };
    }
  }
}
