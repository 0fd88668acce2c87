/**
 * Pure: the observation a hook call leaves for the bridge
 * (`.macs/hooks/<agent>.json`, state/hook-files.ts). Each call
 * rewrites the whole file, so what an event does not say (the state, the
 * count of Stop hooks in a row, the last prompt's time) is carried forward
 * from the previous call's observation.
 */
import type { HookObservation } from '../state/hook-files.js';
import type { HookPlan } from './types.js';

/**
 * The observation a hook leaves: its state (or the previous one when the
 * event says nothing about the state), with the counters carried forward.
 */
export function mergeObservation(
  event: string,
  plan: HookPlan,
  previous: HookObservation | undefined,
  now: Date,
): HookObservation {
  const state = plan.observation?.state ?? previous?.state;
  const blocks =
    plan.observation?.consecutiveBlocks ?? previous?.consecutiveBlocks;
  const transcriptPath = plan.transcriptPath ?? previous?.transcriptPath;
  // PreCompact's trigger waits for the SessionStart that ends the
  // compaction (other hooks may come between); '' clears it.
  const trigger = plan.observation?.trigger ?? previous?.trigger;
  const lastPromptAt =
    event === 'UserPromptSubmit' ? now.toISOString() : previous?.lastPromptAt;
  return {
    event,
    ts: now.toISOString(),
    ...(state ? { state } : {}),
    ...(plan.observation?.delivered
      ? { delivered: plan.observation.delivered }
      : {}),
    ...(blocks !== undefined ? { consecutiveBlocks: blocks } : {}),
    ...(lastPromptAt ? { lastPromptAt } : {}),
    ...(transcriptPath ? { transcriptPath } : {}),
    ...(trigger ? { trigger } : {}),
  };
}
