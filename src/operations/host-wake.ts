/**
 * `wake` of the hub's tools (hub-tools.ts): each host's own
 * wait_for_request runs on its link until one returns a request or a budget
 * notice, which is kept to be told at the hub.
 */
import { parseHostData, HostBudgetNoticeSchema } from '../remote/host-data.js';
import { qualifyName, splitRemoteName } from '../remote/names.js';
import type { RemoteFleet } from '../remote/remote-fleet.js';
import type { BudgetNotice, RemoteTools } from './types.js';

/** How long a hub asks a host's wait_for_request to wait (under the tool call bound). */
export const HOST_WAIT_SEC = 20;
/** A host that cannot be reached is asked again after this long. */
const HOST_WAIT_RETRY_MS = 3_000;
/** A wake comes at most this often (a host that answers at once is not a busy loop). */
const WAKE_MIN_MS = 250;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Whether a host's wait_for_request returned a request (its content is read again, checked). */
function returnedRequest(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const request = (data as { request?: unknown }).request;
  return typeof request === 'object' && request !== null;
}

/** A host's budget notice (checked as host data), named at the hub. */
function noticeOf(host: string, data: unknown): BudgetNotice | undefined {
  if (typeof data !== 'object' || data === null || !('notice' in data))
    return undefined;
  const parsed = parseHostData(HostBudgetNoticeSchema, data);
  if (!parsed.ok) return undefined;
  const n = parsed.value.notice;
  return { ...n, agent: qualifyName(host, n.agent) };
}

type WakeFilter = Parameters<RemoteTools['wake']>[0];

/** `wake`: each host's own wait_for_request, until one has a request. */
export function wakeOnHosts(
  fleet: RemoteFleet,
  notices: BudgetNotice[],
  filter: WakeFilter,
  signal: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const inner = new AbortController();
    const finish = () => {
      inner.abort();
      resolve();
    };
    signal.addEventListener('abort', finish, { once: true });
    if (signal.aborted) return finish();
    const split = filter.agent
      ? splitRemoteName(filter.agent, 'agent')
      : undefined;
    // A local agent (or a bad name): no host has its requests.
    if (filter.agent && (split === undefined || split === 'invalid')) return;
    const only = split && split !== 'invalid' ? split : undefined;
    for (const target of fleet.targets)
      if (!only || target.name === only.host)
        void waitOnHost(
          { fleet, notices, host: target.name, filter, only },
          inner.signal,
        ).then((found) => {
          if (found) finish();
        });
  });
}

/**
 * One host's wait_for_request, asked again until it returns a request or
 * a budget notice (true) or `signal` aborts (false).
 */
async function waitOnHost(
  wait: {
    fleet: RemoteFleet;
    notices: BudgetNotice[];
    host: string;
    filter: WakeFilter;
    only: { host: string; name: string } | undefined;
  },
  signal: AbortSignal,
): Promise<boolean> {
  const { fleet, host, filter, only } = wait;
  const prefix = `${host}/`;
  const exclude = filter.exclude
    .filter((id) => id.startsWith(prefix))
    .map((id) => id.slice(prefix.length))
    .slice(-2_000);
  while (!signal.aborted) {
    const started = Date.now();
    try {
      const session = await fleet.session(host);
      const data = await session.call(
        'wait_for_request',
        {
          timeout_sec: HOST_WAIT_SEC,
          include_pending: true,
          exclude,
          ...(only ? { agent: only.name } : {}),
          ...(filter.type ? { type: filter.type } : {}),
        },
        { signal },
      );
      // A budget paused one of the host's agents: kept to be told
      // (the host tells each pause once), and the wait woken.
      const notice = noticeOf(host, data);
      if (notice) wait.notices.push(notice);
      if (notice || returnedRequest(data)) {
        await sleep(WAKE_MIN_MS - (Date.now() - started), signal);
        return true;
      }
    } catch {
      // Down, or the call failed: asked again once it may be back.
      await sleep(HOST_WAIT_RETRY_MS, signal);
    }
  }
  return false;
}
