import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { controlDir } from './person-controls.js';
import type { HomePaths } from '../home/paths.js';
import { createSnapshotReader, type SnapshotReader } from './snapshot.js';
import { usageDir } from '../usage/usage-ledger.js';
import type { Snapshot } from './snapshot-schema.js';
import { snapshotSignature } from './snapshot-changes.js';

/** A live source of snapshots: the status view subscribes to it. */
export interface SnapshotFeed {
  /** The newest snapshot (undefined before `start` resolves). */
  current(): Snapshot | undefined;
  /** Called with each snapshot that differs (apart from the clock) from the last. */
  subscribe(listener: (snapshot: Snapshot) => void): () => void;
  /** Read the first snapshot and start watching. */
  start(): Promise<Snapshot>;
  /** Read again now (after the view itself changed something). */
  refresh(): Promise<void>;
  stop(): void;
}

export interface SnapshotFeedOptions {
  paths: HomePaths;
  reader?: SnapshotReader;
  /** Changes closer together than this are read once (default 150 ms). */
  throttleMs?: number;
  /**
   * How often the bridges' liveness is checked (default 5 s): a bridge
   * killed outright changes no file. A change causes a full read.
   */
  backstopMs?: number;
  /** A full re-read in case a change notification was lost (default 60 s). */
  fullBackstopMs?: number;
  onError?: (error: unknown) => void;
  /** Keep the process running while the feed runs (nothing else may, e.g. without a terminal). */
  keepAlive?: boolean;
}

export const FEED_THROTTLE_MS = 150;
export const FEED_BACKSTOP_MS = 5000;
export const FEED_FULL_BACKSTOP_MS = 60_000;

/**
 * Snapshots driven by change notifications: `fs.watch` (inotify, kqueue) on
 * `.macs/`, `.macs/state/`, `.macs/events/`, `.macs/control/` and `inbox/`,
 * each once it exists, and on the home to see `.macs/` and `inbox/` appear.
 * In `.macs/` itself the developer log `macs.log` is no change: a read that
 * fails logs a warning there, which must not cause another read. Between
 * notifications only the bridges' liveness is checked (every `backstopMs`:
 * a killed bridge changes no file), and everything is read again once a
 * minute in case a notification was lost; an idle feed costs next to
 * nothing. One feed serves the status view, `macs web` and the MCP
 * `wait_for_request` (through `shareSnapshotFeed`).
 */
export function createSnapshotFeed(options: SnapshotFeedOptions): SnapshotFeed {
  const { paths } = options;
  const reader = options.reader ?? createSnapshotReader(paths);
  const throttleMs = options.throttleMs ?? FEED_THROTTLE_MS;
  const backstopMs = options.backstopMs ?? FEED_BACKSTOP_MS;
  const fullBackstopMs = Math.max(
    backstopMs,
    options.fullBackstopMs ?? FEED_FULL_BACKSTOP_MS,
  );
  const keepAlive = options.keepAlive ?? false;
  const dirs = [
    paths.runtime,
    paths.state,
    paths.events,
    controlDir(paths),
    paths.inbox,
    usageDir(paths),
  ];
  // What a change of a name in a watched folder means: in the home (the
  // project folder, where people edit files) only `.macs/` and `inbox/`
  // appearing count; in `.macs/` anything but the developer log.
  const counts = (dir: string, name: string | null): boolean => {
    if (name === null) return true;
    if (dir === paths.home)
      return (
        name === path.basename(paths.runtime) ||
        name === path.basename(paths.inbox)
      );
    return !(dir === paths.runtime && name === path.basename(paths.logFile));
  };
  const watchers = new Map<string, FSWatcher>();
  const listeners = new Set<(snapshot: Snapshot) => void>();
  let latest: Snapshot | undefined;
  let signature = '';
  let liveness: string | undefined;
  let lastReadAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let backstop: NodeJS.Timeout | undefined;
  let reading: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  function watchDir(dir: string): void {
    if (watchers.has(dir)) return;
    try {
      const watcher = watch(dir, { persistent: keepAlive }, (_event, name) => {
        if (counts(dir, name)) schedule();
      });
      watcher.on('error', () => {
        watcher.close();
        watchers.delete(dir);
        schedule();
      });
      watchers.set(dir, watcher);
    } catch {
      // not there yet: attached on a later read
    }
  }

  function attach(): void {
    // The home, to see `.macs/` and `inbox/` appear (then they are watched).
    for (const dir of [paths.home, ...dirs]) watchDir(dir);
  }

  function schedule(): void {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      void readNow();
    }, throttleMs);
    timer.unref();
  }

  async function readOnce(): Promise<void> {
    attach();
    lastReadAt = Date.now();
    // Before the read: a bridge that dies during it is seen by the next check.
    liveness = await reader.liveness().catch(() => undefined);
    const next = await reader.read(new Date());
    const nextSignature = snapshotSignature(next);
    // Unchanged (apart from the clock): keep the snapshot the view already has.
    if (nextSignature === signature && latest) return;
    latest = next;
    signature = nextSignature;
    for (const listener of [...listeners]) listener(next);
  }

  /** A full read when a bridge started or died, or a minute went by. */
  async function backstopCheck(): Promise<void> {
    if (stopped || reading) return;
    if (Date.now() - lastReadAt >= fullBackstopMs) return readNow();
    const now = await reader.liveness().catch(() => undefined);
    if (now === undefined || now !== liveness) await readNow();
  }

  /** One read at a time; a change during a read causes one more read. */
  function readNow(): Promise<void> {
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        const started = Date.now();
        try {
          await readOnce();
        } catch (error) {
          options.onError?.(error);
        }
        // Changed during the read: read again after a pause of the throttle
        // or twice the read's own time, whichever is longer. Back-to-back
        // reads took all the CPU they could get while changes kept coming
        // (32 agents starting: 0.9 s of CPU for a view in 6 s); paused, a
        // burst is read a few times and the reads' share stays under a third.
        // Not unref'd: a read that start() waits for must hold the process
        // (a view mounts its terminal only after; a change during its first
        // read ended it with exit 13, its screen blank). The pause is short.
        if (again && !stopped)
          await new Promise((resolve) =>
            setTimeout(
              resolve,
              Math.max(throttleMs, 2 * (Date.now() - started)),
            ),
          );
      } while (again && !stopped);
    })().finally(() => {
      reading = undefined;
    });
    return reading;
  }

  return {
    current: () => latest,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      await readNow();
      backstop = setInterval(() => void backstopCheck(), backstopMs);
      if (!keepAlive) backstop.unref();
      if (!latest) latest = await reader.read(new Date());
      return latest;
    },
    refresh: () => readNow(),
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (backstop) clearInterval(backstop);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
      listeners.clear();
    },
  };
}

/** One user's hold on a shared feed (`shareSnapshotFeed`). */
export interface SnapshotFeedLease {
  /** The running feed; its first snapshot has been read. */
  feed: SnapshotFeed;
  /** Done with it: the last lease released stops the feed. */
  release(): void;
}

/** A feed that runs while anyone holds a lease on it. */
export interface SharedSnapshotFeed {
  acquire(): Promise<SnapshotFeedLease>;
}

/**
 * Share one feed between users that come and go (the MCP server's waits):
 * the first lease creates and starts a feed with `create`, the others get
 * the same one, and the last release stops it, so nothing is watched or
 * checked while nobody waits.
 */
export function shareSnapshotFeed(
  create: () => SnapshotFeed,
): SharedSnapshotFeed {
  let running: { feed: SnapshotFeed; started: Promise<Snapshot> } | undefined;
  let users = 0;
  return {
    async acquire() {
      if (!running) {
        const feed = create();
        running = { feed, started: feed.start() };
      }
      const mine = running;
      users += 1;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        users -= 1;
        if (users === 0 && running === mine) {
          running = undefined;
          mine.feed.stop();
        }
      };
      try {
        await mine.started;
      } catch (error) {
        release();
        throw error;
      }
      return { feed: mine.feed, release };
    },
  };
}
