import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import { claimAttention, pruneAttention } from '../state/control.js';
import type { HomePaths } from '../state/paths.js';
import { createSerialQueue } from '../state/serial.js';
import {
  selectNewAttention,
  type RequestSnapshot,
  type Snapshot,
} from '../state/snapshot.js';
import { truncate } from '../ui/format.js';

export interface AttentionOptions {
  paths: HomePaths;
  config: MacsConfig['attention'];
  events: EventSink;
  log: Logger;
  /** Ring the terminal bell (write BEL to the view's terminal). */
  ringBell: () => void;
  /** Show a message to the sessions of these panes (tmux display-message); resolves to how many clients saw it. */
  showMessage: (panes: readonly string[], text: string) => Promise<number>;
}

export interface AttentionNotifier {
  /** Alert for requests of this snapshot that newly wait for a person. */
  check(snapshot: Snapshot): Promise<void>;
}

/** The tmux status-line text for requests that wait for a person. */
export function formatAttentionMessage(
  requests: readonly RequestSnapshot[],
): string {
  const first = requests[0];
  if (!first) return '';
  if (requests.length === 1)
    return truncate(
      `macs: ${first.agent} waits for your answer (${first.type}): ${first.firstLine}`,
      160,
    );
  const agents = [...new Set(requests.map((r) => r.agent))].join(', ');
  return truncate(
    `macs: ${requests.length} requests wait for your answer (${agents})`,
    160,
  );
}

/**
 * Call a person when a request waits for them: one terminal bell and one
 * tmux message per batch, never twice for the same request (a marker in
 * `.macs/attention/` is claimed first, so a restarted view or a second view
 * stays quiet), and an `attention` event for each request.
 */
export function createAttentionNotifier(
  options: AttentionOptions,
): AttentionNotifier {
  const { paths, config, events, log } = options;
  const handled = new Set<string>();
  const serial = createSerialQueue();

  async function check(snapshot: Snapshot): Promise<void> {
    if (!config.bell && !config.tmuxMessage) return;
    const fresh = selectNewAttention(snapshot, handled);
    if (fresh.length === 0) return;
    const claimed: RequestSnapshot[] = [];
    for (const request of fresh) {
      handled.add(request.id);
      if (await claimAttention(paths, request.id)) claimed.push(request);
    }
    await pruneAttention(paths, new Set(snapshot.requests.map((r) => r.id)));
    if (claimed.length === 0) return;
    if (config.bell) options.ringBell();
    let clients = 0;
    if (config.tmuxMessage) {
      const panes = claimed
        .map((r) => snapshot.agents.find((a) => a.name === r.agent)?.pane)
        .filter((p): p is string => Boolean(p));
      try {
        clients = await options.showMessage(
          [...new Set(panes)],
          formatAttentionMessage(claimed),
        );
      } catch (error) {
        log.warn({ err: error }, 'attention message failed');
      }
    }
    for (const request of claimed) {
      await events
        .emit({
          agent: request.agent,
          type: 'attention',
          requestId: request.id,
          data: { bell: config.bell, tmuxClients: clients },
        })
        .catch((error: unknown) =>
          log.warn({ error: errorMessage(error) }, 'attention event failed'),
        );
    }
  }

  return { check: (snapshot) => serial(() => check(snapshot)) };
}
