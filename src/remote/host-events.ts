/**
 * Following a host's event log from the hub (`macs events --follow` at a
 * hub, docs/remote.md): the host's own `macs events --follow --json` runs
 * over ssh and each line it prints is checked (host-data.ts), named at the
 * hub (`<host>/<agent>`, `<host>/<id>`) and handed on. A stream that ends
 * (the link dropped, the host went away) is started again with backoff,
 * from the last event seen, so an event is neither lost nor shown twice.
 */
import { RECONNECT_FIRST_MS, RECONNECT_MAX_MS } from './link.js';
import type { HostTarget } from './host-session.js';
import {
  MAX_EVENT_LINE_CHARS,
  parseHostEventLine,
  type HostEvent,
} from './host-data.js';
import { qualifyName } from './names.js';
import { startSshChannel } from './ssh.js';
import { classifySshFailure } from './ssh-errors.js';

/** What to follow on the host (its own names; the hub user's words). */
export interface HostEventQuery {
  agent?: string;
  type?: string;
  request?: string;
  since?: string;
}

/** A host's event as the hub shows it: names qualified, the host named. */
export type HubEvent = HostEvent & { host: string };

export interface FollowHostOptions {
  signal: AbortSignal;
  onEvent: (event: HubEvent) => void;
  /** A line for the person: a stream that ended, a line refused. */
  onNotice: (line: string) => void;
}

/** Split a stream into lines, dropping any line longer than `max`. */
function createLineSplitter(max: number, onLine: (line: string) => void) {
  let buffer = '';
  let skipping = false;
  return (chunk: string) => {
    const parts = (buffer + chunk).split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      if (skipping) skipping = false;
      else onLine(line);
    }
    if (buffer.length > max) {
      buffer = '';
      skipping = true;
      onLine('\u0000'.repeat(max + 1));
    }
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Follow one host's events until `signal` aborts. */
export async function followHostEvents(
  target: HostTarget,
  query: HostEventQuery,
  options: FollowHostOptions,
): Promise<void> {
  const { signal } = options;
  let lastTs: string | undefined;
  /** The lines of events at `lastTs` already handed on (a restart repeats them). */
  let atLast = new Set<string>();
  let backoff = RECONNECT_FIRST_MS;
  while (!signal.aborted) {
    const since = lastTs ?? query.since;
    const channel = await startSshChannel(target, [
      'macs',
      'events',
      '--follow',
      '--json',
      '--from-hub',
      ...(query.agent ? ['--agent', query.agent] : []),
      ...(query.type ? ['--type', query.type] : []),
      ...(query.request ? ['--request', query.request] : []),
      ...(since ? ['--since', since] : []),
      '--home',
      target.home,
    ]);
    const stop = () => channel.kill();
    signal.addEventListener('abort', stop, { once: true });
    let refused = 0;
    const onLine = (line: string) => {
      if (line.trim() === '') return;
      const parsed = parseHostEventLine(line);
      if (!parsed.ok) {
        // Said once per stream: a hostile host does not flood the terminal.
        if (refused++ === 0)
          options.onNotice(
            `host ${target.name}: an event line it sent was refused (${parsed.error}); nothing of it was used`,
          );
        return;
      }
      const event = parsed.value;
      if (lastTs !== undefined && event.ts < lastTs) return;
      if (event.ts === lastTs && atLast.has(line)) return;
      if (event.ts !== lastTs) {
        lastTs = event.ts;
        atLast = new Set();
      }
      atLast.add(line);
      backoff = RECONNECT_FIRST_MS;
      options.onEvent({
        ...event,
        agent: qualifyName(target.name, event.agent),
        ...(event.requestId
          ? { requestId: qualifyName(target.name, event.requestId) }
          : {}),
        host: target.name,
      });
    };
    const split = createLineSplitter(MAX_EVENT_LINE_CHARS, onLine);
    channel.stdout.setEncoding?.('utf8');
    channel.stdout.on('data', (chunk: string | Buffer) =>
      split(typeof chunk === 'string' ? chunk : chunk.toString('utf8')),
    );
    const ended = await channel.ended;
    signal.removeEventListener('abort', stop);
    if (signal.aborted) return;
    const why = classifySshFailure(target.name, ended, 'macs');
    options.onNotice(
      `${why.message}; following its events again in ${Math.round(backoff / 100) / 10}s`,
    );
    await sleep(backoff, signal);
    backoff = Math.min(backoff * 2, RECONNECT_MAX_MS);
  }
}
