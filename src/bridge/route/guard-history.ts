/**
 * The loop guards' memory (SPEC §3): per agent, the requests routed and the
 * answers accepted within the guard window. It is read back once from the
 * agent's events, so a restarted bridge still knows what was asked and
 * answered before, but never from before the session began: a new session
 * (a second run of the demo, a start after a stop) does not count an
 * earlier session's requests. The guards themselves are pure (`router.ts`); the
 * dispatcher (`dispatch-backend.ts`) keeps one of these and feeds it.
 */
import { readEvents } from '../../events/log.js';
import type { HomePaths } from '../../home/paths.js';
import type { Logger } from '../../log/logger.js';
import { GUARD_HASH_CHARS, GUARD_WINDOW_MS } from './router.js';

/** What the loop guards remember about one agent. */
export interface AgentHistory {
  requests: Map<string, { at: number; hash: string }>;
  answered: Map<string, { id: string; at: number }>;
}

export interface GuardHistories {
  /** The agent's recent requests and answers, read back from its events once. */
  of(agent: string): Promise<AgentHistory>;
}

export function createGuardHistories(options: {
  paths: HomePaths;
  log: Logger;
  now: () => number;
  /**
   * When this bridge's session began (epoch ms): events before it belong to
   * an earlier session and are not read back.
   */
  since?: number;
}): GuardHistories {
  const { paths, log, now } = options;
  const histories = new Map<string, Promise<AgentHistory>>();

  async function seedHistory(agent: string): Promise<AgentHistory> {
    const history: AgentHistory = { requests: new Map(), answered: new Map() };
    const since = new Date(
      Math.max(now() - GUARD_WINDOW_MS, options.since ?? -Infinity),
    );
    try {
      for (const event of await readEvents(paths, { agent, since })) {
        if (!event.requestId) continue;
        const at = Date.parse(event.ts);
        if (event.type === 'request.detected') {
          const hash = event.data?.hash;
          if (typeof hash === 'string')
            history.requests.set(event.requestId, { at, hash });
        } else if (
          event.type === 'request.answered' ||
          event.type === 'request.answered-empty'
        ) {
          const seen = history.requests.get(event.requestId);
          if (seen)
            history.answered.set(seen.hash, { id: event.requestId, at });
        }
      }
    } catch (error) {
      log.warn({ err: error, agent }, 'could not read the event history');
    }
    return history;
  }

  return {
    of(agent) {
      let history = histories.get(agent);
      if (!history) {
        history = seedHistory(agent);
        histories.set(agent, history);
      }
      return history;
    },
  };
}

/** Forgets what lies before the guard window, as seen at `at`. */
export function pruneHistory(history: AgentHistory, at: number): void {
  const since = at - GUARD_WINDOW_MS;
  for (const [id, seen] of history.requests)
    if (seen.at < since) history.requests.delete(id);
  for (const [hash, seen] of history.answered)
    if (seen.at < since) history.answered.delete(hash);
}

/**
 * Remembers a request being routed: when it was first seen (its detection
 * time, or `at` when that does not parse) and its body hash prefix.
 */
export function noteRequest(
  history: AgentHistory,
  request: { id: string; detectedAt: string; bodyHash: string },
  at: number,
): void {
  const detectedAt = Date.parse(request.detectedAt);
  history.requests.set(request.id, {
    at:
      history.requests.get(request.id)?.at ??
      (Number.isNaN(detectedAt) ? at : detectedAt),
    hash: request.bodyHash.slice(0, GUARD_HASH_CHARS),
  });
}

/**
 * Remembers that the agent took the answer to `requestId`: the same
 * question asked again within the window goes to a person.
 */
export function noteAnswer(
  history: AgentHistory,
  requestId: string,
  at: number,
): void {
  const seen = history.requests.get(requestId);
  if (seen) history.answered.set(seen.hash, { id: requestId, at });
}
