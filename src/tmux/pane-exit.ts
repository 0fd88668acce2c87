/**
 * How a dead pane's program ended. tmux marks a pane dead when its terminal
 * closes and learns the status when it reaps the process, a moment later;
 * tmux 3.3a sometimes leaves the process unreaped until another child of the
 * server exits, so each try that finds no status starts a no-op job (the
 * nudge) and waits a little. After `tries` the status is given up on (then
 * there is no exit code to record).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { buildDisplayArgs } from './args.js';
import {
  buildReapNudgeArgs,
  PANE_EXIT_FORMAT,
  parsePaneExit,
} from './session-args.js';

export interface PaneExit {
  /** The exit status; a signal N reads as 128 + N, as a shell says it. */
  exitCode?: number;
  exitSignal?: number;
}

/** Tries and the wait between them: about a second in all. */
export const PANE_EXIT_TRIES = 10;
export const PANE_EXIT_WAIT_MS = 100;

export async function readPaneExit(
  tmux: { command(args: readonly string[]): Promise<string> },
  pane: string,
  options: { tries?: number; waitMs?: number } = {},
): Promise<PaneExit> {
  const tries = options.tries ?? PANE_EXIT_TRIES;
  const waitMs = options.waitMs ?? PANE_EXIT_WAIT_MS;
  for (let attempt = 1; ; attempt += 1) {
    const exit = parsePaneExit(
      await tmux
        .command(buildDisplayArgs(pane, PANE_EXIT_FORMAT))
        .catch(() => ''),
    );
    if (exit.exitSignal !== undefined)
      return { exitCode: 128 + exit.exitSignal, exitSignal: exit.exitSignal };
    if (exit.exitCode !== undefined) return { exitCode: exit.exitCode };
    if (attempt >= tries) return {};
    await tmux.command(buildReapNudgeArgs()).catch(() => undefined);
    await delay(waitMs);
  }
}
