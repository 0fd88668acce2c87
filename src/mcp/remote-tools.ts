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
  listHostAgents,
  listHostRequests,
  type RemoteFleet,
} from '../remote/fleet.js';
import {
  HostRequestDetailSchema,
  HostScreenSchema,
  parseHostData,
} from '../remote/host-data.js';
import { HostRefusal } from '../remote/host-session.js';
import { qualifyName, splitRemoteName } from '../remote/names.js';
import { RemoteError } from '../remote/ssh-errors.js';
import { ToolRefusal } from './tool.js';
import type { RemoteTools } from './types.js';

/** The tools about one agent or request that a host answers itself. */
const FORWARDED = new Set([
  'get_request',
  'answer_request',
  'decide_approval',
  'read_screen',
  'send_message',
]);

async function eachHost<T>(
  fleet: RemoteFleet,
  read: (host: string) => Promise<T[]>,
): Promise<{ items: T[]; down: string[] }> {
  const results = await Promise.all(
    fleet.targets.map((t) =>
      read(t.name).then(
        (items) => ({ items, down: undefined }),
        (error: unknown) => ({ items: [] as T[], down: errorMessage(error) }),
      ),
    ),
  );
  return {
    items: results.flatMap((r) => r.items),
    down: results.flatMap((r) => (r.down ? [r.down] : [])),
  };
}

/** The forwarding tools over a (live) fleet. */
export function createRemoteTools(
  fleet: RemoteFleet,
  paths: HomePaths,
): RemoteTools {
  const refusal = (error: unknown, agent?: string): ToolRefusal =>
    new ToolRefusal(
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

  return {
    agents: async () => {
      const { items, down } = await eachHost(fleet, async (host) =>
        listHostAgents(await fleet.session(host)),
      );
      return { agents: items, down };
    },
    requests: async () => {
      const { items, down } = await eachHost(fleet, async (host) =>
        listHostRequests(await fleet.session(host)),
      );
      return { requests: items, down };
    },
    forward: async (tool, args) => {
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
        throw new ToolRefusal(
          `'${idArg ?? agentArg}' is not a name of this hub: a host's agent is <host>/<agent>, its request <host>/<id>`,
        );
      const { host, name } = split;
      if (!fleet.targets.some((t) => t.name === host))
        throw new ToolRefusal(`no host '${host}' in this hub's config`);
      const qualified = qualifyName(host, name);
      switch (tool) {
        case 'get_request': {
          const parsed = parseHostData(
            HostRequestDetailSchema,
            await call(host, tool, { id: name }),
          );
          if (!parsed.ok)
            throw new ToolRefusal(
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
              by: 'mcp:answer_request',
            },
          ).catch((error: unknown) => {
            throw error instanceof HostRefusal
              ? new ToolRefusal(`host ${host}: ${error.message}`)
              : refusal(error);
          });
          const text =
            result.type === 'answered'
              ? `answered ${qualified} on ${host}: its bridge types it into the worker once it is idle`
              : result.type === 'held'
                ? `host ${host} cannot be reached now: the answer to ${qualified} is kept and delivered once when it is back`
                : `an answer to ${qualified} is already kept for ${host}; it is not answered twice`;
          if (result.type === 'held-already') throw new ToolRefusal(text);
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
          });
          if (tool === 'read_screen') {
            const parsed = parseHostData(HostScreenSchema, data);
            if (!parsed.ok)
              throw new ToolRefusal(
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
          throw new ToolRefusal(
            `${tool} is not available for a host's ${idArg ? 'request' : 'agent'} (${qualified})`,
          );
      }
    },
  };
}
