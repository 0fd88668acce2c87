/**
 * The hosts in the live status view at a hub (docs/remote.md): each host's
 * agents and open requests join the view's snapshot as `<host>/…` rows,
 * each host's link is shown, and the view's answer, dismiss and pause on a
 * host's row go to that host (an answer by the same path as `macs respond
 * <host>/<id>`). The view holds a live link per host and reads a host on
 * its own when it says it changed (its change notice, its link up or down),
 * and every STATUS_HOSTS_READ_MS in case a notice was lost, as `macs web`
 * does: a host that is down or slow holds up only its own rows, never the
 * view; a host that went down keeps its last rows, marked
 * (remote/fleet-model.ts, as at every door).
 */
import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import {
  createRemoteFleet,
  readRemoteFleet,
  type HostView,
} from '../remote/remote-fleet.js';
import { runHostMacs } from '../remote/forward.js';
import type { HostTarget } from '../remote/host-session.js';
import type { Snapshot } from '../state/snapshot-schema.js';
import type {
  HostLinkRow,
  IntentResult,
  SnapshotSource,
  StatusIntents,
} from '../ui/intents.js';
import { VERSION } from '../version.js';
import { mergeHosts } from '../remote/fleet-model.js';
import type { CommandContext } from './common.js';
import type { RunEditor } from '../backends/editor.js';
import { editAnswerInEditor } from './answer-editor.js';
import type { CliDeps } from './options.js';
import { remoteTargetOf } from '../operations/host-forward.js';
import { answerHostRequest } from '../operations/answer-host.js';

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
  wrapIntents: (local: StatusIntents, runEditor: RunEditor) => StatusIntents;
  close: () => Promise<void>;
}

/** A snapshot with the hosts' agents and requests, by the hub's one model. */
export function addHostsToSnapshot(
  snapshot: Snapshot,
  hosts: readonly HostView[],
): Snapshot {
  return mergeHosts(snapshot, hosts, Date.now());
}

/**
 * What a host's rows and link line say, but for what moves at every read:
 * the round trip and the ages (the view ticks those on its own clock).
 */
function rowsKey(view: HostView): string {
  return JSON.stringify({
    ...view,
    rttMs: null,
    agents: view.agents.map((a) => ({ ...a, stateAgeSec: null })),
    requests: view.requests.map((r) => ({ ...r, ageSec: null })),
  });
}

function linkRow(view: HostView): HostLinkRow {
  return {
    name: view.name,
    link: view.link,
    since: view.since,
    rttMs: view.rttMs,
    error: view.error?.message ?? null,
  };
}

/** The hosts of a hub's live view, read until `close()`. */
export function createStatusHosts(options: {
  ctx: CommandContext;
  config: MacsConfig;
  deps: CliDeps;
  feed: SnapshotSource;
  readEveryMs?: number;
  /**
   * A host's request began to wait for a person since the host's first
   * read (the view rings its bell, as for this machine's `attention`).
   */
  onNeedsPerson?: (host: string, ids: string[]) => void;
}): StatusHosts {
  const { ctx, config, deps, feed } = options;
  const stop = new AbortController();
  const listeners = new Set<() => void>();
  const views = new Map<string, HostView>();
  let version = 0;
  const changed = () => {
    version += 1;
    for (const listener of listeners) listener();
  };
  const fleet = createRemoteFleet(
    {
      config,
      env: deps.env,
      paths: ctx.paths,
      version: VERSION,
      log: ctx.log,
    },
    { live: true },
  );
  const reading = new Map<string, Promise<void>>();
  /** Hosts that said they changed during their read: read once more. */
  const again = new Set<string>();
  /** Per host, the requests waiting for a person at its last read (a new one rings). */
  const waitingSeen = new Map<string, Set<string>>();
  /** Read one host (one read at a time per host). */
  const readHost = (target: HostTarget): Promise<void> => {
    const running = reading.get(target.name);
    if (running) {
      again.add(target.name);
      return running;
    }
    const read = readRemoteFleet({ ...fleet, targets: [target] }, ctx.paths)
      .then(([read]) => {
        if (read && !stop.signal.aborted) {
          // A frame only when what the rows say changed (rowsKey).
          const before = views.get(target.name);
          // A host that went down keeps its rows (remote/fleet-model.ts).
          const view = read;
          views.set(target.name, view);
          const waiting = view.requests
            .filter((r) => r.waitingForAnswer)
            .map((r) => r.id);
          const seen = waitingSeen.get(target.name);
          const fresh = seen ? waiting.filter((id) => !seen.has(id)) : [];
          waitingSeen.set(target.name, new Set(waiting));
          if (fresh.length > 0) options.onNeedsPerson?.(target.name, fresh);
          if (!before || rowsKey(before) !== rowsKey(view)) changed();
        }
      })
      .catch((error: unknown) =>
        ctx.log.warn({ err: error, host: target.name }, 'host read failed'),
      )
      .finally(() => {
        reading.delete(target.name);
        if (again.delete(target.name) && !stop.signal.aborted)
          void readHost(target);
      });
    reading.set(target.name, read);
    return read;
  };
  const offChanges = fleet.onChange((host) => {
    const target = fleet.targets.find((t) => t.name === host);
    if (target) void readHost(target);
  });
  const firsts: Promise<void>[] = [];
  const loops = fleet.targets.map(async (target) => {
    const first = readHost(target);
    firsts.push(first);
    await first;
    while (!stop.signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          stop.signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(
          done,
          options.readEveryMs ?? STATUS_HOSTS_READ_MS,
        );
        stop.signal.addEventListener('abort', done);
      });
      if (!stop.signal.aborted) await readHost(target);
    }
  });

  let cache: { base: Snapshot; version: number; merged: Snapshot } | undefined;
  const source: SnapshotSource = {
    current: () => {
      const base = feed.current();
      if (!base) return undefined;
      if (cache?.base !== base || cache.version !== version)
        cache = {
          base,
          version,
          merged: addHostsToSnapshot(base, [...views.values()]),
        };
      return cache.merged;
    },
    subscribe: (listener) => {
      listeners.add(listener);
      const off = feed.subscribe(listener);
      return () => {
        listeners.delete(listener);
        off();
      };
    },
    hosts: () =>
      fleet.targets.map((t) => {
        const view = views.get(t.name);
        return view
          ? linkRow(view)
          : {
              name: t.name,
              link: 'connecting',
              since: null,
              rttMs: null,
              error: null,
            };
      }),
  };

  /** The host of a `<host>/…` name, or undefined for a local one. */
  const remoteOf = (name: string, kind: 'agent' | 'request') =>
    name.includes('/')
      ? remoteTargetOf(name, kind, config, deps.env)
      : undefined;
  const onHost = async (
    target: HostTarget,
    argv: string[],
  ): Promise<IntentResult> => {
    try {
      const lines = await runHostMacs(target, argv);
      return { ok: true, message: `${target.name}: ${lines.join(' ')}` };
    } catch (error) {
      return { ok: false, message: errorMessage(error) };
    } finally {
      void readHost(target);
    }
  };

  const wrapIntents = (
    local: StatusIntents,
    runEditor: RunEditor,
  ): StatusIntents => {
    const wrapped: StatusIntents = {
      async answer(requestId, text) {
        let remote;
        try {
          remote = remoteOf(requestId, 'request');
          if (!remote) return await local.answer(requestId, text);
          const { target, name } = remote;
          const outcome = await answerHostRequest(
            ctx.paths,
            () => fleet.session(target.name),
            { host: target.name, id: name, text, by: 'hub:status' },
          );
          void readHost(target);
          switch (outcome.type) {
            case 'answered':
              return {
                ok: true,
                message: `answered ${requestId} on ${target.name}`,
              };
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
        } catch (error) {
          return { ok: false, message: errorMessage(error) };
        }
      },
      async editAnswer(request) {
        if (!request.id.includes('/')) return local.editAnswer(request);
        // Written here, sent by the path of r (kept while the host is down).
        return editAnswerInEditor({
          paths: ctx.paths,
          request,
          env: deps.env,
          runEditor,
          deliver: (id, text) => wrapped.answer(id, text),
        });
      },
      async dismiss(requestId) {
        const remote = remoteOf(requestId, 'request');
        if (!remote) return local.dismiss(requestId);
        return onHost(remote.target, [
          'dismiss',
          remote.name,
          '--reason',
          'dismissed from macs status at the hub',
        ]);
      },
      async setPaused(agent, paused) {
        const remote = remoteOf(agent, 'agent');
        if (!remote) return local.setPaused(agent, paused);
        return onHost(remote.target, [
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
  };

  return {
    source,
    views: () => fleet.targets.flatMap((t) => views.get(t.name) ?? []),
    firstRead: Promise.all(firsts).then(() => undefined),
    wrapIntents,
    close: async () => {
      stop.abort();
      offChanges();
      await fleet.close();
      await Promise.all(loops);
    },
  };
}
