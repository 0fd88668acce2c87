/**
 * The hosts in the live status view at a hub (docs/remote.md): each host's
 * agents and open requests join the view's snapshot as `<host>/…` rows,
 * each host's link is shown, and the view's answer, dismiss and pause on a
 * host's row go to that host (an answer by the same path as `macs respond
 * <host>/<id>`). The view holds a live link per host and reads a host on
 * its own when it says it changed (its change notice, its link up or down),
 * and every STATUS_HOSTS_READ_MS in case a notice was lost, as `macs web`
 * does (remote/host-watch.ts): a host that is down or slow holds up only
 * its own rows, never the view; a host that went down keeps its last rows,
 * marked (remote/fleet-model.ts, as at every door).
 */
import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import {
  createRemoteFleet,
  type HostView,
  type RemoteFleet,
} from '../remote/remote-fleet.js';
import { watchHosts, type HostWatch } from '../remote/host-watch.js';
import { runHostMacs } from '../remote/forward.js';
import type { HostTarget } from '../remote/host-session.js';
import type { Snapshot } from '../state/snapshot-schema.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import { VERSION } from '../version.js';
import { mergeHosts } from '../remote/fleet-model.js';
import {
  connectingLink,
  hostLink,
  hostLinkLine,
  type HostLink,
} from '../remote/host-link.js';
import { runEditorSync, type RunEditor } from '../backends/editor.js';
import { editAnswerInEditor } from './answer-editor.js';
import { remoteTargetOf } from './host-forward.js';
import { answerHostRequest } from './answer-host.js';
import type {
  HostLinkRow,
  IntentResult,
  SnapshotSource,
  StatusIntents,
} from './view-intents.js';

/** How often each host is read though it said nothing: as `macs web` does. */
export const STATUS_HOSTS_READ_MS = 30_000;

export interface StatusHosts {
  /** The home's snapshot with every host's agents and requests added. */
  source: SnapshotSource;
  /** Each host as last read (`--watch` prints them as `status` does). */
  views: () => HostView[];
  /** Every host read once (up or down). */
  firstRead: Promise<void>;
  /** The view's intents, sending those about `<host>/…` to the host. */
  wrapIntents: (local: StatusIntents, runEditor?: RunEditor) => StatusIntents;
  close: () => Promise<void>;
}

/** A host's link in the header: the value and words of every door. */
function linkRow(link: HostLink): HostLinkRow {
  return { ...link, line: hostLinkLine(link, 'short') };
}

/** The hosts of a hub's live view, read until `close()`. */
export function createStatusHosts(options: {
  paths: HomePaths;
  log: Logger;
  config: MacsConfig;
  env: NodeJS.ProcessEnv;
  feed: SnapshotSource;
  readEveryMs?: number;
  /**
   * A host's request began to wait for a person since the host's first
   * read (the view rings its bell, as for this machine's `attention`).
   */
  onNeedsPerson?: (host: string, ids: string[]) => void;
}): StatusHosts {
  const { paths, log, config, env } = options;
  const fleet = createRemoteFleet(
    { config, env, paths, version: VERSION, log },
    { live: true },
  );
  const changes = createChanges();
  const watch = watchHosts(fleet, {
    paths,
    log,
    readEveryMs: options.readEveryMs ?? STATUS_HOSTS_READ_MS,
    onRowsChanged: changes.changed,
    ...(options.onNeedsPerson ? { onNeedsPerson: options.onNeedsPerson } : {}),
  });
  return {
    source: hostsSource(options.feed, fleet, watch, changes),
    views: watch.views,
    firstRead: watch.firstRead,
    wrapIntents: (local, runEditor = runEditorSync) =>
      hostIntents({ paths, config, env, fleet, watch }, local, runEditor),
    close: () => watch.close(),
  };
}

/** A count of the hosts' changes and who hears them. */
interface Changes {
  version: () => number;
  listeners: Set<() => void>;
  changed: () => void;
}

function createChanges(): Changes {
  let version = 0;
  const listeners = new Set<() => void>();
  return {
    version: () => version,
    listeners,
    changed: () => {
      version += 1;
      for (const listener of listeners) listener();
    },
  };
}

/** The home's snapshot with the hosts' rows merged (once per change). */
function hostsSource(
  feed: SnapshotSource,
  fleet: RemoteFleet,
  watch: HostWatch,
  changes: Changes,
): SnapshotSource {
  let cache: { base: Snapshot; version: number; merged: Snapshot } | undefined;
  return {
    current: () => {
      const base = feed.current();
      if (!base) return undefined;
      if (cache?.base !== base || cache.version !== changes.version())
        cache = {
          base,
          version: changes.version(),
          // By the hub's one model (remote/fleet-model.ts).
          merged: mergeHosts(base, watch.views(), Date.now()),
        };
      return cache.merged;
    },
    subscribe: (listener) => {
      changes.listeners.add(listener);
      const off = feed.subscribe(listener);
      return () => {
        changes.listeners.delete(listener);
        off();
      };
    },
    hosts: () =>
      fleet.targets.map((t) => {
        const view = watch.view(t.name);
        return linkRow(view ? hostLink(view) : connectingLink(t.name));
      }),
  };
}

/** What the view's intents about a host's rows need. */
interface HostIntentsContext {
  paths: HomePaths;
  config: MacsConfig;
  env: NodeJS.ProcessEnv;
  fleet: RemoteFleet;
  watch: HostWatch;
}

/** The view's intents, sending those about `<host>/…` to the host. */
function hostIntents(
  hub: HostIntentsContext,
  local: StatusIntents,
  runEditor: RunEditor,
): StatusIntents {
  /** The host of a `<host>/…` name, or undefined for a local one. */
  const remoteOf = (name: string, kind: 'agent' | 'request') =>
    name.includes('/')
      ? remoteTargetOf(name, kind, hub.config, hub.env)
      : undefined;
  const wrapped: StatusIntents = {
    async answer(requestId, text) {
      try {
        const remote = remoteOf(requestId, 'request');
        if (!remote) return await local.answer(requestId, text);
        return await answerOnHost(hub, remote, requestId, text);
      } catch (error) {
        return { ok: false, message: errorMessage(error) };
      }
    },
    async editAnswer(request) {
      if (!request.id.includes('/')) return local.editAnswer(request);
      // Written here, sent by the path of r (kept while the host is down).
      return editAnswerInEditor({
        paths: hub.paths,
        request,
        env: hub.env,
        runEditor,
        deliver: (id, text) => wrapped.answer(id, text),
      });
    },
    async dismiss(requestId) {
      const remote = remoteOf(requestId, 'request');
      if (!remote) return local.dismiss(requestId);
      return runOnHost(hub.watch, remote.target, [
        'dismiss',
        remote.name,
        '--reason',
        'dismissed from macs status at the hub',
      ]);
    },
    async setPaused(agent, paused) {
      const remote = remoteOf(agent, 'agent');
      if (!remote) return local.setPaused(agent, paused);
      return runOnHost(hub.watch, remote.target, [
        paused ? 'pause' : 'resume',
        remote.name,
      ]);
    },
    async jumpToPane(agent, pane) {
      const remote = remoteOf(agent, 'agent');
      if (!remote) return local.jumpToPane(agent, pane);
      return {
        ok: false,
        message: `${agent} runs on host ${remote.target.name}: its pane is there (macs attach ${agent} from another terminal)`,
      };
    },
  };
  return wrapped;
}

/** `macs <argv>` run on a host, said in one line; the host read again. */
async function runOnHost(
  watch: HostWatch,
  target: HostTarget,
  argv: string[],
): Promise<IntentResult> {
  try {
    const lines = await runHostMacs(target, argv);
    return { ok: true, message: `${target.name}: ${lines.join(' ')}` };
  } catch (error) {
    return { ok: false, message: errorMessage(error) };
  } finally {
    void watch.readHost(target);
  }
}

/** An answer to a host's request, by the path of `macs respond <host>/<id>`. */
async function answerOnHost(
  hub: HostIntentsContext,
  remote: { target: HostTarget; name: string },
  requestId: string,
  text: string,
): Promise<IntentResult> {
  const { target, name } = remote;
  const outcome = await answerHostRequest(
    hub.paths,
    () => hub.fleet.session(target.name),
    { host: target.name, id: name, text, by: 'hub:status' },
  );
  void hub.watch.readHost(target);
  switch (outcome.type) {
    case 'answered':
      return { ok: true, message: `answered ${requestId} on ${target.name}` };
    case 'held':
      return {
        ok: true,
        message: `host ${target.name} cannot be reached now: the answer to ${requestId} is kept and delivered once when it is back`,
      };
    case 'held-already':
      return {
        ok: false,
        message: `an answer to ${requestId} is already kept for ${target.name}`,
      };
    case 'refused':
      return {
        ok: false,
        message: `host ${target.name} refused the answer to ${name}: ${outcome.reason}`,
      };
  }
}
