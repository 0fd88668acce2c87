import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { HomePaths } from '../home/paths.js';
import { appendPrivateSync, ensurePrivateDir } from '../home/fs.js';
import {
  isMacsEvent,
  type EventInput,
  type EventType,
  type MacsEvent,
} from './types.js';

/** Something events can be recorded into. */
export interface EventSink {
  emit(input: EventInput): Promise<MacsEvent>;
}

/**
 * Record an event; when it cannot be written, say so in the developer log
 * instead of throwing: an event records what happened, it is never a reason
 * for the work itself to fail.
 */
export async function emitSafely(
  events: EventSink,
  log: Logger,
  input: EventInput,
): Promise<void> {
  try {
    await events.emit(input);
  } catch (error) {
    log.error({ err: error, event: input.type }, 'could not record event');
  }
}

/** Records an event of one request (its agent and id), safely. */
export type RequestEmitter = (
  request: { agent: string; id: string },
  type: EventType,
  data: Record<string, unknown>,
) => Promise<void>;

/** The request's own events, written with emitSafely. */
export function createRequestEmitter(
  events: EventSink,
  log: Logger,
): RequestEmitter {
  return (request, type, data) =>
    emitSafely(events, log, {
      agent: request.agent,
      type,
      requestId: request.id,
      data,
    });
}

export function eventFilePath(paths: HomePaths, agent: string): string {
  return path.join(paths.events, `${agent}.jsonl`);
}

/**
 * Append events to `.macs/events/<agent>.jsonl`. Each event is one line
 * written with a single `write(2)` on a file opened `O_APPEND`, so several
 * processes appending at once never interleave or lose a line.
 */
export function createEventLog(
  paths: HomePaths,
  options: { onEvent?: (event: MacsEvent) => void } = {},
): EventSink {
  let ready: Promise<void> | undefined;
  return {
    async emit(input) {
      ready ??= ensurePrivateDir(paths.events);
      await ready;
      const event: MacsEvent = {
        ts: input.ts ?? new Date().toISOString(),
        agent: input.agent,
        type: input.type,
        ...(input.requestId === undefined
          ? {}
          : { requestId: input.requestId }),
        ...(input.data === undefined ? {} : { data: input.data }),
      };
      // At once, not through the thread pool: events are written on the
      // detection path, and a line this size is one quick write(2).
      // Never through a link planted in its place (SPEC §9).
      appendPrivateSync(
        eventFilePath(paths, input.agent),
        `${JSON.stringify(event)}\n`,
      );
      options.onEvent?.(event);
      return event;
    },
  };
}

/** Parse JSONL text; a torn or malformed line is skipped, never fatal. */
export function parseEventLines(text: string): MacsEvent[] {
  const events: MacsEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isMacsEvent(value)) events.push(value);
    } catch {
      // a torn last line (a writer killed mid-line) or junk: skip it
    }
  }
  return events;
}

export interface EventFilter {
  agent?: string;
  type?: string;
  requestId?: string;
  /** Only events at or after this time. */
  since?: Date;
}

/** Does an event pass the filter? `type` matches exactly or as a prefix (`request` or `request.`). */
export function matchesEvent(event: MacsEvent, filter: EventFilter): boolean {
  if (filter.agent && event.agent !== filter.agent) return false;
  if (filter.requestId && event.requestId !== filter.requestId) return false;
  if (filter.type) {
    const t = filter.type;
    const prefix = t.endsWith('.') ? t : `${t}.`;
    if (event.type !== t && !event.type.startsWith(prefix)) return false;
  }
  if (filter.since && Date.parse(event.ts) < filter.since.getTime())
    return false;
  return true;
}

/** Read every agent's events (or one agent's), filtered, oldest first. */
export async function readEvents(
  paths: HomePaths,
  filter: EventFilter = {},
): Promise<MacsEvent[]> {
  let files: string[];
  try {
    files = (await readdir(paths.events)).filter((f) => f.endsWith('.jsonl'));
  } catch {
    return [];
  }
  if (filter.agent) files = files.filter((f) => f === `${filter.agent}.jsonl`);
  const all: MacsEvent[] = [];
  for (const file of files) {
    const text = await readFile(path.join(paths.events, file), 'utf8').catch(
      () => '',
    );
    for (const event of parseEventLines(text)) {
      if (matchesEvent(event, filter)) all.push(event);
    }
  }
  return all.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
}

/** Parse `10m`, `2h`, `30s`, `1d` or an ISO date into a Date (relative to now). */
export function parseSince(
  value: string,
  now: Date = new Date(),
): Date | undefined {
  const m = /^(\d+)\s*(ms|s|m|h|d)$/.exec(value.trim());
  if (m) {
    const n = Number(m[1]);
    const unit = m[2] as 'ms' | 's' | 'm' | 'h' | 'd';
    const ms = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit];
    return new Date(now.getTime() - n * ms);
  }
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : new Date(t);
}

/**
 * A command's `--since <value>` (parseSince), or a ConfigError naming the
 * value: `macs events` and `macs usage` take the same durations and dates.
 */
export function parseSinceOption(value: string): Date {
  const since = parseSince(value);
  if (!since)
    throw new ConfigError(
      `--since '${value}' is not a duration (10m, 2h, 1d) or a date`,
    );
  return since;
}

/**
 * The filter of a command's flags (`macs events`): an agent, a type or
 * prefix, a request, and `since` (parseSinceOption: a bad one throws).
 */
export function eventFilterOf(flags: {
  agent?: string | undefined;
  type?: string | undefined;
  request?: string | undefined;
  since?: string | undefined;
}): EventFilter {
  return {
    ...(flags.agent ? { agent: flags.agent } : {}),
    ...(flags.type ? { type: flags.type } : {}),
    ...(flags.request ? { requestId: flags.request } : {}),
    ...(flags.since ? { since: parseSinceOption(flags.since) } : {}),
  };
}
