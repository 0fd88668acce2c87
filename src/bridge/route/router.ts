/**
 * Routing (SPEC §3): which backends a request goes to, in which order, and
 * when the loop guards send it to a person instead. Pure: the dispatcher
 * (`dispatch-backend.ts`) does the I/O, and `guard-history.ts` keeps
 * the history.
 */
import type { BackendName, MacsConfig } from '../../config/schema.js';

/** Why a request skipped the AI answerers and went to a person. */
export type GuardTrip =
  | { reason: 'rate-limit'; count: number; limit: number }
  | { reason: 'repeat'; previousId: string; answeredAt: string };

export interface RouteInput {
  type: string;
  config: Pick<MacsConfig, 'backend' | 'routes' | 'fallback'>;
  /** Backends this bridge can use (`file` always can). */
  available: readonly BackendName[];
  guard?: GuardTrip;
  /** A resumed request carries on from the backend it was routed to. */
  resumeFrom?: string;
}

export interface RouteDecision {
  /** Backends to try in order; never empty, always ending with `file`. */
  chain: BackendName[];
  /** Backends the config names that this bridge cannot use. */
  skipped: BackendName[];
  guard?: GuardTrip;
}

/**
 * The backends for a request: `routes[type]` (else the session's `backend`),
 * then the `fallback` chain, without repeats. `file` is always the last
 * resort, so a request is never left with nobody to answer it. A tripped
 * guard sends the request straight to `file`.
 */
export function chooseRoute(input: RouteInput): RouteDecision {
  const { config } = input;
  const wanted: BackendName[] = [];
  const routed = Object.hasOwn(config.routes, input.type)
    ? config.routes[input.type]
    : undefined;
  for (const name of [...(routed ?? [config.backend]), ...config.fallback]) {
    if (!wanted.includes(name)) wanted.push(name);
  }
  if (!wanted.includes('file')) wanted.push('file');
  const usable = (name: BackendName) =>
    name === 'file' || input.available.includes(name);
  const skipped = wanted.filter((name) => !usable(name));
  let chain = wanted.filter(usable);
  if (input.guard) {
    return { chain: ['file'], skipped, guard: input.guard };
  }
  const resumeAt =
    input.resumeFrom === undefined
      ? -1
      : chain.indexOf(input.resumeFrom as BackendName);
  if (resumeAt > 0) chain = chain.slice(resumeAt);
  return { chain, skipped };
}

/** What the dispatcher remembers about an agent's recent requests. */
export interface GuardHistory {
  /** Requests routed (or detected) recently: id → epoch ms, body hash prefix. */
  requests: ReadonlyMap<string, { at: number; hash: string }>;
  /** Answers accepted recently, by body hash prefix. */
  answered: ReadonlyMap<string, { id: string; at: number }>;
}

/** The loop guards look back this far. */
export const GUARD_WINDOW_MS = 60 * 60 * 1000;
/** Body hashes are compared by this many hex digits (what events carry). */
export const GUARD_HASH_CHARS = 12;

/**
 * The loop guards (SPEC §3, issue "loop guards"):
 * - repeat: the worker asks again, under a new id, exactly what it asked
 *   before and was answered within the window;
 * - rate-limit: it already asked `maxRequestsPerHour` times in the window.
 * Returns the first guard that trips.
 */
export function checkGuards(input: {
  requestId: string;
  bodyHash: string;
  now: number;
  maxRequestsPerHour: number;
  history: GuardHistory;
}): GuardTrip | undefined {
  const since = input.now - GUARD_WINDOW_MS;
  const hash = input.bodyHash.slice(0, GUARD_HASH_CHARS);
  const previous = input.history.answered.get(hash);
  if (previous && previous.id !== input.requestId && previous.at >= since) {
    return {
      reason: 'repeat',
      previousId: previous.id,
      answeredAt: new Date(previous.at).toISOString(),
    };
  }
  let count = 0;
  for (const [id, seen] of input.history.requests) {
    if (id !== input.requestId && seen.at >= since) count += 1;
  }
  if (count >= input.maxRequestsPerHour) {
    return { reason: 'rate-limit', count, limit: input.maxRequestsPerHour };
  }
  return undefined;
}

/**
 * Backends the config names (`backend`, `routes`, `fallback`) that are not
 * in `available`, each with where it is named: a bridge refuses to start
 * with them rather than skipping them quietly.
 */
export function findMissingBackends(
  config: Pick<MacsConfig, 'backend' | 'routes' | 'fallback'>,
  available: readonly BackendName[],
): { backend: BackendName; where: string }[] {
  const named: { backend: BackendName; where: string }[] = [
    { backend: config.backend, where: 'backend' },
    ...Object.entries(config.routes).flatMap(([type, chain]) =>
      chain.map((backend) => ({ backend, where: `routes.${type}` })),
    ),
    ...config.fallback.map((backend) => ({ backend, where: 'fallback' })),
  ];
  return named.filter(
    ({ backend }) => backend !== 'file' && !available.includes(backend),
  );
}
