import { readdir, stat, open } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ConfigError } from '../errors.js';
import {
  matchesEvent,
  parseEventLines,
  parseSince,
  readEvents,
  type EventFilter,
} from '../events/log.js';
import { computeEventStats, formatEventStats } from '../events/stats.js';
import type { MacsEvent } from '../events/types.js';
import type { HomePaths } from '../home/paths.js';
import { createContext, loadConfigOrDefaults } from './common.js';
import { describeKnownAgents, listKnownAgents } from './known-agents.js';
import { forwardIfRemote } from './remote.js';
import type { CliDeps, CommonOptions } from './options.js';

export interface EventsOptions extends CommonOptions {
  agent?: string;
  type?: string;
  request?: string;
  since?: string;
  follow?: boolean;
  json?: boolean;
  stats?: boolean;
  /** Run by a hub over ssh: --follow ends when stdin ends (the hub went). */
  fromHub?: boolean;
}

/**
 * `interrupted`, or the end of stdin: a hub's follower (`--from-hub`) ends
 * with its ssh. ssh without a terminal sends no hangup, and a follower with
 * nothing to print would never notice the hub had gone (it was left running,
 * its parent init, until killed).
 */
function endedWithStdin(
  deps: CliDeps,
  stdin: NodeJS.ReadableStream = process.stdin,
): CliDeps {
  const gone = new Promise<'SIGTERM'>((resolve) => {
    stdin.once('end', () => resolve('SIGTERM'));
    stdin.once('close', () => resolve('SIGTERM'));
    stdin.once('error', () => resolve('SIGTERM'));
    stdin.resume();
  });
  return { ...deps, interrupted: Promise.race([deps.interrupted, gone]) };
}

/** An event as printed: this machine's, or a host's (its `type` unchecked against ours). */
type PrintedEvent = Omit<MacsEvent, 'type'> & { type: string };

/** One event as a line for people. */
export function formatEventLine(event: PrintedEvent): string {
  const time = event.ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  const data =
    event.data && Object.keys(event.data).length
      ? ` ${JSON.stringify(event.data)}`
      : '';
  return `${time}  ${event.agent}  ${event.type}${event.requestId ? `  ${event.requestId}` : ''}${data}`;
}

const FOLLOW_POLL_MS = 200;

/** Query the event log; with --follow, keep printing new events until interrupted. */
export async function runEvents(
  opts: EventsOptions,
  given: CliDeps,
): Promise<number> {
  const deps = opts.fromHub && opts.follow ? endedWithStdin(given) : given;
  const ctx = createContext(opts, deps);
  const { config } = await loadConfigOrDefaults(ctx, opts, deps);
  if (opts.agent?.includes('/') && !opts.follow) {
    // A host's agent: its own event log, read by its macs (docs/remote.md).
    const remote = await forwardIfRemote(
      opts.agent,
      'agent',
      ctx,
      deps,
      (name) => [
        'events',
        '--agent',
        name,
        ...(opts.type ? ['--type', opts.type] : []),
        ...(opts.since ? ['--since', opts.since] : []),
        ...(opts.json ? ['--json'] : []),
      ],
    );
    if (remote !== undefined) return remote;
  }
  if (opts.agent && !opts.agent.includes('/')) {
    // An agent of an earlier session still has its events; a name with no
    // events, state, session or config entry is a typo, not "no events".
    const known = await listKnownAgents(ctx.paths, config, { events: true });
    if (!known.includes(opts.agent)) {
      const what = `no agent '${opts.agent}' in ${ctx.paths.home} (no events, state or config entry)`;
      if (!opts.follow)
        throw new ConfigError(what, {
          hint: `${describeKnownAgents(known)}; macs events without --agent shows them all`,
        });
      deps.output.err(
        `warning: ${what}; following in case it appears (${describeKnownAgents(known)})`,
      );
    }
  }
  const filter: EventFilter = {
    ...(opts.agent ? { agent: opts.agent } : {}),
    ...(opts.type ? { type: opts.type } : {}),
    ...(opts.request ? { requestId: opts.request } : {}),
  };
  if (opts.since) {
    const since = parseSince(opts.since);
    if (!since)
      throw new ConfigError(
        `--since '${opts.since}' is not a duration (10m, 2h, 1d) or a date`,
      );
    filter.since = since;
  }
  if (opts.stats) {
    if (opts.follow)
      throw new ConfigError('--stats and --follow do not go together');
    const stats = computeEventStats(await readEvents(ctx.paths, filter));
    if (opts.json) deps.output.json(stats);
    else formatEventStats(stats).forEach((line) => deps.output.out(line));
    return 0;
  }
  const print = (event: PrintedEvent) =>
    opts.json
      ? deps.output.out(JSON.stringify(event))
      : deps.output.out(formatEventLine(event));
  if (!opts.follow) {
    const events = await readEvents(ctx.paths, filter);
    if (opts.json) deps.output.json(events);
    else if (events.length === 0) deps.output.out('no events');
    else events.forEach(print);
    return 0;
  }
  // At a hub, the hosts' events too (each followed over ssh).
  const plan =
    Object.keys(config.hosts).length > 0
      ? (await import('./events-remote.js')).planHostFollows(
          opts,
          config,
          deps.env,
        )
      : { hosts: [], local: true };
  const stopHosts = new AbortController();
  void deps.interrupted.then(() => stopHosts.abort());
  const hosts =
    plan.hosts.length > 0
      ? (await import('./events-remote.js')).followHosts(
          plan.hosts,
          deps,
          print,
          stopHosts.signal,
        )
      : Promise.resolve([]);
  if (plan.local) await followLocal(ctx.paths, filter, print, deps);
  else await deps.interrupted;
  stopHosts.abort();
  await hosts;
  return 0;
}

/** Print what exists, then new complete lines of every events file as they appear. */
async function followLocal(
  paths: HomePaths,
  filter: EventFilter,
  print: (event: PrintedEvent) => void,
  deps: CliDeps,
): Promise<void> {
  const ctx = { paths };
  for (const event of await readEvents(ctx.paths, filter)) print(event);
  const offsets = new Map<string, number>();
  const files = async () =>
    (await readdir(ctx.paths.events).catch(() => [] as string[])).filter((f) =>
      f.endsWith('.jsonl'),
    );
  for (const f of await files())
    offsets.set(f, (await stat(path.join(ctx.paths.events, f))).size);
  let stopped = false;
  void deps.interrupted.then(() => {
    stopped = true;
  });
  while (!stopped) {
    for (const f of await files()) {
      const file = path.join(ctx.paths.events, f);
      const size = (await stat(file).catch(() => undefined))?.size ?? 0;
      let from = offsets.get(f) ?? 0;
      if (size < from) from = 0;
      if (size === from) continue;
      const handle = await open(file, 'r');
      const buf = Buffer.alloc(size - from);
      await handle.read(buf, 0, buf.length, from);
      await handle.close();
      const text = buf.toString('utf8');
      const complete = text.lastIndexOf('\n') + 1; // leave a half-written line for the next round
      offsets.set(f, from + Buffer.byteLength(text.slice(0, complete)));
      for (const event of parseEventLines(text.slice(0, complete)))
        if (matchesEvent(event, filter)) print(event);
    }
    await Promise.race([delay(FOLLOW_POLL_MS), deps.interrupted]);
  }
}
