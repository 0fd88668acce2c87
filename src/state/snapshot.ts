import { readdir } from 'node:fs/promises';
import type {
  AgentSnapshot,
  AnswerSnapshot,
  ApprovalSnapshot,
  RequestSnapshot,
  Snapshot,
} from './snapshot-schema.js';
import { readPausedAgents } from './person-controls.js';
import type { HomePaths } from '../home/paths.js';
import { readAllAgentStates } from './pending.js';
import { selectIncomplete } from './incomplete-requests.js';
import { isRefusal, refusedSince, selectRefused } from './refused.js';
import { createRecentEventsReader } from './snapshot-events.js';
import { createActivityReader } from './agent-activity.js';
import { SNAPSHOT_VERSION } from './snapshot-version.js';
import {
  groupUnderLeads,
  readTeammates,
  shownTeammateName,
} from './teammates.js';
import {
  createArchivedAnswers,
  readBridge,
  readInboxContext,
  readInboxIds,
  readSessionInfo,
} from './snapshot-files.js';
import {
  approvalsOf,
  lastAnswerOf,
  newestAnswered,
  normalizeAgentState,
  toAgentSnapshot,
  toEventSnapshot,
  toRequestSnapshot,
} from './snapshot-records.js';
import type { AgentStateFile } from './types.js';
import type { ModelPrice } from '../config/schema.js';
import { readTotals } from '../usage/usage-ledger.js';
import { priceTable } from '../usage/prices.js';
import { summarizeUsage } from '../usage/summary.js';

/**
 * The status snapshot: everything `macs status` shows, as data. It is the
 * output of `macs status --json` and the input of the live view. The schema
 * is versioned and documented field by field in docs/status.md; fields may
 * be added in a minor release, never renamed or removed without a new
 * `version`. Its zod schema and types are in snapshot-schema.ts, which only
 * tests and the MCP server load: building or reading a snapshot needs only
 * its types (type imports, gone at run time).
 *
 * This module reads a home into a snapshot. The rows are made in
 * snapshot-records.ts (pure), the home's small files are read in
 * snapshot-files.ts and the recent events in snapshot-events.ts; comparing
 * snapshots, for the live views, is in snapshot-changes.ts.
 */
export { SNAPSHOT_VERSION };

/** How many decided approvals a snapshot carries. */
export const SNAPSHOT_APPROVALS = 10;
/** How many recent events a snapshot carries. */
export const SNAPSHOT_EVENTS = 50;
const PRIORITY_RANK = { high: 0, normal: 1, low: 2 } as const;

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
  /** Prices per model over the defaults (config `prices`, docs/usage.md). */
  prices?: Readonly<Record<string, ModelPrice>>;
  /**
   * Whether the tmux server `tmux -L <socket>` runs (undefined: cannot
   * tell, e.g. no tmux). Given, a running session whose server is gone
   * reads as `server-gone`, and its agents as `unknown` (stateSource
   * `server-gone`): what their state files say was true before it went.
   */
  serverUp?: (socket: string) => Promise<boolean | undefined>;
}

/** How long one answer of `serverUp` stands for the reads that follow. */
const SERVER_PROBE_MS = 2_000;

/** What an agent of a session whose tmux server is gone reads as. */
export const SERVER_GONE_SOURCE = 'server-gone';

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
  const readRecentEvents = createRecentEventsReader(
    paths.events,
    options.eventLimit ?? SNAPSHOT_EVENTS,
    isRefusal,
  );
  const readArchivedResponse = createArchivedAnswers(paths.archive);
  const prices = priceTable(options.prices);
  const readActivity = createActivityReader(paths);

  async function usageOf(agent: string): Promise<AgentSnapshot['usage']> {
    const file = await readTotals(paths, agent);
    return file ? summarizeUsage(file, prices) : null;
  }

  async function lastResponseOf(
    state: AgentStateFile,
  ): Promise<AnswerSnapshot | null> {
    const newest = newestAnswered(state.recent);
    if (!newest) return null;
    return lastAnswerOf(newest, await readArchivedResponse(newest));
  }

  /** The running session's server is known to be gone. */
  // One probe (a tmux process) answers for SERVER_PROBE_MS: a view reads
  // on every change, many a second while a session starts, and the
  // liveness check (every few seconds) still sees a server die in time.
  let probed:
    | { socket: string; at: number; up: Promise<boolean | undefined> }
    | undefined;
  async function serverGone(socket: string | null): Promise<boolean> {
    if (!socket || !options.serverUp) return false;
    const now = Date.now();
    if (
      !probed ||
      probed.socket !== socket ||
      now - probed.at >= SERVER_PROBE_MS
    )
      probed = {
        socket,
        at: now,
        up: options.serverUp(socket).catch(() => undefined),
      };
    return (await probed.up) === false;
  }

  return {
    async liveness() {
      const names = await readdir(paths.state).catch(() => [] as string[]);
      // A killed tmux server changes no file either.
      const { session, socket } = await readSessionInfo(paths);
      const server =
        session.status === 'running' && (await serverGone(socket))
          ? 'server-gone '
          : '';
      return (
        server +
        names
          .filter((n) => n.endsWith('.lock'))
          .map((n) => n.slice(0, -'.lock'.length))
          .sort()
          .map(
            (agent) => `${agent}=${readBridge(paths.state, agent).pid ?? '-'}`,
          )
          .join(' ')
      );
    },
    async read(at = new Date()) {
      const now = at.getTime();
      const [states, paused, events, inbox, sessionInfo, teammates] =
        await Promise.all([
          readAllAgentStates(paths),
          readPausedAgents(paths),
          readRecentEvents(),
          readInboxIds(paths.inbox),
          readSessionInfo(paths),
          readTeammates(paths),
        ]);
      const { agents: sessionAgents } = sessionInfo;
      const gone =
        sessionInfo.session.status === 'running' &&
        (await serverGone(sessionInfo.socket));
      const session = gone
        ? { ...sessionInfo.session, status: 'server-gone' as const }
        : sessionInfo.session;
      const agents: AgentSnapshot[] = [];
      const requests: RequestSnapshot[] = [];
      const approvals: ApprovalSnapshot[] = [];
      const shown: AgentStateFile[] = [];
      for (const state of states.map(normalizeAgentState)) {
        const bridge = readBridge(paths.state, state.agent);
        // An agent an earlier session left, ended and done with: not this
        // session's.
        if (
          sessionAgents &&
          !sessionAgents.has(state.agent) &&
          state.state === 'dead' &&
          !bridge.running &&
          Object.keys(state.requests).length === 0
        )
          continue;
        shown.push(state);
        approvals.push(...approvalsOf(state));
        for (const record of Object.values(state.requests)) {
          const inInbox = inbox.has(record.id);
          const context =
            record.backend === 'file' || inInbox
              ? await readInboxContext(paths.inbox, record.id)
              : null;
          requests.push(toRequestSnapshot(record, context, now, inInbox));
        }
        const teammate = teammates.find((t) => t.agent === state.agent);
        const agent = toAgentSnapshot(state, {
          now,
          paused: paused.has(state.agent),
          inbox,
          bridge,
          lastResponse: await lastResponseOf(state),
          usage: await usageOf(state.agent),
          activity: await readActivity(state.agent).catch(() => undefined),
        });
        if (teammate)
          agent.teammate = {
            lead: teammate.lead,
            name: teammate.name,
            shownAs: shownTeammateName(teammate),
            team: teammate.team ?? null,
          };
        // Its pane went with the server: whatever the state file says
        // (idle, working) is no longer known.
        agents.push(
          gone && agent.state !== 'dead'
            ? { ...agent, state: 'unknown', stateSource: SERVER_GONE_SOURCE }
            : agent,
        );
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
        agents: groupUnderLeads(agents),
        requests,
        approvals: approvals
          .sort((a, b) => b.at.localeCompare(a.at) || a.id.localeCompare(b.id))
          .slice(0, SNAPSHOT_APPROVALS),
        events: events.map(toEventSnapshot),
        refused: selectRefused(
          readRecentEvents.kept(),
          refusedSince(
            session.status === 'stopped' || session.status === 'none'
              ? null
              : session.since,
            now,
          ),
        ),
        incomplete: selectIncomplete(shown),
      };
    },
  };
}

/** One snapshot of a home (`macs status --json`). */
export function buildSnapshot(
  paths: HomePaths,
  now: Date = new Date(),
  options: SnapshotReaderOptions = {},
): Promise<Snapshot> {
  return createSnapshotReader(paths, options).read(now);
}
