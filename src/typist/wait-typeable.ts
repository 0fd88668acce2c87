/**
 * The first step of a delivery (SPEC §6 step 2): waiting until the agent
 * may be typed into. Which states allow typing is `canTypeInto`, and for a
 * shell agent `shellTakesInput` (its own program in the foreground); the wait
 * reads the agent's state afresh on each poll, asks a screen no rule reads
 * to stay quiet first when the request wants that, and reports (once) an
 * agent that stays busy too long rather than typing into it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  isInteractiveShellArgv,
  isShellCommand,
} from '../config/presets/shell.js';
import type { AgentStateName } from '../config/states.js';
import type { TmuxClient } from '../tmux/client.js';
import {
  readForegroundProcesses,
  type ProcessInfo,
} from '../tmux/processes.js';
import type { DeliveryRequest } from './types.js';

/**
 * States in which typing is allowed: `idle`, and, for a program macs has
 * no preset for (`typeIntoUnknown`), `unknown`: a screen no rule reads,
 * such as that program at a prompt macs does not know, or a shell running
 * a command, which shows no sign of being busy or asking (a request may ask
 * for a quiet screen first: `unknownQuietMs`). A known agent's `unknown`
 * (a sign-in menu, an overlay, the shell it exited to) is never typed into.
 * Never `working`, `approval`, `error` or `dead`.
 */
export function canTypeInto(
  state: AgentStateName,
  typeIntoUnknown = true,
): boolean {
  return state === 'idle' || (state === 'unknown' && typeIntoUnknown);
}

/**
 * Does a shell agent's pane take a command now? Only while the program in
 * the terminal's foreground is the shell itself at its prompt: tmux's
 * `pane_current_command` must be a shell, and each process of the
 * foreground group (`foreground`, when it could be read) a shell reading
 * its terminal. A shell running `sleep 20`, `vim` or `bash build.sh` is
 * busy; a nested `bash` at its own prompt takes commands like its parent.
 */
export function shellTakesInput(
  currentCommand: string,
  foreground: readonly Pick<ProcessInfo, 'argv'>[] | undefined,
): boolean {
  if (!isShellCommand(currentCommand)) return false;
  if (!foreground || foreground.length === 0) return true;
  return foreground.every((p) => isInteractiveShellArgv(p.argv));
}

/**
 * Waits until the agent may be typed into, reading its state every
 * `pollMs`; then whether the pane is in a mode (copy mode) to leave first.
 * `gone` for a dead pane, `aborted` once the request's signal fires.
 */
export async function waitTypeable(
  tmux: TmuxClient,
  request: DeliveryRequest,
  started: number,
  pollMs: number,
): Promise<{ inMode: boolean } | 'gone' | 'aborted'> {
  const quietMs = request.unknownQuietMs ?? 0;
  let reported = false;
  let quietScreen: string | undefined;
  let quietSince = 0;
  for (;;) {
    if (request.signal?.aborted) return 'aborted';
    const state = await request.readState();
    if (state === 'dead') return 'gone';
    if (
      canTypeInto(state, request.rules.typeIntoUnknown) &&
      !request.isPaused?.()
    ) {
      const info = await tmux.paneInfo(request.pane);
      if (info.dead) return 'gone';
      const busyShell =
        request.rules.shellPromptOnly === true &&
        !shellTakesInput(
          info.currentCommand,
          await readForegroundProcesses(info.pid),
        );
      if (busyShell) quietScreen = undefined;
      else if (state === 'idle' || quietMs <= 0) return { inMode: info.inMode };
      else {
        // `unknown` with a quiet period: the screen must stay the same.
        const screen = await tmux.capturePane(request.pane);
        const now = Date.now();
        if (screen !== quietScreen) {
          quietScreen = screen;
          quietSince = now;
        } else if (now - quietSince >= quietMs) return { inMode: info.inMode };
      }
    } else quietScreen = undefined;
    const waited = Date.now() - started;
    if (
      !reported &&
      request.deliverTimeoutMs !== undefined &&
      waited > request.deliverTimeoutMs
    ) {
      reported = true;
      await request.onWaitingTooLong?.(state, waited);
    }
    try {
      await delay(pollMs, undefined, { signal: request.signal });
    } catch {
      return 'aborted';
    }
  }
}
