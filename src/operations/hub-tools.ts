/**
 * The tools of `macs mcp` at a hub (docs/remote.md): a call about
 * `<host>/<agent>` or `<host>/<id>` is answered by the host's own tool over
 * its link, with the host's names qualified on the way back; the listing
 * tools add each host's agents and requests. What a host returns is checked
 * (remote/host-data.ts) before the model sees it.
 */
import { errorMessage, withHint } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import { answerRemoteRequest } from '../remote/answer.js';
import {
  readRemoteFleet,
  type HostView,
  type RemoteFleet,
} from '../remote/remote-fleet.js';
import {
  HostRequestDetailSchema,
  HostScreenSchema,
  parseHostData,
} from '../remote/host-data.js';
import { HostRefusal } from '../remote/host-session.js';
import { hostLink, hostLinkLine } from '../remote/host-link.js';
import { qualifyName, splitRemoteName } from '../remote/names.js';
import { RemoteError } from '../remote/ssh-errors.js';
import { Refusal } from './refusal.js';
import { wakeOnHosts } from './host-wake.js';
import type { HubAnswerBy } from '../protocol/approval.js';
import type { BudgetNotice, RemoteTools, ToolOutput } from './types.js';

/** The tools about one agent or request that a host answers itself. */
const FORWARDED = new Set([
  'get_request',
  'answer_request',
  'decide_approval',
  'read_screen',
  'send_message',
]);

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
    // In the words of every door (remote/host-link.ts).
    down: views.flatMap((v) =>
      v.link === 'down' ? [hostLinkLine(hostLink(v))] : [],
    ),
  };
}

/** A host's failure as a refusal the model reads (with the hint, if any). */
function hostCallRefusal(error: unknown): Refusal {
  return new Refusal(
    error instanceof RemoteError ? withHint(error) : errorMessage(error),
  );
}

/** A host's own tool, called over its link; a failure is a refusal. */
async function callHost(
  fleet: RemoteFleet,
  host: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  try {
    return await (await fleet.session(host)).call(tool, args);
  } catch (error) {
    throw hostCallRefusal(error);
  }
}

/** The forwarding tools over a (live) fleet. */
export function createRemoteTools(
  fleet: RemoteFleet,
  paths: HomePaths,
): RemoteTools {
  /** Budget notices hosts returned, named at the hub, not told yet. */
  const notices: BudgetNotice[] = [];
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
    wake: (filter, signal) => wakeOnHosts(fleet, notices, filter, signal),
    forward: (tool, given, by) =>
      forwardToHost({ fleet, paths }, tool, given, by),
  };
}

/** A forwarded call: its host, the name there and at the hub, its arguments. */
interface HostCall {
  fleet: RemoteFleet;
  paths: HomePaths;
  tool: string;
  args: Record<string, unknown>;
  by: HubAnswerBy | undefined;
  host: string;
  /** The agent's or request's name on the host. */
  name: string;
  /** The name at the hub, `<host>/<name>`. */
  qualified: string;
  /** Whether the call names a request (`id`) and an agent (`agent`). */
  hasId: boolean;
  hasAgent: boolean;
}

/** `forward`: a call about `<host>/…`, answered by the host. */
async function forwardToHost(
  hub: { fleet: RemoteFleet; paths: HomePaths },
  tool: string,
  given: Record<string, unknown>,
  by: HubAnswerBy | undefined,
): Promise<ToolOutput | undefined> {
  // Who answered at the hub is this hub's to say, never the caller's.
  const { by: _claimed, ...args } = given;
  // The listing tools merge the hosts in their own handlers.
  if (!FORWARDED.has(tool)) return undefined;
  const call = hostCallOf(hub, tool, args, by);
  if (!call) return undefined;
  switch (tool) {
    case 'get_request':
      return forwardGetRequest(call);
    case 'answer_request':
      return forwardAnswerRequest(call);
    case 'decide_approval':
    case 'read_screen':
    case 'send_message':
      return forwardHostTool(call);
    default:
      throw new Refusal(
        `${tool} is not available for a host's ${call.hasId ? 'request' : 'agent'} (${call.qualified})`,
      );
  }
}

/**
 * The host and names of a call's `id` (else its `agent`); undefined for a
 * local name. A bad name or an unknown host is refused.
 */
function hostCallOf(
  hub: { fleet: RemoteFleet; paths: HomePaths },
  tool: string,
  args: Record<string, unknown>,
  by: HubAnswerBy | undefined,
): HostCall | undefined {
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
  if (!hub.fleet.targets.some((t) => t.name === host))
    throw new Refusal(`no host '${host}' in this hub's config`);
  return {
    ...hub,
    tool,
    args,
    by,
    host,
    name,
    qualified: qualifyName(host, name),
    hasId: Boolean(idArg),
    hasAgent: Boolean(agentArg),
  };
}

/** `get_request` on a host: its request, checked, named at the hub. */
async function forwardGetRequest(call: HostCall): Promise<ToolOutput> {
  const { host, name, qualified } = call;
  const parsed = parseHostData(
    HostRequestDetailSchema,
    await callHost(call.fleet, host, call.tool, { id: name }),
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

/** `answer_request` for a host: sent now, or kept while the host is down. */
async function forwardAnswerRequest(call: HostCall): Promise<ToolOutput> {
  const { host, name, qualified, args } = call;
  const result = await answerRemoteRequest(
    call.paths,
    () => call.fleet.session(host),
    {
      host,
      id: name,
      instructions:
        typeof args.instructions === 'string' ? args.instructions : '',
      ...(typeof args.notes === 'string' && args.notes.trim()
        ? { notes: args.notes }
        : {}),
      by: call.by ?? 'hub:answer_request',
    },
  ).catch((error: unknown) => {
    throw error instanceof HostRefusal
      ? new Refusal(`host ${host}: ${error.message}`)
      : hostCallRefusal(error);
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

/** `decide_approval`, `read_screen` or `send_message`: the host's own tool. */
async function forwardHostTool(call: HostCall): Promise<ToolOutput> {
  const { host, name, qualified, tool, args } = call;
  const data = await callHost(call.fleet, host, tool, {
    ...args,
    ...(call.hasId ? { id: name } : {}),
    ...(call.hasAgent ? { agent: name } : {}),
    ...(tool === 'decide_approval'
      ? { by: call.by ?? 'hub:decide_approval' }
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
    data: { ...(call.hasId ? { id: qualified } : { agent: qualified }), host },
  };
}
