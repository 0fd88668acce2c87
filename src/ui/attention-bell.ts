import type { MacsConfig } from '../config/schema.js';
import type { EventSnapshot, Snapshot } from '../state/snapshot-schema.js';

export interface AttentionBellOptions {
  config: MacsConfig['attention'];
  /** Ring the terminal bell (write BEL to the view's terminal). */
  ringBell: () => void;
  /** When the view started: attention called before it is not rung again. */
  since: Date;
}

export interface AttentionBell {
  /** Ring for `attention` events of this snapshot not rung for yet. */
  check(snapshot: Snapshot): void;
}

function keyOf(event: EventSnapshot): string {
  return `${event.ts}|${event.agent}|${event.requestId ?? ''}|${JSON.stringify(event.data?.reason ?? '')}`;
}

/**
 * The status view's part in calling a person: the bridge raises `attention`
 * (once per request or state change: bridge/attention.ts); the view, where
 * the person looks, rings the terminal bell once for each batch of new ones.
 */
export function createAttentionBell(
  options: AttentionBellOptions,
): AttentionBell {
  const rung = new Set<string>();
  const since = options.since.toISOString();
  return {
    check(snapshot) {
      if (!options.config.bell) return;
      const fresh = snapshot.events.filter(
        (e) => e.type === 'attention' && e.ts >= since && !rung.has(keyOf(e)),
      );
      if (fresh.length === 0) return;
      for (const e of fresh) rung.add(keyOf(e));
      options.ringBell();
    },
  };
}
