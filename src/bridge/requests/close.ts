import { archiveRequest, removeRequestFiles } from './archive.js';
import { emitSafely, type EventSink } from '../../events/log.js';
import type { Logger } from '../../log/logger.js';
import {
  isUntyped,
  retireRecord,
  type LedgerStep,
  type UnansweredEnd,
} from '../../state/ledger.js';
import { takeStep, type StepHost } from '../../state/take-step.js';
import type { HomePaths } from '../../home/paths.js';
import {
  acquireAgentLock,
  loadAgentState,
  saveAgentState,
} from '../../state/store.js';
import {
  isOpenStage,
  type AgentStateFile,
  type RequestRecord,
} from '../../state/types.js';

/**
 * Ending requests without an answer outside a supervisor: `macs dismiss`
 * and the expiry of an earlier session's requests at `macs start` (no bridge
 * running), and a dismissal of a dead agent's request in `bridge --all`.
 * The writer must hold the agent's lock: while a bridge supervises the
 * agent, it is the only writer of its state.
 */

export interface EndedRequest {
  id: string;
  agent: string;
  type: string;
  stage: RequestRecord['stage'];
  firstLine: string;
  reason: string;
}

export interface EndRequestsOptions {
  paths: HomePaths;
  events: EventSink;
  log: Logger;
  select: (record: RequestRecord) => boolean;
  stage: UnansweredEnd;
  reason: (record: RequestRecord) => string;
  by: string;
}

/**
 * End some of an agent's open requests (`select`) in its state, which the
 * caller holds the lock of: archived with the stage and reason, inbox and
 * outbox files removed, the state saved, an event each. A request whose
 * typing had begun is recorded `unconfirmed` instead (its text may have
 * reached the program), never left open.
 */
export async function endRequestsInState(
  state: AgentStateFile,
  options: EndRequestsOptions,
): Promise<EndedRequest[]> {
  const { paths, events, log } = options;
  const agent = state.agent;
  const ended: EndedRequest[] = [];
  for (const record of Object.values(state.requests)) {
    if (!isOpenStage(record.stage) || !options.select(record)) continue;
    const reason = options.reason(record);
    const typed = !isUntyped(record);
    const at = new Date().toISOString();
    // Typing had begun: unconfirmed, with why it was ended all the same.
    const step: LedgerStep = typed
      ? { type: 'unconfirmed' }
      : { type: 'closed', stage: options.stage, reason, by: options.by, at };
    // Saved with the step: the archive and the open set without it; the
    // request's files go once the state is saved.
    const host: StepHost = {
      emit: (input) => emitSafely(events, log, { agent, ...input }),
      saveNow: async () => {
        await saveAgentState(paths, state);
        await removeRequestFiles(paths, record.id);
      },
    };
    await takeStep(
      host,
      record,
      step,
      {
        type: typed
          ? 'delivery.unconfirmed'
          : options.stage === 'expired'
            ? 'request.expired'
            : 'request.dismissed',
        data: { reason, by: options.by },
      },
      {
        alongside: async () => {
          if (typed) record.closed = { reason, by: options.by, at };
          await archiveRequest(paths, record);
          retireRecord(state, record);
        },
      },
    );
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
}

/**
 * The same with no bridge running for the agent: under its lock. Throws
 * the lock's AgentError when a bridge runs.
 */
export async function endRequestsOffline(
  options: EndRequestsOptions & { agent: string },
): Promise<EndedRequest[]> {
  const release = await acquireAgentLock(options.paths, options.agent);
  try {
    const loaded = await loadAgentState(
      options.paths,
      options.agent,
      'generic',
    );
    if (loaded.type === 'fresh') return [];
    return await endRequestsInState(loaded.state, options);
  } finally {
    await release();
  }
}
