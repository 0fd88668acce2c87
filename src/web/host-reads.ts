/**
 * The hosts of `macs web` at a hub (docs/remote.md, "How changes travel"):
 * all read at the start, then one host whenever it says it changed (its
 * change notice over the link, its link up or down), and all of them every
 * `refreshMs` in case a notice was lost. One read of a host at a time; a
 * notice during its read reads it once more. `onViews` hears each set that
 * shows something new (a read that only measured the link again is none:
 * `sameHostRows`).
 */
import type { Logger } from '../log/logger.js';
import { sameHostRows } from '../remote/fleet-model.js';
import type { HostView } from '../remote/remote-fleet.js';
import type { WebHosts } from './web-fleet.js';

export interface HostReads {
  /** Each host as last read, in the config's order. */
  views: () => HostView[];
  /** Read every host now (after an action); one such read at a time. */
  readAll: () => Promise<void>;
  /** Stop; resolves when no read of all hosts runs. */
  stop: () => Promise<void>;
}

export function startHostReads(options: {
  hosts: Pick<WebHosts, 'read' | 'readHost' | 'onChange'>;
  refreshMs: number;
  log: Logger;
  onViews: () => void;
}): HostReads {
  const { hosts, log } = options;
  let views: HostView[] = [];
  let timer: NodeJS.Timeout | undefined;
  let allRead: Promise<void> | undefined;
  let stopped = false;
  const readAll = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    allRead ??= hosts
      .read()
      .then((next) => {
        const same = sameViews(views, next);
        views = next;
        if (!stopped && !same) options.onViews();
      })
      .catch((error: unknown) =>
        log.warn({ err: error }, 'web: reading the hosts failed'),
      )
      .finally(() => {
        allRead = undefined;
      });
    return allRead;
  };
  const reads = new Map<string, { again: boolean }>();
  const readOne = (name: string): void => {
    const readHost = hosts.readHost;
    if (!readHost || stopped) return;
    const running = reads.get(name);
    if (running) {
      running.again = true;
      return;
    }
    const mark = { again: false };
    reads.set(name, mark);
    void (async () => {
      do {
        mark.again = false;
        try {
          const view = await readHost(name);
          if (stopped) break;
          const at = views.findIndex((v) => v.name === name);
          const same = at >= 0 && sameHostRows(views[at]!, view);
          views =
            at < 0
              ? [...views, view]
              : views.map((v, i) => (i === at ? view : v));
          if (!same) options.onViews();
        } catch (error) {
          log.warn({ err: error, host: name }, 'web: reading a host failed');
        }
      } while (mark.again && !stopped);
      reads.delete(name);
    })();
  };
  const off = hosts.onChange?.(readOne);
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void readAll().finally(schedule);
    }, options.refreshMs);
    timer.unref();
  };
  void readAll().finally(schedule);
  return {
    views: () => views,
    readAll,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      off?.();
      await allRead;
    },
  };
}

/** The same hosts in the same order, each showing the same rows. */
function sameViews(a: readonly HostView[], b: readonly HostView[]): boolean {
  return (
    a.length === b.length &&
    a.every((v, i) => v.name === b[i]!.name && sameHostRows(v, b[i]!))
  );
}
