/**
 * What the live status view and `macs status --watch` read: the home's
 * snapshots, read again on each change, and at a hub each host's agents,
 * requests and link joined to them (operations/view-hosts.ts).
 */
import type { MacsConfig } from '../config/schema.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import {
  createSnapshotFeed,
  type SnapshotFeed,
} from '../state/snapshot-feed.js';
import { createSnapshotReader } from '../state/snapshot.js';
import { probeTmuxServer } from '../tmux/probe.js';
import type { RunTmux } from '../tmux/run.js';
import type { StatusHosts } from './view-hosts.js';
import type { SnapshotSource } from './view-intents.js';

/** The home's feed (not started) and, at a hub, its hosts, until `close()`. */
export interface LiveStatus {
  feed: SnapshotFeed;
  hosts: StatusHosts | undefined;
  /** What a view draws: the feed, at a hub with the hosts' rows. */
  source: SnapshotSource;
  /** The feed stopped, the hosts' links closed. */
  close: () => Promise<void>;
}

/** Open the live status of a home (the feed is started by its reader). */
export async function openLiveStatus(options: {
  paths: HomePaths;
  log: Logger;
  config: MacsConfig;
  env: NodeJS.ProcessEnv;
  runTmux: RunTmux;
  /** Keep the process running on the feed alone (no view reads a terminal). */
  keepAlive: boolean;
  /** A host's request began to wait for a person (view-hosts.ts). */
  onNeedsPerson?: (() => void) | undefined;
}): Promise<LiveStatus> {
  const { paths, log, config } = options;
  const feed = createSnapshotFeed({
    paths,
    reader: createSnapshotReader(paths, {
      prices: config.prices,
      serverUp: probeTmuxServer(options.runTmux),
    }),
    onError: (error) => log.warn({ err: error }, 'status read failed'),
    keepAlive: options.keepAlive,
  });
  // Loaded only at a hub.
  const hosts =
    Object.keys(config.hosts).length > 0
      ? (await import('./view-hosts.js')).createStatusHosts({
          paths,
          log,
          config,
          env: options.env,
          feed,
          ...(options.onNeedsPerson
            ? { onNeedsPerson: options.onNeedsPerson }
            : {}),
        })
      : undefined;
  return {
    feed,
    hosts,
    source: hosts?.source ?? feed,
    close: async () => {
      feed.stop();
      await hosts?.close();
    },
  };
}
