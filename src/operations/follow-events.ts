/**
 * Following events (`macs events --follow`): what this machine's event
 * log has, then each new event as it is written; at a hub (docs/remote.md)
 * the hosts' events too, each naming its host (`gpu1/worker-1`,
 * `gpu1/<id>`), followed over ssh by remote/host-events.ts. `--agent
 * gpu1/<name>` and `--request gpu1/<id>` follow that host only; a local
 * name, this machine only.
 */
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { MacsConfig } from '../config/schema.js';
import {
  matchesEvent,
  parseEventLines,
  readEvents,
  type EventFilter,
} from '../events/log.js';
import type { MacsEvent } from '../events/types.js';
import type { HomePaths } from '../home/paths.js';
import { hostTargets } from '../remote/remote-fleet.js';
import {
  followHostEvents,
  type HostEventQuery,
  type HubEvent,
} from '../remote/host-events.js';
import type { HostTarget } from '../remote/host-session.js';
import { remoteTargetOf } from './host-forward.js';

/** How often the event files are read again while following. */
const FOLLOW_POLL_MS = 200;

/** An event as followed: this machine's, or a host's (its `type` unchecked against ours). */
export type FollowedEvent = Omit<MacsEvent, 'type'> & { type: string };

export interface HostFollow {
  target: HostTarget;
  query: HostEventQuery;
}

/**
 * The hosts to follow for these options, and whether this machine's own
 * log is followed too.
 */
export function planHostFollows(
  opts: { agent?: string; type?: string; request?: string; since?: string },
  config: MacsConfig,
  env: NodeJS.ProcessEnv,
): { hosts: HostFollow[]; local: boolean } {
  const common: HostEventQuery = {
    ...(opts.type ? { type: opts.type } : {}),
    ...(opts.since ? { since: opts.since } : {}),
  };
  const agent = opts.agent
    ? remoteTargetOf(opts.agent, 'agent', config, env)
    : undefined;
  const request = opts.request
    ? remoteTargetOf(opts.request, 'request', config, env)
    : undefined;
  if (agent && request && agent.target.name !== request.target.name)
    return { hosts: [], local: false };
  if (agent || request) {
    const target = (agent ?? request)?.target as HostTarget;
    return {
      hosts: [
        {
          target,
          query: {
            ...common,
            ...(agent ? { agent: agent.name } : {}),
            ...(request ? { request: request.name } : {}),
          },
        },
      ],
      local: false,
    };
  }
  // A local agent or request: this machine's log only.
  if (opts.agent || opts.request) return { hosts: [], local: true };
  return {
    hosts: hostTargets(config, env).map((target) => ({
      target,
      query: common,
    })),
    local: true,
  };
}

/** Follow each host until `signal` aborts; events and notices as they come. */
function followHosts(
  follows: readonly HostFollow[],
  onEvent: (event: HubEvent) => void,
  onNotice: (line: string) => void,
  signal: AbortSignal,
): Promise<void[]> {
  return Promise.all(
    follows.map((f) =>
      followHostEvents(f.target, f.query, { signal, onEvent, onNotice }),
    ),
  );
}

/** What `followEvents` follows, and where it tells of each event. */
export interface FollowEventsOptions {
  paths: HomePaths;
  config: MacsConfig;
  env: NodeJS.ProcessEnv;
  /** This machine's events: the ones that match. */
  filter: EventFilter;
  /** The names as given (`gpu1/<name>` names a host's). */
  names: { agent?: string; type?: string; request?: string; since?: string };
  onEvent: (event: FollowedEvent) => void;
  /** A host's link went down or came back, for people. */
  onNotice: (line: string) => void;
  /** Following stops when it aborts. */
  signal: AbortSignal;
}

/** Follow the events until `signal` aborts: this machine's, and at a hub the hosts'. */
export async function followEvents(
  options: FollowEventsOptions,
): Promise<void> {
  const { signal } = options;
  const plan =
    Object.keys(options.config.hosts).length > 0
      ? planHostFollows(options.names, options.config, options.env)
      : { hosts: [], local: true };
  const stopHosts = new AbortController();
  const hosts =
    plan.hosts.length > 0
      ? followHosts(
          plan.hosts,
          options.onEvent,
          options.onNotice,
          stopHosts.signal,
        )
      : Promise.resolve([]);
  if (plan.local)
    await followLocal(options.paths, options.filter, options.onEvent, signal);
  else await aborted(signal);
  stopHosts.abort();
  await hosts;
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void aborted(signal).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** What exists, then new complete lines of every events file as they appear. */
async function followLocal(
  paths: HomePaths,
  filter: EventFilter,
  onEvent: (event: FollowedEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  for (const event of await readEvents(paths, filter)) onEvent(event);
  const offsets = new Map<string, number>();
  for (const f of await eventFiles(paths))
    offsets.set(f, (await stat(path.join(paths.events, f))).size);
  while (!signal.aborted) {
    for (const f of await eventFiles(paths)) {
      const text = await readNewLines(path.join(paths.events, f), f, offsets);
      for (const event of parseEventLines(text))
        if (matchesEvent(event, filter)) onEvent(event);
    }
    await pause(FOLLOW_POLL_MS, signal);
  }
}

async function eventFiles(paths: HomePaths): Promise<string[]> {
  return (await readdir(paths.events).catch(() => [] as string[])).filter((f) =>
    f.endsWith('.jsonl'),
  );
}

/** The complete lines a file gained since its offset (a truncated file: from its start). */
async function readNewLines(
  file: string,
  key: string,
  offsets: Map<string, number>,
): Promise<string> {
  const size = (await stat(file).catch(() => undefined))?.size ?? 0;
  let from = offsets.get(key) ?? 0;
  if (size < from) from = 0;
  if (size === from) return '';
  const handle = await open(file, 'r');
  const buf = Buffer.alloc(size - from);
  await handle.read(buf, 0, buf.length, from);
  await handle.close();
  const text = buf.toString('utf8');
  const complete = text.lastIndexOf('\n') + 1; // leave a half-written line for the next round
  offsets.set(key, from + Buffer.byteLength(text.slice(0, complete)));
  return text.slice(0, complete);
}
