/**
 * The agent's state (SPEC §6), read and recorded: `dead` when tmux says the
 * pane's program ended or the pane is gone (or a known agent exited to its
 * shell); else the preset's screen rules on a fresh capture; when no rule
 * matches, output activity (`working` while output came in the last
 * ACTIVITY_QUIET_MS, else `unknown`). Hooks win over screen and activity
 * (hook-link.ts). Readings are taken when output starts and settles, on a
 * backstop timer, and whenever a delivery or a hook asks.
 */
import { AgentError } from '../../errors.js';
import { EXITED_TO_SHELL_NAME } from '../../config/presets/rules.js';
import { isShellCommand } from '../../config/presets/shell.js';
import type { ActivityTracker } from '../../screen/activity.js';
import { lastScreenLines } from '../../screen/classify.js';
import type { StateSource } from '../../state/types.js';
import type { AgentStateName } from '../../config/states.js';
import { PaneNotFoundError, type PaneInfo } from '../../tmux/client.js';
import { readPaneExit } from '../../tmux/pane-exit.js';
import { createProgramFollower } from './follow-program.js';
import type { AgentContext } from '../agent-context.js';
import { canTypeInto } from '../../typist/wait-typeable.js';
import type { Observation } from './types.js';
import type { RequestSteps } from '../requests/request-steps.js';

/** A screen no rule matches counts as `working` for this long after output. */
export const ACTIVITY_QUIET_MS = 1_500;
/** The agent's state is read this soon after output starts after a pause… */
const STATE_LEADING_MS = 50;
/** …again once output has been quiet this long… */
export const STATE_SETTLE_MS = 150;
/** …or this long after the last reading while output keeps coming. */
const STATE_BUSY_INTERVAL_MS = 1_000;
/** The backstop: the state is read at least this often after output… */
export const STATE_BACKSTOP_MS = 2_000;
/**
 * …and this often once the pane has been quiet since the last reading, and
 * that reading does not depend on time (an idle pane's screen only changes
 * with output, which is read at once; the pane's death is seen by the
 * bridge's health check).
 */
export const STATE_QUIET_BACKSTOP_MS = 30_000;
/** A delivery waiting on a busy agent reads its screen this often. */
const TYPING_RECHECK_MS = 250;

export interface StateDetail {
  /** The screen rule that matched (`<state>:<rule>`). */
  rule?: string;
  exitCode?: number;
  exitSignal?: number;
  /** A dead pane's last lines (why it ended). */
  lastLines?: string[];
  /** A known agent exited to this shell in its pane. */
  exitedTo?: string;
}

/**
 * One reading: `state` is what is recorded; `typing` is what a delivery goes
 * by, the same except that output activity does not count there (a screen
 * no rule reads is `unknown`, typed into at once) and the screen's own
 * reading counts when the hooks' won.
 */
export interface Reading {
  state: AgentStateName;
  typing: AgentStateName;
}

export interface AgentStateReader {
  /** Read the state now and record it; returns what was recorded. */
  readState: () => Promise<AgentStateName>;
  observeState: () => Promise<Reading>;
  /**
   * The state a delivery waiting to type goes by. A recent reading that
   * says "not now" (working, a dialog…) is reused, so a long wait costs a
   * tmux call every TYPING_RECHECK_MS; one that would allow typing is always
   * read afresh, so nothing is typed on an old screen.
   */
  deliveryState: () => Promise<AgentStateName>;
  /** Record a state (under `serial`); an event when it changes. */
  setAgentState: (
    next: AgentStateName,
    source: StateSource,
    detail?: StateDetail,
  ) => Promise<void>;
  /**
   * The pane is gone for good (not merely dead: tmux no longer knows its
   * id) while the tmux server runs: tell the owner once (onPaneGone).
   */
  notePaneGone: () => Promise<void>;
  /**
   * After output: read the state when a burst of output starts, at least
   * every STATE_BUSY_INTERVAL_MS while it lasts, and once it settles.
   */
  afterOutput: (burst: boolean) => void;
  /** Read now, then on the backstop timer until stop. */
  start: () => void;
  stop: () => void;
}

export function createAgentStateReader(
  ctx: AgentContext,
  deps: {
    steps: RequestSteps;
    activity: ActivityTracker;
    /** Hooks win over the screen (hook-link.ts resolveState). */
    resolveState(
      observed: AgentStateName,
      source: StateSource,
    ): Promise<{ state: AgentStateName; source: StateSource }>;
    /** What a reading found, handed on (awaited where it was found). */
    observe(observation: Observation): Promise<void>;
    onPaneGone?: (error: AgentError) => void;
  },
): AgentStateReader {
  const { agent, pane, tmux, serial, log } = ctx;
  const { steps, activity } = deps;
  let lastStateReadAt = 0;
  /** The last reading goes by recent output (`working` until it is quiet). */
  let lastReadingTimed = false;
  let lastTyping: { state: AgentStateName; at: number } | undefined;
  let stateTimer: NodeJS.Timeout | undefined;
  let backstopTimer: NodeJS.Timeout | undefined;
  let paneGoneReported = false;
  /** A known agent's program was seen in the foreground of its pane. */
  let programSeen = false;
  /** …and since then only its shell: the agent exited to it. */
  let exitedToShell = false;
  const follower = createProgramFollower(ctx);

  async function setAgentState(
    next: AgentStateName,
    source: StateSource,
    detail: StateDetail = {},
  ): Promise<void> {
    const s = ctx.current();
    if (
      next !== 'dead' &&
      (s.exitCode !== undefined ||
        s.exitSignal !== undefined ||
        s.lastLines !== undefined)
    ) {
      // The pane runs again (respawn-pane, or the agent started again in
      // the shell it exited to): how the last run ended is history.
      delete s.exitCode;
      delete s.exitSignal;
      delete s.lastLines;
      ctx.saveLater();
    }
    if (s.state === next) {
      s.stateSource = source; // e.g. the screen now agrees with a hook
      return;
    }
    const previous = s.state;
    s.state = next;
    s.stateSource = source;
    s.stateSince = new Date().toISOString();
    if (detail.exitCode !== undefined) s.exitCode = detail.exitCode;
    if (detail.exitSignal !== undefined) s.exitSignal = detail.exitSignal;
    if (detail.lastLines?.length) s.lastLines = detail.lastLines;
    ctx.saveLater();
    await ctx.emit({
      type: 'state.changed',
      data: { from: previous, to: next, source, pane, ...detail },
    });
  }

  async function notePaneGone(): Promise<void> {
    if (paneGoneReported || ctx.stopped || !deps.onPaneGone) return;
    try {
      await tmux.paneInfo(pane);
      return; // still there
    } catch (error) {
      if (!(error instanceof PaneNotFoundError)) return;
    }
    // A server going down loses its panes too; that is reported elsewhere.
    if (!(await tmux.isServerRunning().catch(() => false))) return;
    if (paneGoneReported || ctx.stopped) return;
    paneGoneReported = true;
    const open = Object.keys(ctx.current().requests).length;
    await ctx.emit({
      type: 'error',
      data: {
        where: 'pane',
        paneGone: true,
        message: `pane ${pane} is gone; ${String(open)} open request(s) kept`,
      },
    });
    deps.onPaneGone(
      new AgentError(
        `pane ${pane} of agent '${agent}' is gone (killed or closed); the bridge stops`,
        {
          hint: `its ${String(open)} open request(s) are kept in .macs/state/${agent}.json; start the agent again and bridge its new pane (macs bridge --worker-pane <pane> --agent ${agent}), or use macs bridge --all, which follows an agent to its new pane`,
        },
      ),
    );
  }

  function remember(reading: Reading): Reading {
    lastTyping = { state: reading.typing, at: Date.now() };
    return reading;
  }

  /**
   * With a shell in the foreground, does the screen show its prompt: the
   * agent's output under the shell's prompt, or any screen its rules read
   * as idle (the agent's own composer cannot be drawn by a shell)?
   */
  const showsShellPromptAgain = (screen: string): boolean => {
    const seen = ctx.profile.classifyScreen?.(screen);
    return (
      seen?.rule === `error:${EXITED_TO_SHELL_NAME}` || seen?.state === 'idle'
    );
  };

  /** Is the pane's program a shell again after the agent ran there? */
  async function exitedToItsShell(
    info: PaneInfo,
    screen: string,
  ): Promise<boolean> {
    if (!ctx.profile.knownScreens) return false;
    if (isShellCommand(info.currentCommand)) {
      // Not seen running: the pane may still be starting it, unless the
      // screen shows the shell's prompt back under what the program printed
      // (it exited before the first reading, e.g. on a configuration error).
      if (!programSeen && !showsShellPromptAgain(screen)) return false;
      exitedToShell = true;
      await serial(() =>
        setAgentState('dead', 'pane', {
          lastLines: lastScreenLines(screen),
          exitedTo: info.currentCommand,
        }),
      );
      return true;
    }
    if (exitedToShell) {
      exitedToShell = false;
      await serial(() => steps.onRelaunchedInShell(info.currentCommand));
    }
    programSeen = true;
    return false;
  }

  async function observeState(): Promise<Reading> {
    lastStateReadAt = Date.now();
    const capturedAt = lastStateReadAt;
    try {
      // Both at once: a delivery may be waiting on this reading.
      const [info, screen] = await Promise.all([
        tmux.paneInfo(pane),
        tmux.capturePane(pane).catch((error: unknown) => {
          if (error instanceof PaneNotFoundError) return '';
          throw error;
        }),
      ]);
      if (info.dead) {
        // Asked once per death: tmux 3.3 often never learns the status.
        const exit =
          ctx.current().state === 'dead'
            ? {}
            : {
                ...(await readPaneExit(tmux, pane)),
                lastLines: lastScreenLines(screen),
              };
        await serial(() => setAgentState('dead', 'pane', exit));
        await deps.observe({
          type: 'screen',
          screen: '',
          state: 'dead',
          capturedAt,
        });
        return remember({ state: 'dead', typing: 'dead' });
      }
      if (ctx.panePid !== undefined && info.pid !== ctx.panePid)
        await serial(() => steps.onProgramRestarted(info.pid));
      if (await follower.follow(info)) {
        // Whatever ran before is not this program: a known agent's exit
        // is watched for afresh.
        programSeen = false;
        exitedToShell = false;
      }
      // A known agent whose pane shows its shell again has exited to it:
      // dead, whatever the screen says (a bare shell prompt reads `idle`).
      if (await exitedToItsShell(info, screen))
        return remember({ state: 'dead', typing: 'dead' });
      await serial(() => deps.observe({ type: 'size', info }));
      const seen = ctx.profile.classifyScreen?.(screen) ?? {
        state: ctx.profile.classify(screen),
      };
      let observed = seen.state;
      let source: StateSource = 'screen';
      lastReadingTimed = false;
      if (observed === 'unknown') {
        source = 'activity';
        if (activity.isActive(Date.now())) {
          observed = 'working';
          lastReadingTimed = true;
        }
      }
      const { state: next, source: winner } = await deps.resolveState(
        observed,
        source,
      );
      await serial(async () => {
        await setAgentState(
          next,
          winner,
          winner === 'screen' && seen.rule ? { rule: seen.rule } : {},
        );
        if (next === 'idle') await deps.observe({ type: 'idle', screen });
      });
      // The screen's own reading, not the hooks': is a dialog shown?
      await deps.observe({
        type: 'screen',
        screen,
        state: seen.state,
        capturedAt,
      });
      return remember({
        state: next,
        typing: winner === 'hook' ? next : seen.state,
      });
    } catch (error) {
      if (error instanceof PaneNotFoundError) {
        await serial(() => setAgentState('dead', 'pane'));
        void notePaneGone().catch(() => undefined);
        return remember({ state: 'dead', typing: 'dead' });
      }
      throw error;
    }
  }

  const readState = async (): Promise<AgentStateName> =>
    (await observeState()).state;

  /** The backstop, armed for when the next reading is due: an idle agent
   * wakes its bridge once in STATE_QUIET_BACKSTOP_MS, not each second. */
  let backstopArmed = false;
  const backstopEvery = () =>
    !lastReadingTimed && (activity.lastOutputAt() ?? 0) < lastStateReadAt
      ? STATE_QUIET_BACKSTOP_MS
      : STATE_BACKSTOP_MS;
  function armBackstop(): void {
    if (!backstopArmed || ctx.stopped) return;
    clearTimeout(backstopTimer);
    const wait = Math.max(0, lastStateReadAt + backstopEvery() - Date.now());
    backstopTimer = setTimeout(() => {
      if (Date.now() - lastStateReadAt < backstopEvery()) armBackstop();
      else readSoon();
    }, wait);
    backstopTimer.unref();
  }

  const readSoon = (): void => {
    void readState()
      .catch((error: unknown) => log.warn({ err: error }, 'state read failed'))
      .finally(armBackstop);
  };

  return {
    readState,
    observeState,
    async deliveryState() {
      const last = lastTyping;
      if (
        last &&
        Date.now() - last.at < TYPING_RECHECK_MS &&
        !canTypeInto(last.state, ctx.profile.rules.typeIntoUnknown) &&
        last.state !== 'dead'
      )
        return last.state;
      return (await observeState()).typing;
    },
    setAgentState,
    notePaneGone,
    afterOutput(burst) {
      if (ctx.stopped) return;
      clearTimeout(stateTimer);
      const due = Math.min(
        burst ? STATE_LEADING_MS : STATE_SETTLE_MS,
        Math.max(0, lastStateReadAt + STATE_BUSY_INTERVAL_MS - Date.now()),
      );
      stateTimer = setTimeout(() => {
        stateTimer = undefined;
        readSoon();
      }, due);
    },
    start() {
      backstopArmed = true;
      void readState()
        .catch(() => undefined)
        .finally(armBackstop);
    },
    stop() {
      backstopArmed = false;
      clearTimeout(backstopTimer);
      clearTimeout(stateTimer);
    },
  };
}
