import { describe, expect, it } from 'vitest';
import type { BackendName, MacsConfig } from '../../../src/config/schema.js';
import {
  checkGuards,
  chooseRoute,
  findMissingBackends,
  GUARD_WINDOW_MS,
  type GuardHistory,
} from '../../../src/bridge/route/router.js';

type RouteConfig = Pick<MacsConfig, 'backend' | 'routes' | 'fallback'>;

const config = (over: Partial<RouteConfig> = {}): RouteConfig => ({
  backend: 'file',
  routes: {},
  fallback: ['file'],
  ...over,
});

const ALL: BackendName[] = ['file', 'exec', 'interactive'];

describe('chooseRoute', () => {
  it.each<{
    name: string;
    type: string;
    cfg: RouteConfig;
    available?: BackendName[];
    chain: BackendName[];
    skipped?: BackendName[];
  }>([
    {
      name: 'default: the session backend, then the fallback',
      type: 'question',
      cfg: config({ backend: 'exec' }),
      chain: ['exec', 'file'],
    },
    {
      name: 'a route for the type wins over the session backend',
      type: 'approval',
      cfg: config({ backend: 'exec', routes: { approval: ['file'] } }),
      chain: ['file'],
    },
    {
      name: 'other types keep the session backend',
      type: 'review',
      cfg: config({ backend: 'exec', routes: { approval: ['file'] } }),
      chain: ['exec', 'file'],
    },
    {
      name: 'a route chain, then the fallback chain, without repeats',
      type: 'review',
      cfg: config({
        routes: { review: ['interactive', 'exec'] },
        fallback: ['exec', 'file'],
      }),
      chain: ['interactive', 'exec', 'file'],
    },
    {
      name: 'file is always the last resort, even with an empty fallback',
      type: 'question',
      cfg: config({ backend: 'exec', fallback: [] }),
      chain: ['exec', 'file'],
    },
    {
      name: 'backends this bridge does not run are skipped',
      type: 'question',
      cfg: config({ backend: 'interactive', fallback: ['exec', 'file'] }),
      available: ['file', 'exec'],
      chain: ['exec', 'file'],
      skipped: ['interactive'],
    },
    {
      name: 'a type named like an Object method is just a type',
      type: 'constructor',
      cfg: config({ backend: 'exec' }),
      chain: ['exec', 'file'],
    },
  ])('$name', ({ type, cfg, available, chain, skipped }) => {
    const decision = chooseRoute({
      type,
      config: cfg,
      available: available ?? ALL,
    });
    expect(decision.chain).toEqual(chain);
    expect(decision.skipped).toEqual(skipped ?? []);
  });

  it('sends a request that tripped a guard to a person only', () => {
    const guard = { reason: 'rate-limit', count: 20, limit: 20 } as const;
    expect(
      chooseRoute({
        type: 'question',
        config: config({ backend: 'exec' }),
        available: ALL,
        guard,
      }),
    ).toEqual({ chain: ['file'], skipped: [], guard });
  });

  it('carries a resumed request on from the backend it was at', () => {
    const cfg = config({
      backend: 'interactive',
      fallback: ['exec', 'file'],
    });
    expect(
      chooseRoute({
        type: 'q',
        config: cfg,
        available: ALL,
        resumeFrom: 'exec',
      }).chain,
    ).toEqual(['exec', 'file']);
    expect(
      chooseRoute({
        type: 'q',
        config: cfg,
        available: ALL,
        resumeFrom: 'nowhere',
      }).chain,
    ).toEqual(['interactive', 'exec', 'file']);
  });
});

describe('checkGuards', () => {
  const now = Date.parse('2025-06-01T12:00:00Z');
  const hash = 'abcdef0123456789abcdef0123456789abcdef01';

  function history(
    requests: [string, number, string?][],
    answered: [string, string, number][] = [],
  ): GuardHistory {
    return {
      requests: new Map(
        requests.map(([id, at, h]) => [id, { at, hash: h ?? id }]),
      ),
      answered: new Map(answered.map(([h, id, at]) => [h, { id, at }])),
    };
  }

  const many = (n: number, at = now - 1000) =>
    Array.from(
      { length: n },
      (_, i) => [`w-r${i + 1}`, at] as [string, number],
    );

  it('lets the 20th request through and trips on the 21st', () => {
    const base = {
      bodyHash: hash,
      now,
      maxRequestsPerHour: 20,
    };
    expect(
      checkGuards({ ...base, requestId: 'w-r20', history: history(many(19)) }),
    ).toBeUndefined();
    expect(
      checkGuards({ ...base, requestId: 'w-r21', history: history(many(20)) }),
    ).toEqual({ reason: 'rate-limit', count: 20, limit: 20 });
  });

  it('does not count the request itself (a resumed one is in the history)', () => {
    expect(
      checkGuards({
        requestId: 'w-r20',
        bodyHash: hash,
        now,
        maxRequestsPerHour: 20,
        history: history(many(20)),
      }),
    ).toBeUndefined();
  });

  it('forgets requests older than the window', () => {
    const old = many(20, now - GUARD_WINDOW_MS - 1);
    expect(
      checkGuards({
        requestId: 'w-new',
        bodyHash: hash,
        now,
        maxRequestsPerHour: 20,
        history: history(old),
      }),
    ).toBeUndefined();
  });

  it('trips on the same body as a recently answered request', () => {
    expect(
      checkGuards({
        requestId: 'w-s2',
        bodyHash: hash,
        now,
        maxRequestsPerHour: 20,
        history: history([], [[hash.slice(0, 12), 'w-s1', now - 60_000]]),
      }),
    ).toEqual({
      reason: 'repeat',
      previousId: 'w-s1',
      answeredAt: new Date(now - 60_000).toISOString(),
    });
  });

  it('does not trip on an old answer, a different body, or the same request', () => {
    const base = { now, maxRequestsPerHour: 20 };
    const short = hash.slice(0, 12);
    expect(
      checkGuards({
        ...base,
        requestId: 'w-s2',
        bodyHash: hash,
        history: history([], [[short, 'w-s1', now - GUARD_WINDOW_MS - 1]]),
      }),
    ).toBeUndefined();
    expect(
      checkGuards({
        ...base,
        requestId: 'w-s2',
        bodyHash: `ff${hash.slice(2)}`,
        history: history([], [[short, 'w-s1', now]]),
      }),
    ).toBeUndefined();
    expect(
      checkGuards({
        ...base,
        requestId: 'w-s1',
        bodyHash: hash,
        history: history([], [[short, 'w-s1', now]]),
      }),
    ).toBeUndefined();
  });
});

describe('findMissingBackends', () => {
  it('names each key that routes to a backend the bridge does not run', () => {
    expect(
      findMissingBackends(
        config({
          backend: 'exec',
          routes: { review: ['interactive', 'file'] },
          fallback: ['exec', 'file'],
        }),
        ['file'],
      ),
    ).toEqual([
      { backend: 'exec', where: 'backend' },
      { backend: 'interactive', where: 'routes.review' },
      { backend: 'exec', where: 'fallback' },
    ]);
    expect(findMissingBackends(config(), ['file'])).toEqual([]);
  });
});
