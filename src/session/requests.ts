import path from 'node:path';
import { DISMISS_SUFFIX, type DismissFile } from '../backends/file.js';
import { archiveRequest, removeRequestFiles } from '../bridge/archive.js';
import { AgentError } from '../errors.js';
import { emitSafely, type EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import { ensurePrivateDir, writeFileAtomic } from '../state/fs.js';
import {
  closeRecord,
  retireRecord,
  type UnansweredEnd,
} from '../state/ledger.js';
import type { HomePaths } from '../state/paths.js';
import { readAllAgentStates } from '../state/pending.js';
import {
  acquireAgentLock,
  loadAgentState,
  saveAgentState,
} from '../state/store.js';
import { isOpenStage, type RequestRecord } from '../state/types.js';

/**
 * Ending requests without an answer from outside a bridge: `macs dismiss`
 * and the expiry of an earlier session's requests at `macs start`. The
 * bridge is the only writer of an agent's state while it runs, so this
 * works only under the agent's lock; with a bridge running, a dismissal is
 * handed to it as `outbox/<id>.dismiss` instead.
 */

/** Stages in which a request can still be ended: nothing typed yet. */
export function isUntyped(record: Pick<RequestRecord, 'stage'>): boolean {
  return (
    record.stage === 'detected' ||
    record.stage === 'routed' ||
    record.stage === 'answered'
  );
}

export interface EndedRequest {
  id: string;
  agent: string;
  type: string;
  stage: RequestRecord['stage'];
  firstLine: string;
  reason: string;
}

/**
 * End some of one agent's open requests (`select`), with no bridge running
 * for it: archived with the stage and reason, inbox and outbox files
 * removed, an event each. Throws the lock's AgentError when a bridge runs.
 * A request whose typing had begun is recorded `unconfirmed` instead (its
 * text may have reached the program), never left open.
 */
export async function endRequestsOffline(options: {
  paths: HomePaths;
  events: EventSink;
  log: Logger;
  agent: string;
  select: (record: RequestRecord) => boolean;
  stage: UnansweredEnd;
  reason: (record: RequestRecord) => string;
  by: string;
}): Promise<EndedRequest[]> {
  const { paths, events, log, agent } = options;
  const release = await acquireAgentLock(paths, agent);
  const ended: EndedRequest[] = [];
  try {
    const loaded = await loadAgentState(paths, agent, 'generic');
    if (loaded.type === 'fresh') return [];
    const state = loaded.state;
    for (const record of Object.values(state.requests)) {
      if (!isOpenStage(record.stage) || !options.select(record)) continue;
      const reason = options.reason(record);
      const typed = !isUntyped(record);
      if (typed) {
        record.stage = 'unconfirmed';
        record.closed = {
          reason,
          by: options.by,
          at: new Date().toISOString(),
        };
      } else closeRecord(record, options.stage, reason, options.by);
      await archiveRequest(paths, record);
      retireRecord(state, record);
      await saveAgentState(paths, state);
      await removeRequestFiles(paths, record.id);
      const type = typed
        ? 'delivery.unconfirmed'
        : options.stage === 'expired'
          ? 'request.expired'
          : 'request.dismissed';
      await emitSafely(events, log, {
        agent,
        type,
        requestId: record.id,
        data: { reason, by: options.by },
      });
      await emitSafely(events, log, {
        agent,
        type: 'request.archived',
        requestId: record.id,
        data: { stage: record.stage },
      });
      ended.push({
        id: record.id,
        agent,
        type: record.type,
        stage: record.stage,
        firstLine: record.body.split('\n', 1)[0]?.slice(0, 120) ?? '',
        reason,
      });
    }
    return ended;
  } finally {
    await release();
  }
}

export interface ExpiryReport {
  expired: EndedRequest[];
  /** Agents whose requests were left alone: a bridge still runs for them. */
  busy: { agent: string; message: string }[];
}

/**
 * `macs start`: the requests still open from an earlier session can never
 * be answered by the agents of the new one, which never asked them. They
 * are expired (archived, never delivered). `keep` spares some (`--resume`).
 */
export async function expireEarlierRequests(options: {
  paths: HomePaths;
  events: EventSink;
  log: Logger;
  session: string;
  keep?: (record: RequestRecord) => boolean;
}): Promise<ExpiryReport> {
  const report: ExpiryReport = { expired: [], busy: [] };
  for (const state of await readAllAgentStates(options.paths)) {
    const open = Object.values(state.requests).filter((r) =>
      isOpenStage(r.stage),
    );
    if (open.length === 0) continue;
    try {
      report.expired.push(
        ...(await endRequestsOffline({
          paths: options.paths,
          events: options.events,
          log: options.log,
          agent: state.agent,
          select: (record) => !options.keep?.(record),
          stage: 'expired',
          reason: (record) =>
            `asked in an earlier session${record.session ? ` (${record.session})` : ''}; the agents of session ${options.session} never asked it`,
          by: 'macs start',
        })),
      );
    } catch (error) {
      if (!(error instanceof AgentError)) throw error;
      report.busy.push({ agent: state.agent, message: error.message });
    }
  }
  return report;
}

/**
 * Ask a running bridge to dismiss a request: `outbox/<id>.dismiss`, which
 * its outbox watcher hands to the agent's supervisor.
 */
export async function requestDismissal(
  paths: HomePaths,
  id: string,
  dismissal: DismissFile,
): Promise<string> {
  await ensurePrivateDir(paths.outbox);
  const file = path.join(paths.outbox, `${id}${DISMISS_SUFFIX}`);
  await writeFileAtomic(file, `${JSON.stringify(dismissal)}\n`);
  return file;
}
