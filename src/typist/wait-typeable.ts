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
  readWaitsForInput,
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
 * A shell pane at its prompt: {@link shellTakesInput} on its foreground
 * processes, and each of them blocked on input, not running or waiting for
 * a command it started (a loop between two commands).
 */
async function shellAtPrompt(
  currentCommand: string,
  panePid: number,
): Promise<boolean> {
  const foreground = await readForegroundProcesses(panePid);
  if (!shellTakesInput(currentCommand, foreground)) return false;
  for (const p of foreground ?? [])
    if ((await readWaitsForInput(p.pid)) === false) return false;
  return true;
}

/** How long a shell agent must be seen at its prompt before typing. */
export const SHELL_SETTLE_MS = 400;
/** Readings of the shell at its prompt, at least, over that time. */
const SHELL_SETTLE_READINGS = 3;
/** How often the shell is read while it settles. */
const SHELL_READ_MS = 100;

/** The agent has been waited for longer than `deliverTimeoutMs` (once). */
export interface BusyReport {
  phase: 'busy';
  state: AgentStateName;
  waitedMs: number;
}

/** How a wait ended: typeable (and whether a mode is to be left), or not. */
export type WaitOutcome = { inMode: boolean } | 'gone' | 'aborted';

/**
 * Waits until the agent may be typed into, reading its state every
 * `pollMs`; then whether the pane is in a mode (copy mode) to leave first.
 * `gone` for a dead pane, `aborted` once the request's signal fires. An
 * agent busy for longer than `deliverTimeoutMs` is reported once, as a
 * value yielded on the way (the caller records it and asks for the next
 * value, the wait going on where it was).
 */
export async function* waitingTypeable(
  tmux: TmuxClient,
  request: DeliveryRequest,
  started: number,
  pollMs: number,
): AsyncGenerator<BusyReport, WaitOutcome> {
  const quietMs = request.unknownQuietMs ?? 0;
  let reported = false;
  let quietScreen: string | undefined;
  let quietSince = 0;
  // A shell agent must be seen at its prompt on every reading for
  // SHELL_SETTLE_MS: one reading can fall between two commands of a loop
  // (`while …; do sleep 1; done`), when the shell itself is briefly in the
  // foreground.
  let shellSince: number | undefined;
  let shellReadings = 0;
  const shellSettled = (): boolean => {
    const now = Date.now();
    shellSince ??= now;
    shellReadings += 1;
    return (
      shellReadings >= SHELL_SETTLE_READINGS &&
      now - shellSince >= SHELL_SETTLE_MS
    );
  };
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
        !(await shellAtPrompt(info.currentCommand, info.pid));
      const settling =
        request.rules.shellPromptOnly === true && !busyShell && !shellSettled();
      if (busyShell) {
        quietScreen = undefined;
        shellSince = undefined;
        shellReadings = 0;
      } else if (settling) {
        // Read again soon: the shell must stay at its prompt a while.
      } else if (state === 'idle' || quietMs <= 0)
        return { inMode: info.inMode };
      else {
        // `unknown` with a quiet period: the screen must stay the same.
        const screen = await tmux.capturePane(request.pane);
        const now = Date.now();
        if (screen !== quietScreen) {
          quietScreen = screen;
          quietSince = now;
        } else if (now - quietSince >= quietMs) return { inMode: info.inMode };
      }
    } else {
      quietScreen = undefined;
      shellSince = undefined;
      shellReadings = 0;
    }
    const waited = Date.now() - started;
    if (
      !reported &&
      request.deliverTimeoutMs !== undefined &&
      waited > request.deliverTimeoutMs
    ) {
      reported = true;
      yield { phase: 'busy', state, waitedMs: waited };
    }
    try {
      const wait =
        shellSince === undefined ? pollMs : Math.min(pollMs, SHELL_READ_MS);
      await delay(wait, undefined, { signal: request.signal });
    } catch {
      return 'aborted';
    }
  }
}

/** {@link waitingTypeable} to its end, reports of a long wait left unread. */
export async function waitTypeable(
  tmux: TmuxClient,
  request: DeliveryRequest,
  started: number,
  pollMs: number,
): Promise<WaitOutcome> {
  const waiting = waitingTypeable(tmux, request, started, pollMs);
  for (;;) {
    const next = await waiting.next();
    if (next.done === true) return next.value;
  }
}
