/**
 * The one merge point of the hub: every host of the config, reached over
 * ssh, seen as one fleet. Commands and tools ask this module, never ssh:
 * `readRemoteFleet` lists each host's link, version, round trip, agents
 * and open requests with `<host>/` names; `createRemoteFleet` gives a
 * session with a host, from a live link (a long-running process: the hub's
 * bridge, `macs mcp`) or a short one for a one-shot command. A short
 * session delivers the answers held for its host first, as a link does.
 */
import type { MacsConfig } from '../config/schema.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { sendHeldAnswer } from './answer.js';
import { deliverHeldAnswers, listHeldAnswers } from './held-answers.js';
import {
  HostAgentListSchema,
  HostRequestListSchema,
  parseHostData,
  type HostAgent,
  type HostRequest,
} from './host-data.js';
import {
  openHostSession,
  type HostSession,
  type HostTarget,
} from './host-session.js';
import { startHostLink, type HostLink, type LinkState } from './link.js';
import { readLinkStates } from './link-states.js';
import { clockOffsetMs, hubTime } from './host-clock.js';
import { keepHostRows, readKeptRows } from './host-rows.js';
import {
  downHostRows,
  qualifyAgents,
  qualifyRequests,
  type HostView,
  type RemoteAgent,
  type RemoteRequest,
} from './fleet-model.js';
import { RemoteError } from './ssh-errors.js';

export interface RemoteFleetOptions {
  config: MacsConfig;
  env: NodeJS.ProcessEnv;
  paths: HomePaths;
  version: string;
  log: Logger;
}

/** The hosts of a config, as ssh targets. */
export function hostTargets(
  config: MacsConfig,
  env: NodeJS.ProcessEnv,
): HostTarget[] {
  const configFile = config.sshConfig ?? env.MACS_SSH_CONFIG;
  return Object.entries(config.hosts).map(([name, host]) => ({
    name,
    destination: host.ssh,
    home: host.home,
    ...(configFile ? { configFile } : {}),
  }));
}

export interface RemoteFleet {
  targets: readonly HostTarget[];
  /** A session with a host; a `RemoteError` says why there is none. */
  session: (host: string) => Promise<HostSession>;
  /** The live links' states (empty for a one-shot fleet). */
  states: () => LinkState[];
  /**
   * Call `listener` with a host's name when its rows may have changed: the
   * host sent a change notice over its live link, or the link came up or
   * went down (never for a one-shot fleet). Returns the unsubscribe.
   */
  onChange: (listener: (host: string) => void) => () => void;
  close: () => Promise<void>;
}

function unknownHost(
  host: string,
  targets: readonly HostTarget[],
): RemoteError {
  return new RemoteError(
    host,
    'failed',
    'is not a host of this home',
    `the hosts of macs.config.json: ${targets.map((t) => t.name).join(', ') || 'none'}`,
  );
}

/**
 * The hub's view of its hosts. `live`: keep a link per host (reconnecting,
 * pinging) until `close()`; else open a short session per host on first
 * use, closed by `close()`.
 */
export function createRemoteFleet(
  options: RemoteFleetOptions,
  mode: { live: boolean; onState?: (state: LinkState) => void },
): RemoteFleet {
  const targets = hostTargets(options.config, options.env);
  const links = new Map<string, HostLink>();
  const short = new Map<string, Promise<HostSession>>();
  const changeListeners = new Set<(host: string) => void>();
  if (mode.live)
    for (const target of targets)
      links.set(
        target.name,
        startHostLink(target, {
          version: options.version,
          paths: options.paths,
          log: options.log,
          ...(mode.onState ? { onState: mode.onState } : {}),
          onChange: () => {
            for (const listener of [...changeListeners]) listener(target.name);
          },
        }),
      );
  const openShort = async (target: HostTarget): Promise<HostSession> => {
    const session = await openHostSession(target, { version: options.version });
    await deliverHeldAnswers(options.paths, target.name, (a) =>
      sendHeldAnswer(session, a),
    );
    return session;
  };
  return {
    targets,
    session: async (host) => {
      const target = targets.find((t) => t.name === host);
      if (!target) throw unknownHost(host, targets);
      const link = links.get(host);
      if (link) return link.session();
      let pending = short.get(host);
      if (!pending) {
        pending = openShort(target);
        short.set(host, pending);
        // A failed open is not kept: the next call tries again.
        pending.catch(() => short.delete(host));
      }
      return pending;
    },
    states: () => [...links.values()].map((l) => l.state()),
    onChange: (listener) => {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    close: async () => {
      changeListeners.clear();
      await Promise.all([...links.values()].map((l) => l.close()));
      await Promise.all(
        [...short.values()].map((p) =>
          p.then((s) => s.close()).catch(() => undefined),
        ),
      );
    },
  };
}

export type { HostView, RemoteAgent, RemoteRequest } from './fleet-model.js';

/** A tool's answer with the round trip that brackets the host's `now`. */
async function timedCall(
  session: HostSession,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ data: unknown; offsetOf: (now?: string) => number }> {
  const sent = Date.now();
  const data = await session.call(tool, args);
  const received = Date.now();
  return { data, offsetOf: (now) => clockOffsetMs(sent, received, now) };
}

/** What a host lists, as it said it (host names, the host's clock). */
interface HostLists {
  agents: HostAgent[];
  requests: HostRequest[];
  clockOffsetMs: number;
}

async function readHostLists(session: HostSession): Promise<HostLists> {
  const [agentsCall, requestsCall] = await Promise.all([
    timedCall(session, 'list_agents', {}),
    timedCall(session, 'list_requests', { full: true }),
  ]);
  const agents = parseHostData(HostAgentListSchema, agentsCall.data);
  if (!agents.ok) throw badData(session.host, 'list_agents', agents.error);
  const requests = parseHostData(HostRequestListSchema, requestsCall.data);
  if (!requests.ok)
    throw badData(session.host, 'list_requests', requests.error);
  const agentsOffset = agentsCall.offsetOf(agents.value.now);
  const requestsOffset = requestsCall.offsetOf(requests.value.now);
  // The host's times moved onto the hub's clock now, so the rows kept
  // (host-rows.ts) hold hub times and the offset is used once.
  const nowMs = Date.now();
  const moveAgents = agents.value.agents.map((a) => ({
    ...a,
    stateSince: hubTime(a.stateSince, agentsOffset, {
      ageSec: a.stateAgeSec,
      nowMs,
    }),
  }));
  const moveRequests = requests.value.requests.map((r) => ({
    ...r,
    detectedAt: hubTime(r.detectedAt, requestsOffset, {
      ageSec: r.ageSec,
      nowMs,
    }),
  }));
  return {
    agents: moveAgents,
    requests: moveRequests,
    clockOffsetMs: requestsOffset,
  };
}

/** The agents of a host's `list_agents`, named and timed at the hub. */
export async function listHostAgents(
  session: HostSession,
): Promise<RemoteAgent[]> {
  const { agents } = await readHostLists(session);
  return qualifyAgents(session.host, agents, Date.now());
}

/** The open requests of a host's `list_requests` (whole), named and timed at the hub. */
export async function listHostRequests(
  session: HostSession,
): Promise<RemoteRequest[]> {
  const { requests } = await readHostLists(session);
  return qualifyRequests(session.host, requests, Date.now());
}

function badData(host: string, tool: string, error: string): RemoteError {
  return new RemoteError(
    host,
    'failed',
    `sent data macs refuses (${tool}: ${error})`,
    'check the macs version there; nothing of it was used',
  );
}

/**
 * Every host of the fleet, read in parallel: a host that cannot be reached
 * is `down` with its error, its rows as last read kept and marked
 * (fleet-model.ts), and the others are read all the same.
 */
export async function readRemoteFleet(
  fleet: RemoteFleet,
  paths: HomePaths,
): Promise<HostView[]> {
  const live = new Map(fleet.states().map((s) => [s.host, s]));
  const recorded = live.size > 0 ? live : await readLinkStates(paths);
  return Promise.all(
    fleet.targets.map((target) =>
      readHost(fleet, paths, target, recorded.get(target.name)),
    ),
  );
}

/** One host of the fleet, read now (as `readRemoteFleet` reads each). */
export async function readRemoteHost(
  fleet: RemoteFleet,
  paths: HomePaths,
  host: string,
): Promise<HostView> {
  const target = fleet.targets.find((t) => t.name === host);
  if (!target) throw unknownHost(host, fleet.targets);
  const live = fleet.states().find((s) => s.host === host);
  const known = live ?? (await readLinkStates(paths)).get(host) ?? undefined;
  return readHost(fleet, paths, target, known);
}

async function readHost(
  fleet: RemoteFleet,
  paths: HomePaths,
  target: HostTarget,
  known: { link: string; since: string } | undefined,
): Promise<HostView> {
  const heldAnswers = (await listHeldAnswers(paths, target.name)).length;
  const base = {
    name: target.name,
    ssh: target.destination,
    home: target.home,
    heldAnswers,
  };
  try {
    const session = await fleet.session(target.name);
    const started = Date.now();
    await session.ping(5_000);
    const rttMs = Date.now() - started;
    const lists = await readHostLists(session);
    const nowMs = Date.now();
    // The link as it is now: a read that waited for the link to come up
    // began while it was connecting (its `since` not known yet).
    const link = fleet.states().find((s) => s.host === target.name) ?? known;
    await keepHostRows(paths, target.name, {
      seenAt: new Date(nowMs).toISOString(),
      agents: lists.agents,
      requests: lists.requests,
    }).catch(() => undefined);
    return {
      ...base,
      link: 'up',
      since: link?.link === 'up' ? link.since : null,
      version: session.version,
      rttMs,
      clockOffsetMs: lists.clockOffsetMs,
      error: null,
      agents: qualifyAgents(target.name, lists.agents, nowMs),
      requests: qualifyRequests(target.name, lists.requests, nowMs),
    };
  } catch (error) {
    const remote =
      error instanceof RemoteError
        ? error
        : new RemoteError(target.name, 'failed', String(error), '');
    const kept = await readKeptRows(paths, target.name);
    const since = known?.link === 'down' ? known.since : (kept?.seenAt ?? null);
    const rows = downHostRows(target.name, kept, since, Date.now());
    return {
      ...base,
      link: 'down',
      since,
      version: null,
      rttMs: null,
      clockOffsetMs: null,
      error: {
        kind: remote.kind,
        message: remote.message,
        ...(remote.hint ? { hint: remote.hint } : {}),
      },
      ...rows,
    };
  }
}

/**
 * The hosts of a hub at once, for a caller that holds no fleet (e.g. a web
 * view): a one-shot fleet read and closed. Local agents come from the
 * home's own snapshot (state/snapshot.ts); these are the `<host>/…` ones.
 */
export async function readHubFleet(
  options: RemoteFleetOptions,
): Promise<HostView[]> {
  if (Object.keys(options.config.hosts).length === 0) return [];
  const fleet = createRemoteFleet(options, { live: false });
  try {
    return await readRemoteFleet(fleet, options.paths);
  } finally {
    await fleet.close();
  }
}
