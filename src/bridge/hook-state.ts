/**
 * Pure: which state to believe when an agent's hooks and its screen say
 * different things (SPEC §6: hooks win over the screen, and a disagreement
 * is an event). Hooks report transitions exactly, but only transitions: a
 * turn the person interrupts with Esc ends with no Stop hook, so a hook's
 * `working` can outlive the turn. Hence two exceptions, both reported:
 *
 * - the screen shows a dialog (`approval`) while the last hook said `idle`:
 *   the screen wins at once, because typing into a dialog would answer it;
 * - a disagreement that lasts HOOK_STALE_MS with no newer hook call: the
 *   screen wins, because the hook's word is out of date.
 *
 * Time is passed in; the caller keeps the memo between calls.
 */
import type { HookObservation } from '../state/hook-files.js';
import type { AgentStateName, StateSource } from '../state/types.js';

/** A disagreement the hooks do not resolve for this long goes to the screen. */
export const HOOK_STALE_MS = 15_000;
/** Screens lag hooks by a redraw; shorter disagreements are not reported. */
export const DISAGREE_GRACE_MS = 1_500;
/** The same disagreement is reported again at most this often. */
export const DISAGREE_REPEAT_MS = 60_000;

export interface ArbiterMemo {
  /** `hook/screen` of the disagreement in progress, and since when. */
  pair?: string;
  since?: number;
  reported?: string;
  reportedAt?: number;
}

export interface Disagreement {
  hook: AgentStateName;
  screen: AgentStateName;
  winner: 'hook' | 'screen';
  reason: string;
  sinceMs: number;
  hookEvent: string;
}

export interface Arbitration {
  state: AgentStateName;
  source: StateSource;
  /** Set when this disagreement should be reported now (rate-limited). */
  report?: Disagreement;
  memo: ArbiterMemo;
}

export function arbitrateState(
  input: {
    hook: HookObservation | undefined;
    screen: AgentStateName;
    screenSource?: StateSource;
    now: number;
  },
  memo: ArbiterMemo,
): Arbitration {
  const { hook, screen, now } = input;
  const screenSource = input.screenSource ?? 'screen';
  const hookState = hook?.state;
  if (!hook || !hookState || hookState === 'unknown' || screen === 'dead')
    return { state: screen, source: screenSource, memo: {} };
  if (hookState === screen || screen === 'unknown')
    return { state: hookState, source: 'hook', memo: {} };

  const pair = `${hookState}/${screen}`;
  const since =
    memo.pair === pair && memo.since !== undefined ? memo.since : now;
  const hookAt = Date.parse(hook.ts);
  const lasted = now - since;
  let winner: 'hook' | 'screen' = 'hook';
  let reason = 'hooks win over the screen';
  if (screen === 'approval' && hookState === 'idle') {
    winner = 'screen';
    reason = 'the screen shows a dialog; typing would answer it';
  } else {
    // Stale: no hook call since the disagreement began (or for a while).
    const quiet = now - Math.max(since, Number.isNaN(hookAt) ? 0 : hookAt);
    if (quiet >= HOOK_STALE_MS) {
      winner = 'screen';
      reason = `no hook call for ${Math.round(quiet / 1000)}s while the screen disagrees (an interrupted turn has no Stop hook)`;
    }
  }
  const key = `${pair}/${winner}`;
  const next: ArbiterMemo = { ...memo, pair, since };
  let report: Disagreement | undefined;
  if (
    lasted >= DISAGREE_GRACE_MS &&
    (memo.reported !== key ||
      memo.reportedAt === undefined ||
      now - memo.reportedAt >= DISAGREE_REPEAT_MS)
  ) {
    report = {
      hook: hookState,
      screen,
      winner,
      reason,
      sinceMs: lasted,
      hookEvent: hook.event,
    };
    next.reported = key;
    next.reportedAt = now;
  }
  return winner === 'hook'
    ? {
        state: hookState,
        source: 'hook',
        memo: next,
        ...(report ? { report } : {}),
      }
    : {
        state: screen,
        source: screenSource,
        memo: next,
        ...(report ? { report } : {}),
      };
}
