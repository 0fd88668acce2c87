/**
 * The first step of a delivery (SPEC §6 step 2): waiting until the agent
 * may be typed into. Which states allow typing is `canTypeInto`, and for a
 * shell agent `shellTakesInput` (its own program in the foreground); the wait
 * reads the agent's state afresh on each poll, asks a screen no rule reads
 * to stay quiet first when the request wants that, types an answer only
 * into the program that asked for it (`asker`: the process group that held
 * the terminal when the request was read), says why it waits once the wait
 * is long enough to notice, and reports (once) an agent that stays busy too
 * long rather than typing into it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  isInteractiveShellArgv,
  isShellCommand,
} from '../config/presets/shell.js';
import type { AgentStateName } from '../config/states.js';
import type { TmuxClient } from '../tmux/client.js';
import type { PaneInfo } from '../tmux/client.js';
import {
  describeGroup,
  liveProcesses,
  readForegroundProcesses,
  readGroupWaitsForInput,
  readPaneForeground,
  readWaitsForInput,
  type ProcessInfo,
} from '../tmux/processes.js';
import type { DeliveryRequest, WaitReason } from './types.js';

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
  foreground: ProcessInfo[] | undefined,
): Promise<boolean> {
  if (!shellTakesInput(currentCommand, foreground)) return false;
  for (const p of foreground ?? [])
    if ((await readWaitsForInput(p.pid)) === false) return false;
  return true;
}

/** How long the pane's foreground must be seen typeable before typing. */
export const SHELL_SETTLE_MS = 400;
/** Readings of it, at least, over that time. */
const SHELL_SETTLE_READINGS = 3;
/** How often the foreground is read while it settles. */
const SHELL_READ_MS = 100;

/**
 * Waits read from the pane's processes (all of /proc each time) are
 * looked at again this often, not at the state's pace: a program that
 * runs for minutes is not scanned twenty times a second.
 */
const FOREGROUND_RECHECK_MS = 250;
const FOREGROUND_REASONS: ReadonlySet<WaitReason['type']> = new Set([
  'shell-busy',
  'other-program',
  'asker-busy',
  'unreadable',
]);

/** A screen that keeps changing is told as a reason only after this long. */
const SCREEN_CHANGING_REPORT_MS = 2_000;

/** The agent has been waited for longer than `deliverTimeoutMs` (once). */
export interface BusyReport {
  phase: 'busy';
  state: AgentStateName;
  waitedMs: number;
}

/** Why the wait goes on, told once it has lasted `waitReportMs`, and again when the reason changes. */
export interface WaitingReport {
  phase: 'waiting';
  reason: WaitReason;
  waitedMs: number;
}

/**
 * How a wait ended: typeable (and whether a mode is to be left), or not:
 * the pane is gone, the wait was called off, or the program that asked has
 * ended (its answer must never reach another program).
 */
export type WaitOutcome =
  { inMode: boolean } | 'gone' | 'aborted' | { askerGone: string };

/** What the pane's foreground says: type (after it settles, or at once), or why not. */
type ForegroundVerdict =
  | { type: 'typeable'; settle: boolean }
  | { type: 'wait'; reason: WaitReason }
  | { type: 'asker-gone'; asker: string };

/**
 * May the text go to the program in the pane's foreground now? An answer
 * (with `asker`) goes only to the process group that asked: while that
 * group holds the terminal and, for a program macs cannot read the screen
 * of, waits for input (nothing of it running); ended, it never will. A
 * request that came from a shell at its prompt, a shell agent's text
 * (`shellPromptOnly`) and a person's send to a shell go only to the shell
 * at its prompt. Any other text goes by the screen alone.
 */
async function readForeground(
  info: PaneInfo,
  request: DeliveryRequest,
): Promise<ForegroundVerdict> {
  const { asker } = request;
  if (asker && !asker.shell) {
    const now = await readPaneForeground(info.pid);
    if (!now) return { type: 'wait', reason: { type: 'unreadable' } };
    if (!now.tree.some((p) => p.pgrp === asker.pgid))
      return { type: 'asker-gone', asker: asker.command };
    if (now.pgid !== asker.pgid)
      return {
        type: 'wait',
        reason: {
          type: 'other-program',
          running: describeGroup(now.processes, now.pgid),
          asker: asker.command,
        },
      };
    // A known agent's screen says when it takes input; any other program
    // must be blocked, not running. One reading is enough: the group is
    // the one that asked (no loop's next command can be in front), and
    // what it has not read yet waits for it in the terminal.
    if (!request.rules.typeIntoUnknown)
      return { type: 'typeable', settle: false };
    return (await readGroupWaitsForInput(now.processes)) === false
      ? { type: 'wait', reason: { type: 'asker-busy', asker: asker.command } }
      : { type: 'typeable', settle: false };
  }
  if (request.rules.shellPromptOnly === true || asker?.shell === true) {
    const foreground = await readForegroundProcesses(info.pid);
    if (await shellAtPrompt(info.currentCommand, foreground))
      return { type: 'typeable', settle: true };
    // Between two commands of a loop the group may hold only the one that
    // ended, not yet reaped: tmux's name for the pane then says more.
    const running =
      foreground && liveProcesses(foreground).length > 0
        ? describeGroup(foreground, foreground[0]?.pgrp)
        : info.currentCommand;
    return { type: 'wait', reason: { type: 'shell-busy', running } };
  }
  return { type: 'typeable', settle: false };
}

/**
 * Waits until the agent may be typed into, reading its state every
 * `pollMs`; then whether the pane is in a mode (copy mode) to leave first.
 * `gone` for a dead pane, `aborted` once the request's signal fires,
 * `askerGone` when the program that asked has ended. On the way it yields
 * why it waits (once the wait has lasted `waitReportMs`, and again when the
 * reason changes) and, once, an agent busy for longer than
 * `deliverTimeoutMs`; the caller records each and asks for the next value,
 * the wait going on where it was.
 */
export async function* waitingTypeable(
  tmux: TmuxClient,
  request: DeliveryRequest,
  started: number,
  pollMs: number,
): AsyncGenerator<BusyReport | WaitingReport, WaitOutcome> {
  const quietMs = request.unknownQuietMs ?? 0;
  let reported = false;
  let toldReason: string | undefined;
  let quietScreen: string | undefined;
  let quietSince = 0;
  // The foreground must be seen typeable on every reading for
  // SHELL_SETTLE_MS: one reading can fall between two commands of a loop
  // (`while …; do sleep 1; done`), when the shell itself is briefly in the
  // foreground.
  let settleSince: number | undefined;
  let settleReadings = 0;
  const settled = (): boolean => {
    const now = Date.now();
    settleSince ??= now;
    settleReadings += 1;
    return (
      settleReadings >= SHELL_SETTLE_READINGS &&
      now - settleSince >= SHELL_SETTLE_MS
    );
  };
  for (;;) {
    if (request.signal?.aborted) return 'aborted';
    const state = await request.readState();
    if (state === 'dead') return 'gone';
    let reason: WaitReason | undefined;
    let settling = false;
    if (request.isPaused?.()) reason = { type: 'paused' };
    else if (!canTypeInto(state, request.rules.typeIntoUnknown))
      reason = { type: 'state', state };
    else {
      const info = await tmux.paneInfo(request.pane);
      if (info.dead) return 'gone';
      const foreground = await readForeground(info, request);
      if (foreground.type === 'asker-gone')
        return { askerGone: foreground.asker };
      if (foreground.type === 'wait') reason = foreground.reason;
      else if (foreground.settle && !settled()) settling = true;
      else if (state === 'idle' || quietMs <= 0) return { inMode: info.inMode };
      else {
        // `unknown` with a quiet period: the screen must stay the same.
        const screen = await tmux.capturePane(request.pane);
        const now = Date.now();
        if (screen !== quietScreen) {
          quietScreen = screen;
          quietSince = now;
        } else if (now - quietSince >= quietMs) return { inMode: info.inMode };
        reason = { type: 'screen-changing' };
      }
    }
    if (reason && reason.type !== 'screen-changing') {
      quietScreen = undefined;
      settleSince = undefined;
      settleReadings = 0;
    }
    const waited = Date.now() - started;
    if (
      reason &&
      request.waitReportMs !== undefined &&
      waited >=
        (reason.type === 'screen-changing'
          ? Math.max(request.waitReportMs, SCREEN_CHANGING_REPORT_MS)
          : request.waitReportMs)
    ) {
      const told = formatWaitReason(reason);
      if (told !== toldReason) {
        toldReason = told;
        yield { phase: 'waiting', reason, waitedMs: waited };
      }
    }
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
        settling || settleSince !== undefined
          ? Math.min(pollMs, SHELL_READ_MS)
          : reason && FOREGROUND_REASONS.has(reason.type)
            ? Math.max(pollMs, FOREGROUND_RECHECK_MS)
            : pollMs;
      await delay(wait, undefined, { signal: request.signal });
    } catch {
      return 'aborted';
    }
  }
}

/** Why a typing waits, in words: `pane runs \`sleep 30\`, not at a prompt`. */
export function formatWaitReason(reason: WaitReason): string {
  switch (reason.type) {
    case 'paused':
      return 'deliveries to it are paused (macs resume lets them go)';
    case 'state':
      return reason.state === 'approval'
        ? 'the agent shows a dialog (approval)'
        : reason.state === 'unknown'
          ? 'the screen is not one macs can read (unknown)'
          : `the agent is ${reason.state}`;
    case 'shell-busy':
      return `pane runs \`${reason.running}\`, not at a prompt`;
    case 'other-program':
      return `pane runs \`${reason.running}\`, not \`${reason.asker}\`, which asked`;
    case 'asker-busy':
      return `\`${reason.asker}\`, which asked, is running, not reading input`;
    case 'screen-changing':
      return 'the screen is still changing';
    case 'unreadable':
      return "the pane's processes cannot be read";
    default: {
      const never: never = reason;
      return String(never);
    }
  }
}

/** {@link waitingTypeable} to its end, its reports left unread. */
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
