import path from 'node:path';
import { DISMISS_SUFFIX, type DismissFile } from '../backends/outbox-names.js';
import {
  endRequestsOffline,
  type EndedRequest,
} from '../bridge/requests/close.js';
import { AgentError } from '../errors.js';
import type { EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import { readAllAgentStates } from '../state/pending.js';
import { isOpenStage, type RequestRecord } from '../state/types.js';

/**
 * Requests of a session as a whole: the expiry of an earlier session's
 * requests at `macs start`, and handing a dismissal to a running bridge
 * (`outbox/<id>.dismiss`). Ending them is bridge/close.ts.
 */

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
