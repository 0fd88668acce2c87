/**
 * Pure: what a hook's observation (`.macs/hooks/<agent>.json`, the latest
 * hook call) means to the bridge: the agent's hooks status when the bridge
 * starts, after each hook call, and when none came in time; and whether the
 * prompt it reports confirms an answer the bridge typed.
 */
import type { HookObservation } from './hook-files.js';
import type { HooksStatus, RequestStage } from './types.js';

/** Without a hook call this long after the bridge starts, hooks count as inactive. */
export const HOOKS_START_TIMEOUT_MS = 30_000;
/** A typed answer waits this long for its UserPromptSubmit confirmation. */
export const CONFIRM_WINDOW_MS = 10 * 60 * 1000;

export function inactiveReason(agent: string, waitedMs: number): string {
  return (
    `no hook call from ${agent} in the ${Math.round(waitedMs / 1000)}s since the bridge started. ` +
    `Its hooks may not be installed (macs start installs them; or run \`macs hooks install ${agent}\`), ` +
    'or Claude Code may be waiting at a prompt (trusting the folder, reviewing changed hooks in /hooks) before any hook runs. ' +
    'If the agent has just been idle, this clears with its next hook call.'
  );
}

/**
 * The hooks status when the bridge starts (`now`, epoch ms): `off` for a
 * preset without hooks (`kind` none); else `active` when a hook called in
 * the last HOOKS_START_TIMEOUT_MS, `waiting` when not.
 */
export function statusAtStart(
  kind: string,
  observation: HookObservation | undefined,
  now: number,
): HooksStatus {
  const since = new Date(now).toISOString();
  if (kind === 'none') return { status: 'off', since };
  const at = observation ? Date.parse(observation.ts) : Number.NaN;
  const seenRecently = !Number.isNaN(at) && now - at < HOOKS_START_TIMEOUT_MS;
  return {
    status: seenRecently ? 'active' : 'waiting',
    since,
    ...(observation
      ? { lastEvent: observation.event, lastEventAt: observation.ts }
      : {}),
  };
}

/**
 * The hooks status after a hook call. A call made since shortly before the
 * bridge started (`startedAt`, epoch ms) makes hooks `active` (`activated`
 * when they were not); otherwise the status stays and notes the call.
 * `hooks` undefined: no status was kept (and none is made up).
 */
export function statusOnCall(
  hooks: HooksStatus | undefined,
  observation: HookObservation,
  startedAt: number,
  now: number,
): { hooks: HooksStatus | undefined; activated: boolean } {
  const at = Date.parse(observation.ts);
  const recent = at >= startedAt - HOOKS_START_TIMEOUT_MS;
  if (recent && hooks?.status !== 'active')
    return {
      hooks: {
        status: 'active',
        since: new Date(now).toISOString(),
        lastEvent: observation.event,
        lastEventAt: observation.ts,
      },
      activated: true,
    };
  return {
    hooks: hooks
      ? { ...hooks, lastEvent: observation.event, lastEventAt: observation.ts }
      : undefined,
    activated: false,
  };
}

/**
 * Hooks still `waiting` when the start timeout ran out become `inactive`,
 * with the reason; any other status stays (undefined: nothing to change).
 */
export function statusAfterWait(
  hooks: HooksStatus | undefined,
  agent: string,
  now: number,
): HooksStatus | undefined {
  if (hooks?.status !== 'waiting') return undefined;
  return {
    ...hooks,
    status: 'inactive',
    since: new Date(now).toISOString(),
    reason: inactiveReason(agent, HOOKS_START_TIMEOUT_MS),
  };
}

/** When the agent last accepted a prompt (epoch ms), NaN when not known. */
export function promptTime(observation: HookObservation | undefined): number {
  return observation?.lastPromptAt
    ? Date.parse(observation.lastPromptAt)
    : Number.NaN;
}

/**
 * What the agent's last accepted prompt (`promptAt`, NaN: none) means for an
 * answer the bridge typed at `typedAt`, its request now at `stage`:
 * `confirm` it (typed, submitted, and a prompt came after), `drop` it (too
 * old to wait for, or settled otherwise), or `wait` for a later check.
 */
export function confirmationOf(
  typedAt: number,
  stage: RequestStage,
  promptAt: number,
  now: number,
): 'confirm' | 'drop' | 'wait' {
  if (now - typedAt > CONFIRM_WINDOW_MS) return 'drop';
  if (Number.isNaN(promptAt) || promptAt < typedAt) return 'wait';
  if (stage === 'confirmed' || stage === 'unconfirmed') return 'drop';
  // Still typing (or the submit key not yet sent): try again on the next check.
  if (stage !== 'delivered') return 'wait';
  return 'confirm';
}
