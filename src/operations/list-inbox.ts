/**
 * What `macs inbox` lists (docs/requests.md): this home's open requests,
 * each with what it waits for; at a hub, its hosts' open requests
 * (remote/remote-fleet.ts, the reader the MCP tools' hosts use too); the
 * blocks shown without their end marker; and the requests refused for
 * their size. One value, read once, for a door to render.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { HomePaths } from '../home/paths.js';
import type { HostView, RemoteRequest } from '../remote/fleet-model.js';
import { readSessionRecord } from '../session/record.js';
import { selectIncomplete } from '../state/incomplete-requests.js';
import { listOpenRequests, readAllAgentStates } from '../state/pending.js';
import { readPausedAgents } from '../state/person-controls.js';
import { refusedSince, selectRefused } from '../state/refused.js';
import { createRecentEventsReader } from '../state/snapshot-events.js';
import type {
  IncompleteSnapshot,
  RefusedSnapshot,
} from '../state/snapshot-schema.js';
import { describeWaiting } from '../state/snapshot-records.js';
import type { RequestRecord } from '../state/types.js';
import type { HubContext } from './host-forward.js';

/** Refused requests are looked for among this many newest events. */
const REFUSED_EVENTS = 500;

/** An open request, and what it waits for (a person, or who holds it). */
export interface InboxRequest {
  request: RequestRecord;
  waiting: { forPerson: boolean; text: string };
}

/** The hosts' open requests, and the hosts that cannot be reached. */
export interface HostsInbox {
  /** Whole, named at the hub (`<host>/<id>`); a down host's as last read. */
  requests: RemoteRequest[];
  down: HostView[];
}

export interface Inbox {
  open: InboxRequest[];
  /** Undefined: the config names no hosts. */
  hosts: HostsInbox | undefined;
  refused: RefusedSnapshot[];
  incomplete: IncompleteSnapshot[];
}

/**
 * The inbox of the home, and of its hosts when the config names any (a
 * one-shot link each; `hub.log` is read only then), optionally of one agent.
 */
export async function readInbox(
  hub: HubContext,
  agent?: string,
): Promise<Inbox> {
  const { paths } = hub;
  const open = (await listOpenRequests(paths)).filter(
    (r) => !agent || r.agent === agent,
  );
  const hosts =
    Object.keys(hub.config.hosts).length === 0
      ? undefined
      : await readHostsInbox(hub, agent);
  const refused = await readRefused(paths, agent);
  // Blocks shown without their end marker (state/incomplete-requests.ts).
  const incomplete = selectIncomplete(await readAllAgentStates(paths), agent);
  return { open: await withWaiting(paths, open), hosts, refused, incomplete };
}

/** What each open request waits for: a paused agent's, one in the inbox folder. */
async function withWaiting(
  paths: HomePaths,
  open: readonly RequestRecord[],
): Promise<InboxRequest[]> {
  const paused = await readPausedAgents(paths);
  return open.map((request) => ({
    request,
    waiting: describeWaiting(request, {
      paused: paused.has(request.agent),
      inInbox: existsSync(path.join(paths.inbox, `${request.id}.txt`)),
    }),
  }));
}

/** Each host's open requests (a host that cannot be reached: as last read, marked). */
async function readHostsInbox(
  hub: HubContext,
  agent: string | undefined,
): Promise<HostsInbox> {
  // Loaded only at a hub: the hosts' links bring the MCP SDK, which a
  // home without hosts never loads (`macs inbox` stays quick).
  const [{ withHostFleet }, { readRemoteFleet }] = await Promise.all([
    import('./host-forward.js'),
    import('../remote/remote-fleet.js'),
  ]);
  const views = await withHostFleet(hub, (fleet) =>
    readRemoteFleet(fleet, hub.paths),
  );
  return {
    requests: views
      .flatMap((v) => v.requests)
      .filter((r) => !agent || r.agent === agent),
    down: views.filter((v) => v.link === 'down'),
  };
}

/**
 * Requests refused for their size (state/refused.ts) since the session
 * began, or in the last day when no session runs.
 */
async function readRefused(
  paths: HomePaths,
  agent: string | undefined,
): Promise<RefusedSnapshot[]> {
  const session = await readSessionRecord(paths).catch(() => undefined);
  const events = await createRecentEventsReader(paths.events, REFUSED_EVENTS)();
  return selectRefused(
    events,
    refusedSince(session?.createdAt, Date.now()),
    agent,
  );
}
