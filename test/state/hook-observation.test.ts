import { describe, expect, it } from 'vitest';
import {
  CONFIRM_WINDOW_MS,
  HOOKS_START_TIMEOUT_MS,
  confirmationOf,
  inactiveReason,
  promptTime,
  statusAfterWait,
  statusAtStart,
  statusOnCall,
} from '../../src/state/hook-observation.js';
import type { HookObservation } from '../../src/state/hook-files.js';
import type { HooksStatus } from '../../src/state/types.js';

const NOW = Date.parse('2025-01-01T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const call = (at: number, fields: Partial<HookObservation> = {}) => ({
  event: 'Stop',
  ts: iso(at),
  ...fields,
});

describe('hook observation (pure)', () => {
  it('hooks at start: off without hooks, active after a recent call, else waiting', () => {
    expect(statusAtStart('none', call(NOW - 1000), NOW)).toEqual({
      status: 'off',
      since: iso(NOW),
    });
    expect(statusAtStart('claude', call(NOW - 1000), NOW)).toEqual({
      status: 'active',
      since: iso(NOW),
      lastEvent: 'Stop',
      lastEventAt: iso(NOW - 1000),
    });
    expect(
      statusAtStart('claude', call(NOW - HOOKS_START_TIMEOUT_MS), NOW),
    ).toMatchObject({ status: 'waiting', lastEvent: 'Stop' });
    expect(statusAtStart('claude', undefined, NOW)).toEqual({
      status: 'waiting',
      since: iso(NOW),
    });
  });

  it('a recent call makes waiting hooks active, once', () => {
    const waiting: HooksStatus = { status: 'waiting', since: iso(NOW - 5000) };
    const first = statusOnCall(waiting, call(NOW), NOW - 5000, NOW);
    expect(first).toEqual({
      hooks: {
        status: 'active',
        since: iso(NOW),
        lastEvent: 'Stop',
        lastEventAt: iso(NOW),
      },
      activated: true,
    });
    const again = statusOnCall(
      first.hooks,
      call(NOW + 10, { event: 'UserPromptSubmit' }),
      NOW - 5000,
      NOW + 10,
    );
    expect(again).toEqual({
      hooks: {
        status: 'active',
        since: iso(NOW),
        lastEvent: 'UserPromptSubmit',
        lastEventAt: iso(NOW + 10),
      },
      activated: false,
    });
  });

  it('a call from long before the bridge started is only noted', () => {
    const startedAt = NOW;
    const old = call(startedAt - HOOKS_START_TIMEOUT_MS - 1);
    expect(
      statusOnCall(
        { status: 'inactive', since: iso(NOW) },
        old,
        startedAt,
        NOW,
      ),
    ).toEqual({
      hooks: {
        status: 'inactive',
        since: iso(NOW),
        lastEvent: 'Stop',
        lastEventAt: old.ts,
      },
      activated: false,
    });
    expect(statusOnCall(undefined, old, startedAt, NOW)).toEqual({
      hooks: undefined,
      activated: false,
    });
  });

  it('hooks still waiting after the timeout become inactive, with the reason', () => {
    const waiting: HooksStatus = { status: 'waiting', since: iso(NOW - 1) };
    expect(statusAfterWait(waiting, 'w1', NOW)).toEqual({
      status: 'inactive',
      since: iso(NOW),
      reason: inactiveReason('w1', HOOKS_START_TIMEOUT_MS),
    });
    expect(
      statusAfterWait({ status: 'active', since: iso(NOW) }, 'w1', NOW),
    ).toBeUndefined();
    expect(statusAfterWait(undefined, 'w1', NOW)).toBeUndefined();
    expect(inactiveReason('w1', 30_000)).toMatch(/30s.*macs hooks install w1/);
  });

  it('the last accepted prompt, when known', () => {
    expect(promptTime(call(NOW, { lastPromptAt: iso(NOW - 7) }))).toBe(NOW - 7);
    expect(promptTime(call(NOW))).toBeNaN();
    expect(promptTime(undefined)).toBeNaN();
  });

  it('a prompt after a typed and submitted answer confirms it', () => {
    const typedAt = NOW - 1000;
    expect(confirmationOf(typedAt, 'delivered', NOW, NOW)).toBe('confirm');
    expect(confirmationOf(typedAt, 'delivered', typedAt, NOW)).toBe('confirm');
    // No prompt yet, or one from before the typing.
    expect(confirmationOf(typedAt, 'delivered', Number.NaN, NOW)).toBe('wait');
    expect(confirmationOf(typedAt, 'delivered', typedAt - 1, NOW)).toBe('wait');
    // Still typing, or the submit key not yet sent.
    expect(confirmationOf(typedAt, 'delivering', NOW, NOW)).toBe('wait');
    expect(confirmationOf(typedAt, 'pasted', NOW, NOW)).toBe('wait');
    // Settled otherwise.
    expect(confirmationOf(typedAt, 'confirmed', NOW, NOW)).toBe('drop');
    expect(confirmationOf(typedAt, 'unconfirmed', NOW, NOW)).toBe('drop');
    // Too old to wait for.
    expect(
      confirmationOf(
        typedAt,
        'delivered',
        NOW,
        typedAt + CONFIRM_WINDOW_MS + 1,
      ),
    ).toBe('drop');
  });
});
