/**
 * Dismissing requests: ending them without an answer, the operation under
 * `macs dismiss`, `d` in the status view and the page of `macs web`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { AgentError, ConfigError, MacsError } from '../errors.js';
import { isSafeFileName } from '../protocol/ids.js';
import { createEventLog } from '../events/log.js';
import { endRequestsOffline } from '../bridge/requests/close.js';
import { isUntyped } from '../state/ledger.js';
import { requestDismissal } from '../session/session-requests.js';
import type { Logger } from '../log/logger.js';
import type { HomePaths } from '../home/paths.js';
import { listOpenRequests } from '../state/pending.js';
import { readAgentState } from '../state/store.js';
import type { RequestRecord } from '../state/types.js';
import { remoteTargetOf, runOnHost, type HubContext } from './host-forward.js';

/** How long `macs dismiss` waits for a running bridge to take a dismissal. */
export const DISMISS_WAIT_MS = 5_000;
const DISMISS_POLL_MS = 50;

export type DismissOutcome =
  | { id: string; result: 'dismissed'; agent: string; by: 'bridge' | 'macs' }
  | { id: string; result: 'handed-over'; agent: string; file: string }
  | { id: string; result: 'not-pending' }
  | { id: string; result: 'too-late'; agent: string; stage: string };

async function isStillOpen(
  paths: HomePaths,
  agent: string,
  id: string,
): Promise<boolean> {
  return Boolean((await readAgentState(paths, agent))?.requests[id]);
}

/**
 * End one request without an answer: directly when no bridge runs for its
 * agent, else through the running bridge (`outbox/<id>.dismiss`), waiting
 * a moment for it to be taken.
 */
async function dismissOne(
  paths: HomePaths,
  record: RequestRecord,
  reason: string,
  deps: { log: Logger },
): Promise<DismissOutcome> {
  const { id, agent } = record;
  if (!isUntyped(record))
    return { id, result: 'too-late', agent, stage: record.stage };
  try {
    const ended = await endRequestsOffline({
      paths,
      events: createEventLog(paths),
      log: deps.log,
      agent,
      select: (r) => r.id === id,
      stage: 'dismissed',
      reason: () => reason,
      by: 'person',
    });
    return ended.length > 0
      ? { id, result: 'dismissed', agent, by: 'macs' }
      : { id, result: 'not-pending' };
  } catch (error) {
    if (!(error instanceof AgentError)) throw error;
  }
  // A bridge supervises the agent: it ends the request itself.
  const file = await requestDismissal(paths, id, {
    agent,
    reason,
    by: 'person',
  });
  const until = Date.now() + DISMISS_WAIT_MS;
  while (Date.now() < until) {
    if (!(await isStillOpen(paths, agent, id)))
      return { id, result: 'dismissed', agent, by: 'bridge' };
    await delay(DISMISS_POLL_MS);
  }
  return { id, result: 'handed-over', agent, file };
}

/**
 * End each request without an answer (`macs dismiss`, `d` in the status
 * view); an id that is not pending is reported as such.
 */
export async function dismissRequests(
  paths: HomePaths,
  ids: readonly string[],
  reason: string,
  log: Logger,
): Promise<DismissOutcome[]> {
  const open = new Map((await listOpenRequests(paths)).map((r) => [r.id, r]));
  const outcomes: DismissOutcome[] = [];
  for (const id of ids) {
    const record = open.get(id);
    outcomes.push(
      record
        ? await dismissOne(paths, record, reason, { log })
        : { id, result: 'not-pending' },
    );
  }
  return outcomes;
}

/** One line for a person about one outcome. */
export function describeDismissal(o: DismissOutcome): string {
  switch (o.result) {
    case 'dismissed':
      return `dismissed ${o.id} (${o.agent}): archived, never sent`;
    case 'handed-over':
      return `asked the bridge of ${o.agent} to dismiss ${o.id} (${o.file}); it has not yet`;
    case 'not-pending':
      return `no pending request '${o.id}'`;
    case 'too-late':
      return `${o.id} (${o.agent}) is being typed into its worker (stage ${o.stage}); too late to dismiss`;
    default: {
      const never: never = o;
      throw new MacsError(`unexpected outcome ${JSON.stringify(never)}`);
    }
  }
}

/** What became of dismissing one request: here, or by its host's macs. */
export type DismissResult =
  DismissOutcome | { id: string; result: 'on-host'; lines: string[] };

/**
 * Dismiss one request: a host's (`<host>/<id>`) by that host's macs,
 * else here (dismissRequests).
 */
export async function dismissRequest(
  hub: HubContext,
  id: string,
  reason: string,
): Promise<DismissResult | undefined> {
  const remote = remoteTargetOf(id, 'request', hub.config, hub.env);
  if (remote)
    return {
      id,
      result: 'on-host',
      lines: await runOnHost(remote.target, [
        'dismiss',
        remote.name,
        '--reason',
        reason,
      ]),
    };
  const [outcome] = await dismissRequests(hub.paths, [id], reason, hub.log);
  return outcome;
}

/**
 * `macs dismiss <id>…`: each `<host>/<id>` dismissed by that host's macs,
 * one at a time (`hostLines`: their replies), then the others here
 * (`outcomes`); an id that is neither is bad usage (a ConfigError), the
 * hosts' ids already dismissed. `reason`: the person's, if given.
 */
export async function dismissEach(
  hub: HubContext,
  ids: readonly string[],
  reason: string | undefined,
): Promise<{ hostLines: string[]; outcomes: DismissOutcome[] }> {
  const hostLines: string[] = [];
  for (const id of ids.filter((i) => i.includes('/'))) {
    const remote = remoteTargetOf(id, 'request', hub.config, hub.env);
    if (remote)
      hostLines.push(
        ...(await runOnHost(remote.target, [
          'dismiss',
          remote.name,
          ...(reason ? ['--reason', reason] : []),
        ])),
      );
  }
  const local = ids.filter((i) => !i.includes('/'));
  if (local.length === 0) return { hostLines, outcomes: [] };
  for (const id of local)
    if (!isSafeFileName(id))
      throw new ConfigError(`'${id}' is not a request id`, {
        hint: 'see the ids with `macs inbox`',
      });
  const why = reason?.trim() || 'dismissed by a person';
  return {
    hostLines,
    outcomes: await dismissRequests(hub.paths, local, why, hub.log),
  };
}
