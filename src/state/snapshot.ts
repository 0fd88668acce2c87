import { open, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseEventLines } from '../events/log.js';
import { escapeInvisible } from '../protocol/sanitize.js';
import type { MacsEvent } from '../events/types.js';
import type {
  AgentSnapshot,
  AnswerSnapshot,
  ApprovalSnapshot,
  DecisionSnapshot,
  EventSnapshot,
  RequestSnapshot,
  SessionSnapshot,
  Snapshot,
} from './snapshot-schema.js';
import { readPausedAgents } from './control.js';
import type { HomePaths } from '../home/paths.js';
import { readAllAgentStates } from './pending.js';
import { isProcessAlive } from './process.js';
import { freshAgentState } from './store.js';
import type {
  ApprovalVerdict,
  AgentStateFile,
  RecentRequest,
  RequestRecord,
  StoredResponse,
} from './types.js';

/**
 * The status snapshot: everything `macs status` shows, as data. It is the
 * output of `macs status --json` and the input of the live view. The schema
 * is versioned and documented field by field in docs/status.md; fields may
 * be added in a minor release, never renamed or removed without a new
 * `version`. Its zod schema is in snapshot-schema.ts, which only tests and
 * the MCP server load: building a snapshot needs only its types.
 */
export const SNAPSHOT_VERSION = 1;

// The types, for the modules that read snapshots (no zod at run time).
export type {
  AgentSnapshot,
  AnswerSnapshot,
  ApprovalSnapshot,
  DecisionSnapshot,
  EventSnapshot,
  RequestSnapshot,
  SessionSnapshot,
  Snapshot,
};

/** How many decided approvals a snapshot carries. */
export const SNAPSHOT_APPROVALS = 10;
/** How many recent events a snapshot carries. */
export const SNAPSHOT_EVENTS = 50;
/** How much of the end of each events file is read for recent events. */
const EVENT_TAIL_BYTES = 64 * 1024;
const PRIORITY_RANK = { high: 0, normal: 1, low: 2 } as const;

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

function toRequestSnapshot(
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
  };
}

function toEventSnapshot(event: MacsEvent): EventSnapshot {
  return {
    ts: event.ts,
    agent: event.agent,
    type: event.type,
    requestId: event.requestId ?? null,
    data: event.data ?? null,
  };
}

/** Round trip of the newest delivered request: detection to delivery. */
function lastRoundTrip(recent: readonly RecentRequest[]): number | null {
  const last = recent.find((r) => r.deliveredAt !== undefined);
  if (!last?.deliveredAt) return null;
  const ms = Date.parse(last.deliveredAt) - Date.parse(last.detectedAt);
  return Number.isFinite(ms) ? Math.max(0, ms) : null;
}

/** Reads a home into snapshots; caches what never changes (archived answers). */
export interface SnapshotReader {
  read(now?: Date): Promise<Snapshot>;
  /**
   * What a snapshot shows that no file change announces: which bridges are
   * alive (a bridge killed outright leaves its lock file behind). Cheap: a
   * few small reads and a signal 0 per agent, for the feed to call often.
   */
  liveness(): Promise<string>;
}

export interface SnapshotReaderOptions {
  /** Recent events carried (default SNAPSHOT_EVENTS). */
  eventLimit?: number;
}

/**
 * A reader of snapshots for one home. Each `read` is a handful of small
 * reads: every state file, the end of every events file (skipped when its
 * size and mtime are unchanged), `inbox/<id>.json` for open requests' context,
 * and each agent's newest archived answer (read once).
 */
export function createSnapshotReader(
  paths: HomePaths,
  options: SnapshotReaderOptions = {},
): SnapshotReader {
  const eventLimit = options.eventLimit ?? SNAPSHOT_EVENTS;
  const archived = new Map<string, StoredResponse | null>();
  const tails = new Map<
    string,
    { size: number; mtimeMs: number; events: MacsEvent[] }
  >();

  async function readContext(id: string): Promise<unknown> {
    try {
      const meta = JSON.parse(
        await readFile(path.join(paths.inbox, `${id}.json`), 'utf8'),
      ) as { context?: unknown };
      return meta.context ?? null;
    } catch {
      return null;
    }
  }

  /** The archived answer of a finished request (see bridge/archive.ts for the layout). */
  async function readArchivedResponse(
    recent: RecentRequest,
  ): Promise<StoredResponse | null> {
    const cached = archived.get(recent.id);
    if (cached !== undefined) return cached;
    let response: StoredResponse | null = null;
    try {
      const meta = JSON.parse(
        await readFile(
          path.join(
            paths.archive,
            recent.detectedAt.slice(0, 10),
            `${recent.id}.json`,
          ),
          'utf8',
        ),
      ) as { response?: StoredResponse };
      response = meta.response ?? null;
    } catch {
      response = null;
    }
    // A missing archive may still appear (the bridge archives before it forgets).
    if (response) archived.set(recent.id, response);
    return response;
  }

  async function lastResponseOf(
    state: AgentStateFile,
  ): Promise<AnswerSnapshot | null> {
    const newest = state.recent.find(
      (r) => r.instructions !== undefined || r.stage === 'answered-empty',
    );
    if (!newest) return null;
    const stored = await readArchivedResponse(newest);
    if (stored) {
      return answerOf(newest.id, newest.stage, stored, newest.deliveredAt);
    }
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

  async function readBridge(
    agent: string,
  ): Promise<{ running: boolean; pid: number | null }> {
    const text = await readFile(
      path.join(paths.state, `${agent}.lock`),
      'utf8',
    ).catch(() => '');
    const pid = Number.parseInt(text, 10);
    if (!Number.isFinite(pid) || pid <= 0) return { running: false, pid: null };
    return isProcessAlive(pid)
      ? { running: true, pid }
      : { running: false, pid: null };
  }

  async function readEventTail(file: string): Promise<MacsEvent[]> {
    const info = await stat(file).catch(() => undefined);
    if (!info) return [];
    const cached = tails.get(file);
    if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs)
      return cached.events;
    const start = Math.max(0, info.size - EVENT_TAIL_BYTES);
    const handle = await open(file, 'r');
    let text: string;
    try {
      const buffer = Buffer.alloc(info.size - start);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
    // Reading from the middle: the first (partial) line is not an event.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    const events = parseEventLines(text).slice(-eventLimit);
    tails.set(file, { size: info.size, mtimeMs: info.mtimeMs, events });
    return events;
  }

  async function readRecentEvents(): Promise<MacsEvent[]> {
    let files: string[];
    try {
      files = (await readdir(paths.events)).filter((f) => f.endsWith('.jsonl'));
    } catch {
      return [];
    }
    const all: MacsEvent[] = [];
    for (const file of files.sort())
      all.push(...(await readEventTail(path.join(paths.events, file))));
    return all
      .sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0))
      .slice(-eventLimit);
  }

  /** Ids of the requests in `inbox/` (those waiting for a person). */
  async function readInboxIds(): Promise<Set<string>> {
    try {
      return new Set(
        (await readdir(paths.inbox))
          .filter((n) => n.endsWith('.json'))
          .map((n) => n.slice(0, -'.json'.length)),
      );
    } catch {
      return new Set();
    }
  }

  /** The running session, else the last stopped one (small JSON files). */
  async function readSession(): Promise<SessionSnapshot> {
    const read = async (file: string) => {
      try {
        return JSON.parse(await readFile(file, 'utf8')) as Record<
          string,
          unknown
        >;
      } catch {
        return undefined;
      }
    };
    const text = (v: unknown) => (typeof v === 'string' ? v : null);
    const running = await read(paths.sessionFile);
    if (running)
      return {
        status: 'running',
        id: text(running.id),
        since: text(running.createdAt),
      };
    const stopped = await read(paths.stoppedSessionFile);
    if (stopped)
      return {
        status: 'stopped',
        id: text(stopped.id),
        since: text(stopped.stoppedAt),
      };
    return { status: 'none', id: null, since: null };
  }

  /** A state file written by an older bridge may lack newer fields. */
  function normalize(state: AgentStateFile): AgentStateFile {
    const base = freshAgentState(state.agent, state.preset ?? 'generic');
    return {
      ...base,
      ...state,
      requests: state.requests ?? {},
      recent: state.recent ?? [],
      counters: { ...base.counters, ...state.counters },
    };
  }

  return {
    async liveness() {
      const names = await readdir(paths.state).catch(() => [] as string[]);
      const agents = names
        .filter((n) => n.endsWith('.lock'))
        .map((n) => n.slice(0, -'.lock'.length))
        .sort();
      const parts = await Promise.all(
        agents.map(async (agent) => {
          const bridge = await readBridge(agent);
          return `${agent}=${bridge.pid ?? '-'}`;
        }),
      );
      return parts.join(' ');
    },
    async read(at = new Date()) {
      const now = at.getTime();
      const [states, paused, events, inbox, session] = await Promise.all([
        readAllAgentStates(paths),
        readPausedAgents(paths),
        readRecentEvents(),
        readInboxIds(),
        readSession(),
      ]);
      const agents: AgentSnapshot[] = [];
      const requests: RequestSnapshot[] = [];
      const approvals: ApprovalSnapshot[] = [];
      for (const state of states.map(normalize)) {
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
        const open = Object.values(state.requests);
        const waiting = (r: RequestRecord) =>
          isWaitingForPerson(r, inbox.has(r.id));
        for (const record of open) {
          const inInbox = inbox.has(record.id);
          const context =
            record.backend === 'file' || inInbox
              ? await readContext(record.id)
              : null;
          requests.push(toRequestSnapshot(record, context, now, inInbox));
        }
        agents.push({
          name: state.agent,
          preset: state.preset,
          pane: state.pane ?? null,
          state: state.state,
          stateSource: state.stateSource,
          stateSince: state.stateSince,
          stateAgeMs: Math.max(0, now - Date.parse(state.stateSince)),
          paused: state.paused || paused.has(state.agent),
          bridge: await readBridge(state.agent),
          counts: {
            pending: open.length,
            waitingForPerson: open.filter(waiting).length,
            detected: state.counters.detected,
            delivered: state.counters.delivered,
            duplicates: state.counters.duplicates,
            malformed: state.counters.malformed,
          },
          lastRoundTripMs: lastRoundTrip(state.recent),
          lastResponse: await lastResponseOf(state),
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
          updatedAt: state.updatedAt,
        });
      }
      requests.sort(
        (a, b) =>
          PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] ||
          a.detectedAt.localeCompare(b.detectedAt) ||
          a.id.localeCompare(b.id),
      );
      return {
        version: SNAPSHOT_VERSION,
        generatedAt: at.toISOString(),
        home: paths.home,
        session,
        totals: {
          agents: agents.length,
          pending: requests.length,
          waitingForPerson: requests.filter((r) => r.waitingForPerson).length,
          paused: agents.filter((a) => a.paused).length,
        },
        agents,
        requests,
        approvals: approvals
          .sort((a, b) => b.at.localeCompare(a.at) || a.id.localeCompare(b.id))
          .slice(0, SNAPSHOT_APPROVALS),
        events: events.map(toEventSnapshot),
      };
    },
  };
}

/** One snapshot of a home (`macs status --json`). */
export function buildSnapshot(
  paths: HomePaths,
  now: Date = new Date(),
): Promise<Snapshot> {
  return createSnapshotReader(paths).read(now);
}

/**
 * What changed for people, ignoring the clock (and `updatedAt`, which moves
 * whenever a bridge saves its log offset): two snapshots with the same
 * signature render the same, apart from ages.
 */
export function snapshotSignature(snapshot: Snapshot): string {
  return JSON.stringify(snapshot, (key, value: unknown) =>
    key === 'generatedAt' ||
    key === 'ageMs' ||
    key === 'stateAgeMs' ||
    key === 'updatedAt'
      ? undefined
      : value,
  );
}

/** Requests that wait for a person and are not in `seen` (the attention rule). */
export function selectNewAttention(
  snapshot: Snapshot,
  seen: ReadonlySet<string>,
): RequestSnapshot[] {
  return snapshot.requests.filter((r) => r.waitingForPerson && !seen.has(r.id));
}
