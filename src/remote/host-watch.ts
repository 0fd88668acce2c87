/**
 * The hosts of a live view at a hub, each read on its own (`macs status
 * --watch`, docs/remote.md): a host is read at the start, when it says it
 * changed (its change notice, its link up or down), and every `readEveryMs`
 * in case a notice was lost. One read of a host at a time; a notice during
 * its read reads it once more. The first reads are drawn together. A host
 * that is down or slow holds up only its own rows; a host that went down
 * keeps its last rows, marked (fleet-model.ts).
 */
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { sameHostRows } from './fleet-model.js';
import type { HostTarget } from './host-session.js';
import {
  readRemoteFleet,
  type HostView,
  type RemoteFleet,
} from './remote-fleet.js';

export interface HostWatch {
  /** The host as last read, if it was read. */
  view: (host: string) => HostView | undefined;
  /** Each host read so far, as last read, in the config's order. */
  views: () => HostView[];
  /** Read one host now (or once more after the read that runs). */
  readHost: (target: HostTarget) => Promise<void>;
  /** Every host read once (up or down). */
  firstRead: Promise<void>;
  /** Stop reading and close the fleet; resolves when no loop runs. */
  close: () => Promise<void>;
}

export interface HostWatchOptions {
  paths: HomePaths;
  log: Logger;
  readEveryMs: number;
  /** What a host's rows say changed (not only its round trip or ages). */
  onRowsChanged: () => void;
  /** A host's request began to wait for a person since its first read. */
  onNeedsPerson?: (host: string, ids: string[]) => void;
}

/**
 * The requests of `view` waiting for a person that `seen` (the host's last
 * read) did not have; none at a host's first read.
 */
function newlyWaiting(
  view: HostView,
  seen: ReadonlyMap<string, ReadonlySet<string>>,
): { waiting: Set<string>; fresh: string[] } {
  const waiting = view.requests
    .filter((r) => r.waitingForAnswer)
    .map((r) => r.id);
  const before = seen.get(view.name);
  const fresh = before ? waiting.filter((id) => !before.has(id)) : [];
  return { waiting: new Set(waiting), fresh };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** How long a view waits for every host's first read before it draws those read. */
export const FIRST_READS_WAIT_MS = 3_000;

/**
 * The hosts' first reads end a few hundred ms apart (each link's ssh
 * handshake), and a view's first frames are its dearest (its code not yet
 * compiled): the draws asked for before `release()`, or before `waitMs`
 * went by, are one draw then; after, each draw is drawn at once.
 */
export function holdFirstDraws(
  onDraw: () => void,
  waitMs: number,
): { draw: () => void; release: () => void; close: () => void } {
  let state: 'holding' | 'due' | 'open' | 'closed' = 'holding';
  const release = () => {
    if (state === 'open' || state === 'closed') return;
    const due = state === 'due';
    state = 'open';
    clearTimeout(timer);
    if (due) onDraw();
  };
  const timer = setTimeout(release, waitMs);
  timer.unref();
  return {
    draw: () => {
      if (state === 'open') onDraw();
      else if (state === 'holding') state = 'due';
    },
    release,
    close: () => {
      state = 'closed';
      clearTimeout(timer);
    },
  };
}

/** Watch every host of a live `fleet` until `close()`. */
export function watchHosts(
  fleet: RemoteFleet,
  options: HostWatchOptions,
): HostWatch {
  const stop = new AbortController();
  const views = new Map<string, HostView>();
  const hold = holdFirstDraws(options.onRowsChanged, FIRST_READS_WAIT_MS);
  /** Per host, the requests waiting for a person at its last read. */
  const waitingSeen = new Map<string, Set<string>>();
  const keep = (view: HostView) => {
    const before = views.get(view.name);
    views.set(view.name, view);
    const { waiting, fresh } = newlyWaiting(view, waitingSeen);
    waitingSeen.set(view.name, waiting);
    if (fresh.length > 0) options.onNeedsPerson?.(view.name, fresh);
    // A frame only when what the rows say changed (fleet-model.ts).
    if (!before || !sameHostRows(before, view)) hold.draw();
  };
  const readHost = readOneAtATime(fleet, options, stop.signal, keep);
  const offChanges = fleet.onChange((host) => {
    const target = fleet.targets.find((t) => t.name === host);
    if (target) void readHost(target);
  });
  const firsts = fleet.targets.map((target) => readHost(target));
  void Promise.all(firsts).then(hold.release);
  const loops = fleet.targets.map(async (target, at) => {
    await firsts[at];
    while (!stop.signal.aborted) {
      await pause(options.readEveryMs, stop.signal);
      if (!stop.signal.aborted) await readHost(target);
    }
  });
  return {
    view: (host) => views.get(host),
    views: () => fleet.targets.flatMap((t) => views.get(t.name) ?? []),
    readHost,
    firstRead: Promise.all(firsts).then(() => undefined),
    close: async () => {
      stop.abort();
      hold.close();
      offChanges();
      await fleet.close();
      await Promise.all(loops);
    },
  };
}

/**
 * A host's read, one at a time per host: a read asked for while one runs
 * is done once more after it. `keep` hears each read until `signal` aborts.
 */
function readOneAtATime(
  fleet: RemoteFleet,
  options: Pick<HostWatchOptions, 'paths' | 'log'>,
  signal: AbortSignal,
  keep: (view: HostView) => void,
): (target: HostTarget) => Promise<void> {
  const reading = new Map<string, Promise<void>>();
  /** Hosts that said they changed during their read: read once more. */
  const again = new Set<string>();
  const readHost = (target: HostTarget): Promise<void> => {
    const running = reading.get(target.name);
    if (running) {
      again.add(target.name);
      return running;
    }
    const read = readRemoteFleet({ ...fleet, targets: [target] }, options.paths)
      .then(([view]) => {
        if (view && !signal.aborted) keep(view);
      })
      .catch((error: unknown) =>
        options.log.warn({ err: error, host: target.name }, 'host read failed'),
      )
      .finally(() => {
        reading.delete(target.name);
        if (again.delete(target.name) && !signal.aborted) void readHost(target);
      });
    reading.set(target.name, read);
    return read;
  };
  return readHost;
}
