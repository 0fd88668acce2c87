/**
 * The tools of `macs mcp` at a hub (docs/remote.md): a call about
 * `<host>/<agent>` or `<host>/<id>` is answered by the host's own tool over
 * its link, with the host's names qualified on the way back; the listing
 * tools add each host's agents and requests. What a host returns is checked
 * (remote/host-data.ts) before the model sees it.
 */
import { errorMessage } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import { answerRemoteRequest } from '../remote/answer.js';
import {
  readRemoteFleet,
  type HostView,
  type RemoteFleet,
} from '../remote/remote-fleet.js';
import {
  HostBudgetNoticeSchema,
  HostRequestDetailSchema,
  HostScreenSchema,
  parseHostData,
} from '../remote/host-data.js';
import { HostRefusal } from '../remote/host-session.js';
import { qualifyName, splitRemoteName } from '../remote/names.js';
import { RemoteError } from '../remote/ssh-errors.js';
import { Refusal } from './refusal.js';
import type { BudgetNotice, RemoteTools } from './types.js';

/** The tools about one agent or request that a host answers itself. */
const FORWARDED = new Set([
  'get_request',
  'answer_request',
  'decide_approval',
  'read_screen',
  'send_message',
]);

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

/**
 * Every host as the hub's one model has it (remote/fleet-model.ts): a host
 * that cannot be reached keeps what was last read of it, marked, and is
 * named in `down`.
 */
async function readHosts(
  fleet: RemoteFleet,
  paths: HomePaths,
): Promise<{ views: HostView[]; down: string[] }> {
  const views = await readRemoteFleet(fleet, paths);
  return {
    views,
    down: views.flatMap((v) =>
      v.link === 'down'
        ? [v.error?.message ?? `host ${v.name} cannot be reached`]
        : [],
    ),
  };
}

/** The forwarding tools over a (live) fleet. */
export function createRemoteTools(
  fleet: RemoteFleet,
  paths: HomePaths,
): RemoteTools {
  const refusal = (error: unknown, agent?: string): Refusal =>
    new Refusal(
      error instanceof RemoteError && error.hint
        ? `${error.message} (hint: ${error.hint})`
        : errorMessage(error),
      agent,
    );
  const call = async (
    host: string,
    tool: string,
    args: Record<string, unknown>,
  ) => {
    try {
      return await (await fleet.session(host)).call(tool, args);
    } catch (error) {
      throw refusal(error);
    }
  };

  /** Budget notices hosts returned, named at the hub, not told yet. */
  const notices: BudgetNotice[] = [];
  /** A host's budget notice (checked as host data), named at the hub. */
  const noticeOf = (host: string, data: unknown): BudgetNotice | undefined => {
    if (typeof data !== 'object' || data === null || !('notice' in data))
      return undefined;
    const parsed = parseHostData(HostBudgetNoticeSchema, data);
    if (!parsed.ok) return undefined;
    const n = parsed.value.notice;
    return { ...n, agent: qualifyName(host, n.agent) };
  };

  return {
    takeNotice: (agent) => {
      const at = notices.findIndex(
        (n) => agent === undefined || n.agent === agent,
      );
      return at < 0 ? undefined : notices.splice(at, 1)[0];
    },
    agents: async () => {
      const { views, down } = await readHosts(fleet, paths);
      return { agents: views.flatMap((v) => v.agents), down };
    },
    requests: async () => {
      const { views, down } = await readHosts(fleet, paths);
      return { requests: views.flatMap((v) => v.requests), down };
    },
    wake: (filter, signal) =>
      new Promise<void>((resolve) => {
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
        if (filter.agent && (split === undefined || split === 'invalid'))
          return;
        const only = split && split !== 'invalid' ? split : undefined;
        const waitOn = async (host: string): Promise<boolean> => {
          const prefix = `${host}/`;
          const exclude = filter.exclude
            .filter((id) => id.startsWith(prefix))
            .map((id) => id.slice(prefix.length))
            .slice(-2_000);
          while (!inner.signal.aborted) {
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
                { signal: inner.signal },
              );
              // A budget paused one of the host's agents: kept to be told
              // (the host tells each pause once), and the wait woken.
              const notice = noticeOf(host, data);
              if (notice) notices.push(notice);
              if (notice || returnedRequest(data)) {
                await sleep(WAKE_MIN_MS - (Date.now() - started), inner.signal);
                return true;
              }
            } catch {
              // Down, or the call failed: asked again once it may be back.
              await sleep(HOST_WAIT_RETRY_MS, inner.signal);
            }
          }
          return false;
        };
        for (const target of fleet.targets)
          if (!only || target.name === only.host)
            void waitOn(target.name).then((found) => {
              if (found) finish();
            });
      }),
    forward: async (tool, given, by) => {
      // Who answered at the hub is this hub's to say, never the caller's.
      const { by: _claimed, ...args } = given;
      // The listing tools merge the hosts in their own handlers.
      if (!FORWARDED.has(tool)) return undefined;
      const agentArg = typeof args.agent === 'string' ? args.agent : undefined;
      const idArg = typeof args.id === 'string' ? args.id : undefined;
      const split = idArg
        ? splitRemoteName(idArg, 'request')
        : agentArg
          ? splitRemoteName(agentArg, 'agent')
          : undefined;
      if (split === undefined) return undefined;
      if (split === 'invalid')
        throw new Refusal(
          `'${idArg ?? agentArg}' is not a name of this hub: a host's agent is <host>/<agent>, its request <host>/<id>`,
        );
      const { host, name } = split;
      if (!fleet.targets.some((t) => t.name === host))
        throw new Refusal(`no host '${host}' in this hub's config`);
      const qualified = qualifyName(host, name);
      switch (tool) {
        case 'get_request': {
          const parsed = parseHostData(
            HostRequestDetailSchema,
            await call(host, tool, { id: name }),
          );
          if (!parsed.ok)
            throw new Refusal(
              `host ${host} sent a request macs refuses (${parsed.error})`,
            );
          const r = parsed.value.request;
          const request = {
            ...r,
            id: qualified,
            agent: qualifyName(host, r.agent),
            host,
          };
          return {
            text: `request ${request.id} from ${request.agent} (type ${r.type}, stage ${r.stage})\n\n${r.body}`,
            data: { request },
            requestId: name,
          };
        }
        case 'answer_request': {
          const result = await answerRemoteRequest(
            paths,
            () => fleet.session(host),
            {
              host,
              id: name,
              instructions:
                typeof args.instructions === 'string' ? args.instructions : '',
              ...(typeof args.notes === 'string' && args.notes.trim()
                ? { notes: args.notes }
                : {}),
              by: by ?? 'hub:answer_request',
            },
          ).catch((error: unknown) => {
            throw error instanceof HostRefusal
              ? new Refusal(`host ${host}: ${error.message}`)
              : refusal(error);
          });
          const text =
            result.type === 'answered'
              ? `answered ${qualified} on ${host}: its bridge types it into the worker once it is idle`
              : result.type === 'held'
                ? `host ${host} cannot be reached now: the answer to ${qualified} is kept and delivered once when it is back`
                : `an answer to ${qualified} is already kept for ${host}; it is not answered twice`;
          if (result.type === 'held-already') throw new Refusal(text);
          return {
            text,
            data: { id: qualified, host, outcome: result.type },
            requestId: name,
          };
        }
        case 'decide_approval':
        case 'read_screen':
        case 'send_message': {
          const data = await call(host, tool, {
            ...args,
            ...(idArg ? { id: name } : {}),
            ...(agentArg ? { agent: name } : {}),
            ...(tool === 'decide_approval'
              ? { by: by ?? 'hub:decide_approval' }
              : {}),
          });
          if (tool === 'read_screen') {
            const parsed = parseHostData(HostScreenSchema, data);
            if (!parsed.ok)
              throw new Refusal(
                `host ${host} sent a screen macs refuses (${parsed.error})`,
              );
            return {
              text: parsed.value.lines.join('\n'),
              data: { agent: qualified, host, lines: parsed.value.lines },
            };
          }
          return {
            text: `${tool} ${qualified}: done on ${host}`,
            data: {
              ...(idArg ? { id: qualified } : { agent: qualified }),
              host,
            },
          };
        }
        default:
          throw new Refusal(
            `${tool} is not available for a host's ${idArg ? 'request' : 'agent'} (${qualified})`,
          );
      }
    },
  };
}
