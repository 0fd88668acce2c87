/**
 * Reading a hook call's input. Claude Code writes the event's JSON on the
 * hook's stdin and closes it; Codex passes its JSON as an argument instead.
 * The read is bounded in time and in size, because a hook must never hang
 * or fill memory on what its agent sends: past either bound the read fails
 * and the runner records an error (the agent goes on).
 */
import { setTimeout as delay } from 'node:timers/promises';

/** A hook gives up reading stdin after this long (an agent always closes it). */
export const STDIN_TIMEOUT_MS = 5000;
/**
 * A hook reads at most this much of stdin (a tool call's input included);
 * longer input is not read on, and the call does nothing but record an
 * error (the agent goes on: a hook never breaks its agent).
 */
export const HOOK_STDIN_MAX_BYTES = 8 * 1024 * 1024;

/** Where a hook's input comes from (the runner's options and deps). */
export interface HookInputSource {
  /** Codex passes its JSON as an argument instead of stdin. */
  payload?: string | undefined;
  stdinIsTTY: boolean;
  readStdin: (maxBytes?: number) => Promise<string>;
}

/** `promise`, or a rejection with `message` once `ms` have passed. */
export function raceTimeout<T>(
  promise: Promise<T>,
  ms: number,
  message: string,
): Promise<T> {
  const controller = new AbortController();
  const timeout = delay(ms, undefined, { signal: controller.signal }).then(
    () => {
      throw new Error(message);
    },
  );
  return Promise.race([promise, timeout]).finally(() => controller.abort());
}

/**
 * The hook's input: the payload argument when given; nothing from a
 * terminal (a person ran `macs hook` by hand); else stdin, within
 * STDIN_TIMEOUT_MS and HOOK_STDIN_MAX_BYTES.
 */
export async function readHookInput(source: HookInputSource): Promise<string> {
  if (source.payload !== undefined) return source.payload;
  if (source.stdinIsTTY) return '';
  return raceTimeout(
    source.readStdin(HOOK_STDIN_MAX_BYTES),
    STDIN_TIMEOUT_MS,
    `stdin did not end within ${STDIN_TIMEOUT_MS} ms`,
  );
}
