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
import type { HookObservation } from '../../state/hook-files.js';
import type { StateSource } from '../../state/types.js';
import type { AgentStateName } from '../../config/states.js';

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
  /** The screen's last known state (`unknown` readings aside), and since when. */
  screen?: AgentStateName;
  screenSince?: number;
  /** When the screen last showed a dialog open, and when it last saw one close. */
  dialogSince?: number;
  dialogClosedAt?: number;
}

/**
 * How late a hook may report a dialog the screen already showed: hooks are
 * processes that start after the event (seconds on a busy machine).
 */
export const HOOK_LAG_MS = 10_000;

/** The event name of the observation a submission by macs stands for. */
export const SUBMISSION_EVENT = 'macs.submitted';

/** Busy states a screen may show newer than the last hook call. */
const BUSY: readonly AgentStateName[] = ['working', 'approval', 'error'];

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

/**
 * The word that counts as the agent's latest: its last hook call, or macs's
 * own submission when that came later (a `working` it has not denied yet).
 */
function latestWord(
  hook: HookObservation | undefined,
  submittedAt: number | undefined,
): { hook: HookObservation | undefined; source: StateSource } {
  if (submittedAt === undefined) return { hook, source: 'hook' };
  const hookAt = hook ? Date.parse(hook.ts) : Number.NaN;
  if (hook && !Number.isNaN(hookAt) && hookAt >= submittedAt)
    return { hook, source: 'hook' };
  return {
    hook: {
      ...hook,
      state: 'working',
      event: SUBMISSION_EVENT,
      ts: new Date(submittedAt).toISOString(),
    },
    source: 'submission',
  };
}

/**
 * Did the screen show a dialog open (at most HOOK_LAG_MS before the hook
 * call, which may start before the dialog is drawn or finish well after) and
 * then close it? Then an `approval` hook call is about that dialog, answered.
 */
function dialogAnswered(seen: ArbiterMemo, hookAt: number): boolean {
  const { dialogSince, dialogClosedAt } = seen;
  return (
    dialogSince !== undefined &&
    dialogClosedAt !== undefined &&
    dialogClosedAt > dialogSince &&
    !Number.isNaN(hookAt) &&
    dialogSince >= hookAt - HOOK_LAG_MS
  );
}

export function arbitrateState(
  input: {
    hook: HookObservation | undefined;
    screen: AgentStateName;
    screenSource?: StateSource;
    now: number;
    /** When macs last pressed the submit key into this agent (epoch ms). */
    submittedAt?: number;
  },
  memo: ArbiterMemo,
): Arbitration {
  const { screen, now } = input;
  const screenSource = input.screenSource ?? 'screen';
  // Since when the screen shows what it shows (an `unknown` reading, a
  // screen between two frames, changes nothing).
  const seen: ArbiterMemo =
    screen === 'unknown'
      ? {
          screen: memo.screen,
          screenSince: memo.screenSince,
          dialogSince: memo.dialogSince,
          dialogClosedAt: memo.dialogClosedAt,
        }
      : {
          screen,
          screenSince:
            memo.screen === screen && memo.screenSince !== undefined
              ? memo.screenSince
              : now,
          dialogSince:
            screen === 'approval' && memo.screen !== 'approval'
              ? now
              : memo.dialogSince,
          dialogClosedAt:
            memo.screen === 'approval' && screen !== 'approval'
              ? now
              : memo.dialogClosedAt,
        };
  const word = latestWord(input.hook, input.submittedAt);
  const hook = word.hook;
  const hookState = hook?.state;
  if (!hook || !hookState || hookState === 'unknown' || screen === 'dead')
    return { state: screen, source: screenSource, memo: seen };
  if (hookState === screen || screen === 'unknown')
    return { state: hookState, source: word.source, memo: seen };

  const pair = `${hookState}/${screen}`;
  const since =
    memo.pair === pair && memo.since !== undefined ? memo.since : now;
  const hookAt = Date.parse(hook.ts);
  const lasted = now - since;
  const screenIsNewer =
    BUSY.includes(screen) &&
    seen.screenSince !== undefined &&
    !Number.isNaN(hookAt) &&
    seen.screenSince > hookAt;
  let winner: 'hook' | 'screen' = 'hook';
  let reason = 'hooks win over the screen';
  let expected = false;
  if (screen === 'approval' && hookState === 'idle') {
    winner = 'screen';
    reason = 'the screen shows a dialog; typing would answer it';
  } else if (
    hookState === 'approval' &&
    screen === 'working' &&
    dialogAnswered(seen, hookAt)
  ) {
    // The hook reports the dialog the screen saw open and close: answered.
    winner = 'screen';
    reason = `the screen saw the dialog ${hook.event} reports answered`;
    expected = true;
  } else if (screenIsNewer) {
    // The hook's word is older than what the screen shows now.
    winner = 'screen';
    reason = `the screen turned ${screen} after the last hook call (${hook.event})`;
    expected = true;
  } else {
    // Stale: no hook call since the disagreement began (or for a while).
    const quiet = now - Math.max(since, Number.isNaN(hookAt) ? 0 : hookAt);
    if (quiet >= HOOK_STALE_MS) {
      winner = 'screen';
      reason = `no hook call for ${Math.round(quiet / 1000)}s while the screen disagrees (an interrupted turn has no Stop hook)`;
    }
  }
  const key = `${pair}/${winner}`;
  const next: ArbiterMemo = { ...memo, ...seen, pair, since };
  let report: Disagreement | undefined;
  if (
    !expected &&
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
        source: word.source,
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
