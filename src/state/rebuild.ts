/**
 * Rebuilding an agent's state from its event log, for when the state file is
 * unreadable (docs/reliability.md). The event log records every stage of a
 * request, so it tells which requests were seen (dedup), where each one got
 * to, and how far the pane log was read. What it does not hold (a request's
 * body, an answer's text) is found in the files the request left behind:
 * `inbox/<id>.txt`, or the context packet in the archive. The rebuild errs on
 * the side of never typing twice: an answer that may have begun to be typed
 * is not typed again, and one not yet typed is taken again from its backend
 * (its outbox file is still there) rather than from memory.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { eventFilePath, parseEventLines } from '../events/log.js';
import type { MacsEvent } from '../events/types.js';
import { recordSeen } from '../protocol/dedup.js';
import { hashBody } from '../protocol/ids.js';
import { readClaim } from './claim.js';
import {
  RECENT_MAX,
  recordStep,
  STAGE_OF_EVENT,
  STAGE_RANK,
  toRecent,
} from './ledger.js';
import type { HomePaths } from '../home/paths.js';
import type {
  AgentStateFile,
  Priority,
  RecentRequest,
  RequestAsker,
  RequestRecord,
  RequestStage,
} from './types.js';

const PRIORITIES: readonly Priority[] = ['low', 'normal', 'high'];

/** Events that record the pane-log offset (and the log's inode). */
const BRIDGE_EVENTS: ReadonlySet<string> = new Set([
  'bridge.started',
  'bridge.resumed',
  'bridge.stopped',
]);

/** What a rebuild found, for the warning it is reported with. */
export interface RebuildSummary {
  /** Events read from the agent's event log. */
  events: number;
  /** The requests carried on, by the stage they resume from. */
  resume: Partial<Record<RequestStage, string[]>>;
  /** Answered, not yet typed: the answer is taken again from its backend. */
  reanswer: string[];
  /** Open requests whose body was found nowhere: read again from the pane log. */
  reread: string[];
  finished: number;
  /** The pane log offset the bridge resumes from. */
  logOffset: number;
}

export interface RebuiltRequest {
  record: RequestRecord;
  archived: boolean;
  /** The saved pane-log offset when it was detected (before its block). */
  logOffset?: number;
}

/**
 * Pure: fold an agent's events (file order) into its requests, dedup memory,
 * counters and pane-log offset. Bodies are left empty; recoverAgentState
 * fills them in.
 */
export function rebuildFromEvents(
  events: readonly MacsEvent[],
  base: AgentStateFile,
): { state: AgentStateFile; requests: Map<string, RebuiltRequest> } {
  const state = structuredClone(base);
  const requests = new Map<string, RebuiltRequest>();
  let offset = 0;
  let inode: number | undefined;
  for (const event of events) {
    if (event.agent !== base.agent) continue;
    const data = event.data ?? {};
    const type = event.type;
    if (type === 'request.duplicate') state.counters.duplicates += 1;
    else if (type === 'request.malformed') state.counters.malformed += 1;
    else if (BRIDGE_EVENTS.has(type)) {
      if (typeof data.offset === 'number') offset = data.offset;
      if (typeof data.logInode === 'number') inode = data.logInode;
    } else if (type === 'capture.truncated' || type === 'capture.replaced') {
      offset = 0;
      inode = undefined;
    }
    const id = event.requestId;
    if (!id) continue;
    if (event.type === 'request.detected') {
      state.counters.detected += 1;
      if (typeof data.logOffset === 'number') offset = data.logOffset;
      if (!requests.has(id)) requests.set(id, detectedRequest(event, base));
      const record = requests.get(id)?.record;
      if (record) {
        state.dedup = recordSeen(state.dedup, {
          ...(record.workerId !== undefined
            ? { workerId: record.workerId }
            : {}),
          bodyHash: record.bodyHash,
          now: new Date(event.ts),
        });
      }
      continue;
    }
    const entry = requests.get(id);
    if (!entry) continue;
    const { record } = entry;
    if (event.type === 'request.delivered') state.counters.delivered += 1;
    if (event.type === 'request.archived') {
      entry.archived = true;
      const stage = data.stage;
      if (typeof stage === 'string' && stage in STAGE_RANK)
        recordStep(record, { type: 'reached', stage: stage as RequestStage });
      continue;
    }
    const stage = STAGE_OF_EVENT[event.type];
    if (!stage) continue;
    recordStep(record, {
      type: 'reached',
      stage,
      at: event.ts,
      ...(typeof data.backend === 'string' ? { backend: data.backend } : {}),
    });
  }
  state.logOffset = offset;
  if (inode !== undefined) state.logInode = inode;
  else delete state.logInode;
  state.requests = {};
  state.recent = [];
  return { state, requests };
}

function detectedRequest(
  event: MacsEvent,
  base: AgentStateFile,
): RebuiltRequest {
  const data = event.data ?? {};
  const attributes = stringRecord(data.attributes);
  const workerId = attributes.id;
  const priority =
    PRIORITIES.find((p) => p === data.priority) ??
    PRIORITIES.find((p) => p === attributes.priority) ??
    'normal';
  const record: RequestRecord = {
    id: event.requestId ?? '',
    agent: base.agent,
    ...(workerId !== undefined ? { workerId } : {}),
    type: typeof data.type === 'string' ? data.type : 'question',
    priority,
    attributes,
    // The full hash when the event has it (older events carry a prefix).
    bodyHash:
      typeof data.bodyHash === 'string'
        ? data.bodyHash
        : typeof data.hash === 'string'
          ? data.hash
          : '',
    body: '',
    stage: 'detected',
    detectedAt: event.ts,
    ...(isAsker(data.asker) ? { asker: data.asker } : {}),
    // Never typed, whatever its stage: a hook's approval or a screen's.
    ...(data.origin === 'hook' || data.origin === 'screen'
      ? { origin: data.origin }
      : {}),
  };
  return {
    record,
    archived: false,
    ...(typeof data.logOffset === 'number'
      ? { logOffset: data.logOffset }
      : {}),
  };
}

/** A `request.detected` event's `asker`, as the bridge wrote it. */
function isAsker(value: unknown): value is RequestAsker {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    Number.isInteger(v.pgid) &&
    typeof v.command === 'string' &&
    typeof v.shell === 'boolean'
  );
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

/**
 * Rebuild an agent's state from its event log and the files its requests
 * left (see the module comment). `base` is a fresh state for the agent.
 */
export async function recoverAgentState(
  paths: HomePaths,
  base: AgentStateFile,
): Promise<{ state: AgentStateFile; summary: RebuildSummary }> {
  const text = await readFile(eventFilePath(paths, base.agent), 'utf8').catch(
    () => '',
  );
  const events = parseEventLines(text);
  const { state, requests } = rebuildFromEvents(events, base);
  const summary: RebuildSummary = {
    events: events.length,
    resume: {},
    reanswer: [],
    reread: [],
    finished: 0,
    logOffset: 0,
  };
  const recent: RecentRequest[] = [];
  for (const { record, archived, logOffset } of requests.values()) {
    if (archived) {
      summary.finished += 1;
      recent.push(await recentOf(paths, record));
      continue;
    }
    if (record.stage === 'answered') {
      // The answer's text is not in the log. A claim says typing may have
      // begun (never typed again then) or the Stop hook handed it over.
      // Otherwise the answer is taken again from its backend:
      // outbox/<id>.txt is kept until the request is archived.
      const claim = await readClaim(paths, record.id);
      if (claim?.by === 'bridge')
        recordStep(record, { type: 'reached', stage: 'delivering' });
      else if (claim?.by === 'hook')
        recordStep(record, { type: 'reached', stage: 'delivered' });
      else {
        recordStep(record, {
          type: 'reopened',
          stage: record.backend ? 'routed' : 'detected',
        });
        summary.reanswer.push(record.id);
      }
    }
    const body = await findBody(paths, record);
    if (
      body === undefined &&
      (record.stage === 'detected' || record.stage === 'routed')
    ) {
      // Nowhere to ask it from again: forget it and read its block again.
      summary.reread.push(record.id);
      summary.reanswer = summary.reanswer.filter((id) => id !== record.id);
      forget(state, record);
      state.logOffset = Math.min(state.logOffset, logOffset ?? 0);
      continue;
    }
    if (body !== undefined) {
      record.body = body;
      record.bodyHash = hashBody(body);
      state.dedup.bodies[record.bodyHash] ??= record.detectedAt;
    }
    (summary.resume[record.stage] ??= []).push(record.id);
    state.requests[record.id] = record;
  }
  state.recent = recent
    .sort((a, b) => b.detectedAt.localeCompare(a.detectedAt))
    .slice(0, RECENT_MAX);
  summary.logOffset = state.logOffset;
  return { state, summary };
}

/** Drop what the dedup memory holds for a request, so it is detected again. */
function forget(state: AgentStateFile, record: RequestRecord): void {
  const ids = { ...state.dedup.ids };
  const bodies = { ...state.dedup.bodies };
  if (record.workerId !== undefined) delete ids[record.workerId];
  delete bodies[record.bodyHash];
  state.dedup = { ids, bodies };
}

/**
 * A request's body: its inbox file, else its archived context packet, else
 * its archived body (a request archived whose `request.archived` event was
 * lost).
 */
async function findBody(
  paths: HomePaths,
  record: RequestRecord,
): Promise<string | undefined> {
  const read = (file: string) => readFile(file, 'utf8').catch(() => undefined);
  const day = path.join(paths.archive, record.detectedAt.slice(0, 10));
  const inbox = await read(path.join(paths.inbox, `${record.id}.txt`));
  if (inbox !== undefined) return inbox;
  const packet = await read(path.join(day, `${record.id}.context.json`));
  if (packet !== undefined) {
    try {
      const body = (JSON.parse(packet) as { body?: unknown }).body;
      if (typeof body === 'string') return body;
    } catch {
      // a torn packet: try the archive
    }
  }
  return read(path.join(day, `${record.id}.request.txt`));
}

async function recentOf(
  paths: HomePaths,
  record: RequestRecord,
): Promise<RecentRequest> {
  const body = await readFile(
    path.join(
      paths.archive,
      record.detectedAt.slice(0, 10),
      `${record.id}.request.txt`,
    ),
    'utf8',
  ).catch(() => '');
  return toRecent({ ...record, body });
}
