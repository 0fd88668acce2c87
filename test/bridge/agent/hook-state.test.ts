import { describe, expect, it } from 'vitest';
import {
  arbitrateState,
  DISAGREE_GRACE_MS,
  DISAGREE_REPEAT_MS,
  HOOK_STALE_MS,
  type ArbiterMemo,
} from '../../../src/bridge/agent/hook-state.js';
import type { HookObservation } from '../../../src/state/hook-files.js';
import type { AgentStateName } from '../../../src/config/states.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const hook = (
  state: AgentStateName,
  atMs = T0,
  event = 'UserPromptSubmit',
): HookObservation => ({
  state,
  event,
  ts: new Date(atMs).toISOString(),
});

describe('arbitrateState: hook > screen', () => {
  it('without a hook observation the screen decides', () => {
    expect(
      arbitrateState({ hook: undefined, screen: 'working', now: T0 }, {}),
    ).toMatchObject({ state: 'working', source: 'screen' });
    expect(
      arbitrateState(
        { hook: undefined, screen: 'idle', screenSource: 'activity', now: T0 },
        {},
      ),
    ).toMatchObject({ state: 'idle', source: 'activity' });
  });

  it('agreement, or a screen that knows nothing, gives the hook state', () => {
    expect(
      arbitrateState({ hook: hook('idle'), screen: 'idle', now: T0 }, {}),
    ).toMatchObject({
      state: 'idle',
      source: 'hook',
    });
    expect(
      arbitrateState({ hook: hook('working'), screen: 'unknown', now: T0 }, {}),
    ).toEqual({ state: 'working', source: 'hook', memo: {} });
  });

  it('a dead pane is dead whatever the hooks said', () => {
    expect(
      arbitrateState(
        {
          hook: hook('working'),
          screen: 'dead',
          screenSource: 'pane',
          now: T0,
        },
        {},
      ),
    ).toMatchObject({
      state: 'dead',
      source: 'pane',
    });
  });

  it('the hook wins a disagreement, which is reported after the grace, once', () => {
    let memo: ArbiterMemo = {};
    const step = (now: number) => {
      const r = arbitrateState(
        { hook: hook('working'), screen: 'idle', now },
        memo,
      );
      memo = r.memo;
      return r;
    };
    const first = step(T0 + 100);
    expect(first).toMatchObject({ state: 'working', source: 'hook' });
    expect(first.report).toBeUndefined(); // the screen may just lag a redraw
    const later = step(T0 + 100 + DISAGREE_GRACE_MS);
    expect(later.report).toMatchObject({
      hook: 'working',
      screen: 'idle',
      winner: 'hook',
      hookEvent: 'UserPromptSubmit',
    });
    expect(step(T0 + 100 + DISAGREE_GRACE_MS + 500).report).toBeUndefined();
  });

  it('a stale hook state gives way to the screen (an interrupted turn has no Stop hook)', () => {
    let memo: ArbiterMemo = {};
    const at = (now: number) => {
      const r = arbitrateState(
        { hook: hook('working', T0), screen: 'idle', now },
        memo,
      );
      memo = r.memo;
      return r;
    };
    at(T0 + 1000);
    expect(at(T0 + 1000 + HOOK_STALE_MS - 1).state).toBe('working');
    const stale = at(T0 + 1000 + HOOK_STALE_MS);
    expect(stale).toMatchObject({ state: 'idle', source: 'screen' });
    expect(stale.report).toMatchObject({ winner: 'screen' });
  });

  it('a newer hook call keeps the hook state fresh', () => {
    let memo: ArbiterMemo = {};
    arbitrateState(
      { hook: hook('working', T0), screen: 'idle', now: T0 },
      memo,
    );
    memo = { pair: 'working/idle', since: T0 };
    const r = arbitrateState(
      {
        hook: hook('working', T0 + HOOK_STALE_MS, 'PreToolUse'),
        screen: 'idle',
        now: T0 + HOOK_STALE_MS + 10,
      },
      memo,
    );
    expect(r.state).toBe('working');
  });

  it('never believes idle while the screen shows a dialog', () => {
    const r = arbitrateState(
      { hook: hook('idle', T0, 'Stop'), screen: 'approval', now: T0 },
      {},
    );
    expect(r).toMatchObject({ state: 'approval', source: 'screen' });
  });

  it('reports the same disagreement again only after a while', () => {
    let memo: ArbiterMemo = {};
    const reports: number[] = [];
    for (let t = 0; t <= DISAGREE_REPEAT_MS * 2; t += 1000) {
      const r = arbitrateState(
        {
          hook: hook('idle', T0 + t, 'Notification'),
          screen: 'working',
          now: T0 + t,
        },
        memo,
      );
      memo = r.memo;
      if (r.report) reports.push(t);
    }
    expect(reports).toEqual([2000, 2000 + DISAGREE_REPEAT_MS]);
  });
});

describe('arbitrateState: the newest word wins (real Claude Code runs its hooks late)', () => {
  /** Feed screen readings in order; the last result. */
  function run(
    readings: { screen: AgentStateName; at: number }[],
    input: { hook?: HookObservation; submittedAt?: number },
  ) {
    let memo: ArbiterMemo = {};
    let result = arbitrateState(
      { hook: input.hook, screen: 'unknown', now: T0 },
      memo,
    );
    for (const r of readings) {
      result = arbitrateState(
        {
          hook: input.hook,
          screen: r.screen,
          now: r.at,
          ...(input.submittedAt !== undefined
            ? { submittedAt: input.submittedAt }
            : {}),
        },
        memo,
      );
      memo = result.memo;
    }
    return result;
  }

  it('a prompt typed by a person: the screen turned working after the Stop hook, so it is working at once, and that is not a disagreement', () => {
    // Stop at T0 (idle); the person submits at T0+5s; UserPromptSubmit
    // comes seconds later. Meanwhile the screen shows the spinner.
    const result = run(
      [
        { screen: 'idle', at: T0 + 1_000 },
        { screen: 'working', at: T0 + 5_000 },
        { screen: 'working', at: T0 + 5_000 + DISAGREE_GRACE_MS + 2_000 },
      ],
      { hook: hook('idle', T0, 'Stop') },
    );
    expect(result).toMatchObject({ state: 'working', source: 'screen' });
    expect(result.report).toBeUndefined();
  });

  it('a dialog answered by a person: a screen that turned working after PermissionRequest wins', () => {
    const result = run(
      [
        { screen: 'approval', at: T0 + 500 },
        { screen: 'working', at: T0 + 8_000 },
      ],
      { hook: hook('approval', T0, 'PermissionRequest') },
    );
    expect(result).toMatchObject({ state: 'working', source: 'screen' });
  });

  it('a screen that lags behind the hook does not win: the spinner seen before the Stop hook, a composer seen before UserPromptSubmit', () => {
    expect(
      run(
        [
          { screen: 'working', at: T0 - 3_000 },
          { screen: 'working', at: T0 + 500 },
        ],
        { hook: hook('idle', T0, 'Stop') },
      ),
    ).toMatchObject({ state: 'idle', source: 'hook' });
    expect(
      run(
        [
          { screen: 'idle', at: T0 - 3_000 },
          { screen: 'idle', at: T0 + 500 },
        ],
        { hook: hook('working', T0) },
      ),
    ).toMatchObject({ state: 'working', source: 'hook' });
  });

  it('a screen that turned idle after the hook does not win at once (typing into a busy agent is the harm)', () => {
    expect(
      run(
        [
          { screen: 'working', at: T0 + 500 },
          { screen: 'idle', at: T0 + 2_000 },
        ],
        { hook: hook('working', T0) },
      ),
    ).toMatchObject({ state: 'working', source: 'hook' });
  });

  it('a submission macs made is working until the agent says otherwise', () => {
    const submittedAt = T0 + 10_000;
    // The composer still shows idle, the last hook (Stop) says idle.
    const before = run([{ screen: 'idle', at: submittedAt + 2_000 }], {
      hook: hook('idle', T0, 'Stop'),
      submittedAt,
    });
    expect(before).toMatchObject({ state: 'working', source: 'submission' });
    // The agent's UserPromptSubmit, then its Stop: the hooks speak again.
    expect(
      run([{ screen: 'working', at: submittedAt + 4_000 }], {
        hook: hook('working', submittedAt + 3_000),
        submittedAt,
      }),
    ).toMatchObject({ state: 'working', source: 'hook' });
    expect(
      run([{ screen: 'idle', at: submittedAt + 9_000 }], {
        hook: hook('idle', submittedAt + 8_000, 'Stop'),
        submittedAt,
      }),
    ).toMatchObject({ state: 'idle', source: 'hook' });
  });

  it('a submission no hook ever answers goes stale like a hook', () => {
    const submittedAt = T0 + 10_000;
    const result = run(
      [
        { screen: 'idle', at: submittedAt + 1_000 },
        { screen: 'idle', at: submittedAt + 1_000 + HOOK_STALE_MS + 1 },
      ],
      { hook: hook('idle', T0, 'Stop'), submittedAt },
    );
    expect(result).toMatchObject({ state: 'idle', source: 'screen' });
  });
});

describe('arbitrateState: a dialog answered before its hook arrives', () => {
  it('a PermissionRequest that lands after the person answered the dialog on screen does not reopen it', () => {
    // Measured with Claude Code 2.1.197 on a busy machine: the dialog drawn
    // at T0, answered at T0+0.8s, PermissionRequest written at T0+1.5s.
    let memo: ArbiterMemo = {};
    const step = (screen: AgentStateName, at: number, h?: HookObservation) => {
      const r = arbitrateState({ hook: h, screen, now: at }, memo);
      memo = r.memo;
      return r;
    };
    const before = hook('working', T0 - 2_000, 'PreToolUse');
    step('working', T0 - 1_000, before);
    step('approval', T0, before);
    step('working', T0 + 800, before);
    const late = hook('approval', T0 + 1_500, 'PermissionRequest');
    const result = step('working', T0 + 1_600, late);
    expect(result).toMatchObject({ state: 'working', source: 'screen' });
    expect(
      step('working', T0 + 1_600 + DISAGREE_GRACE_MS + 1_000, late).report,
    ).toBeUndefined();
  });

  it('a dialog still open, or one the screen never saw close, stays approval', () => {
    let memo: ArbiterMemo = {};
    const step = (screen: AgentStateName, at: number, h?: HookObservation) => {
      const r = arbitrateState({ hook: h, screen, now: at }, memo);
      memo = r.memo;
      return r;
    };
    const ask = hook('approval', T0, 'PermissionRequest');
    expect(step('approval', T0 + 100, ask).state).toBe('approval');
    // A dialog the screen does not read as one (spinner still drawn).
    let other: ArbiterMemo = {};
    const r = arbitrateState(
      { hook: ask, screen: 'working', now: T0 - 500 },
      other,
    );
    other = r.memo;
    expect(
      arbitrateState({ hook: ask, screen: 'working', now: T0 + 500 }, other)
        .state,
    ).toBe('approval');
  });
});
