import { createHiddenTextTracker } from '../protocol/hidden-text.js';
import { constants, renameSync } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type {
  BackendAnswer,
  AnswerVerdict,
  ControllerBackend,
  SubmitResult,
} from '../backends/types.js';
import { DISMISS_SUFFIX } from '../backends/file.js';
import type { MacsConfig } from '../config/schema.js';
import type { Preset, PresetDialog } from '../config/presets/types.js';
import { AgentError, errorMessage } from '../errors.js';
import { emitSafely, type EventSink } from '../events/log.js';
import type { EventInput } from '../events/types.js';
import type { Logger } from '../log/logger.js';
import { checkDuplicate, pruneDedup, recordSeen } from '../protocol/dedup.js';
import { findHeuristic } from '../screen/heuristics.js';
import { hashBody, makeRequestId } from '../protocol/ids.js';
import type { BridgeEvent } from '../protocol/request-parser.js';
import { deciderOf, parseApprovalAnswer } from '../protocol/approval.js';
import { splitResponse } from '../protocol/response.js';
import { takeAnswerBy } from '../state/outbox.js';
import { isShellCommand } from '../config/presets/shell.js';
import { createActivityTracker } from '../screen/activity.js';
import {
  cleanScreenLines,
  lastScreenLines,
  type ClassifyResult,
} from '../screen/classify.js';
import {
  createScreenReader,
  LIVE_STABLE_MS,
  type ScreenReader,
} from '../screen/reader.js';
import { createPauseGate } from '../state/control.js';
import { ensureHomeDirs, writeFileAtomic } from '../home/fs.js';
import { paneLogPath, type HomePaths } from '../home/paths.js';
import {
  claimRequestId,
  schedulePruneRequestIds,
} from '../state/request-ids.js';
import { createSerialQueue } from '../state/serial.js';
import {
  acquireAgentLock,
  loadAgentState,
  saveAgentState,
  type LoadStateResult,
} from '../state/store.js';
import type {
  AgentStateFile,
  AgentStateName,
  Priority,
  RequestRecord,
  StateSource,
} from '../state/types.js';
import { isOpenStage, isTypedAnswer } from '../state/types.js';
import {
  closeRecord,
  retireRecord,
  type UnansweredEnd,
} from '../state/ledger.js';
import type { TmuxClient } from '../tmux/client.js';
import { PaneNotFoundError, type PaneInfo } from '../tmux/client.js';
import { readPaneExit } from '../tmux/pane-exit.js';
import { archiveDir, archiveRequest, removeRequestFiles } from './archive.js';
import {
  canTypeInto,
  composerHolds,
  type Deliverer,
  type DeliveryRules,
} from './deliver.js';
import { createHookLink } from './hook-link.js';
import {
  createScreenApprovals,
  isScreenApproval,
  type ScreenApprovals,
} from './screen-approvals.js';
import {
  claimPane,
  originMismatch,
  releasePane,
  type AgentIncarnation,
} from './pane-claim.js';
import { createLogTail, type LogTail, type TailEvent } from './tail.js';

/** What the supervisor needs to know about the agent's kind (from its preset). */
export interface AgentProfile {
  preset: string;
  rules: DeliveryRules;
  /** Classify a captured screen (capture-pane text). */
  classify: (screen: string) => AgentStateName;
  /** The same, with the rule that matched (for `state.changed` events). */
  classifyScreen?: (screen: string) => ClassifyResult;
  /**
   * A known agent (preset `knownScreens`): when its pane's foreground program
   * is a shell again after the agent ran there, the agent exited to it.
   */
  knownScreens?: boolean;
  /**
   * The preset's permission dialog (screen approvals, screen-approvals.ts);
   * absent: none are raised from this agent's screen.
   */
  dialog?: PresetDialog;
  /** The preset's hooks: with Claude Code's, its PermissionRequest hook asks instead while hooks work. */
  hooks?: Preset['hooks'];
}

export interface SupervisorOptions {
  agent: string;
  pane: string;
  profile: AgentProfile;
  paths: HomePaths;
  config: MacsConfig;
  tmux: TmuxClient;
  events: EventSink;
  log: Logger;
  deliverer: Deliverer;
  /** Routes a request to its answerer. */
  backend: ControllerBackend;
  /**
   * The `macs start` session this bridge serves (`.macs/session.json`):
   * requests carry it, and one of another session is never answered.
   */
  session?: string;
  /**
   * Told once when the agent's pane no longer exists (killed, its window
   * closed) while its tmux server runs: a pane id never comes back, so a
   * single-agent bridge stops with this error. `macs bridge --all` leaves it
   * out and follows the agent to a new pane itself (multi.ts).
   */
  onPaneGone?: (error: AgentError) => void;
}

export interface Supervisor {
  readonly agent: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Hand an answer to this agent's request (backends call this). */
  onAnswer: (answer: BackendAnswer) => Promise<AnswerVerdict>;
  /** The in-memory state (tests, status). */
  snapshot(): AgentStateFile;
}

/** How long offset-only changes may wait before the state file is written. */
const LAZY_SAVE_MS = 200;
/**
 * Screen reading (src/screen/reader.ts, docs/screen-reading.md): a block the
 * reader holds (not yet drawn to the end) is reported after this much quiet.
 */
const READER_SETTLE_MS = 8;
/** The agent's state is read this soon after output starts after a pause… */
const STATE_LEADING_MS = 50;
/** …again once output has been quiet this long… */
const STATE_SETTLE_MS = 150;
/** …or this long after the last reading while output keeps coming. */
const STATE_BUSY_INTERVAL_MS = 1_000;
/** The backstop: the state is read at least this often after output… */
const STATE_BACKSTOP_MS = 2_000;
/**
 * …and this often once the pane has been quiet since the last reading, and
 * that reading does not depend on time (an idle pane's screen only changes
 * with output, which is read at once; the pane's death is seen by the
 * bridge's health check).
 */
const STATE_QUIET_BACKSTOP_MS = 30_000;
/** With working hooks, a confirmation waits this long for UserPromptSubmit. */
const HOOK_CONFIRM_WAIT_MS = 3_000;
/** A delivery waiting on a busy agent reads its screen this often. */
const TYPING_RECHECK_MS = 250;
/** A screen no rule matches counts as `working` for this long after output. */
const ACTIVITY_QUIET_MS = 1_500;
/** The pane's size is checked at most this often on a redraw hint. */
const SIZE_CHECK_MIN_MS = 100;
/** A dead pane's exit status is asked for this many more times, this far apart. */
/** A restarted bridge redraws its screen from this much of the log. */
const REPLAY_MAX_BYTES = 1024 * 1024;
const PRIORITIES: readonly Priority[] = ['low', 'normal', 'high'];

/**
 * One agent's supervision: pane log → screen reader → ledger → backend, and
 * answers → delivery → archive; the agent's state read along the way. Every step leaves an event and every stage is saved
 * before the next begins, so a killed bridge resumes where it stopped.
 */
export function createSupervisor(options: SupervisorOptions): Supervisor {
  const {
    agent,
    pane,
    profile,
    paths,
    config,
    tmux,
    events,
    log,
    deliverer,
    backend,
  } = options;
  const logFile = paneLogPath(paths, agent);
  const serial = createSerialQueue();
  const abort = new AbortController();
  let state: AgentStateFile | undefined;
  let reader: ScreenReader | undefined;
  const activity = createActivityTracker({ quietMs: ACTIVITY_QUIET_MS });
  let readerSettleTimer: NodeJS.Timeout | undefined;
  let stateTimer: NodeJS.Timeout | undefined;
  let backstopTimer: NodeJS.Timeout | undefined;
  let lastStateReadAt = 0;
  /** The last reading goes by recent output (`working` until it is quiet). */
  let lastReadingTimed = false;
  let lastSizeCheckAt = 0;
  /** Where the output drawn on the reader ends in the log. */
  let lastDataEnd = 0;
  let lastTyping: { state: AgentStateName; at: number } | undefined;
  let tail: LogTail | undefined;
  let releaseLock: (() => Promise<void>) | undefined;
  let lazyTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const deliveries = new Set<Promise<void>>();
  /** Requests with a delivery under way, and how to call each off. */
  const deliveryAborts = new Map<string, AbortController>();
  let paneGoneReported = false;
  /** The log file (inode) our pipe writes into. */
  let captureInode: number | undefined;
  /** The pid of the program in the pane (`#{pane_pid}`): who may take answers. */
  let panePid: number | undefined;
  /**
   * Text the output hid (concealed, or in its background's colour): a person
   * sees blanks where the answerer would read words. A request whose body
   * holds such text is flagged.
   */
  const hiddenText = createHiddenTextTracker();
  /** The pane log renamed aside by a rotation, until it is read to its end. */
  let rotatedTo: string | undefined;
  /** When the last requests were detected (the per-minute limit). */
  const detections: number[] = [];
  /** Requests are being refused by a limit (one `request.limited` a burst). */
  let limitedBurst = false;
  /** A known agent's program was seen in the foreground of its pane. */
  let programSeen = false;
  /** …and since then only its shell: the agent exited to it. */
  let exitedToShell = false;
  // A person pauses delivery from `macs status` with a control file (state/control.ts).
  const pausedByPerson = createPauseGate(paths, agent, (requestId) => {
    void emit({ type: 'delivery.held', requestId, data: { reason: 'paused' } });
  });
  // Agent hooks (hook-link.ts, docs/hooks.md): their state wins over the
  // screen; Stop-hook deliveries, confirmations and approvals arrive as files.
  const hooks = createHookLink({
    agent,
    paths,
    config,
    preset: profile.preset,
    log,
    serial,
    current,
    emit,
    saveNow,
    finish,
    route,
    refreshState: readState,
  });

  // Permission dialogs on the screen (screen-approvals.ts): raised as
  // approvals, decided with the preset's keys after a fresh look.
  const screenApprovals: ScreenApprovals | undefined = profile.dialog
    ? createScreenApprovals({
        agent,
        pane,
        config,
        dialog: profile.dialog,
        tmux,
        ...(options.session ? { session: options.session } : {}),
        classify: profile.classify,
        enabled: screenApprovalsEnabled,
        isPaused: (record) => current().paused || pausedByPerson(record.id),
        panePid: () => panePid,
        serial,
        current,
        emit,
        saveNow,
        claimId: (candidate) => claimRequestId(paths, agent, candidate),
        route: (record) => route(record, { fresh: true }),
        schedule: scheduleDelivery,
        expire: (record, reason) =>
          closeUnanswered(record, 'expired', reason, 'bridge'),
        finish,
      })
    : undefined;

  /**
   * Claude Code's PermissionRequest hook asks for its dialogs itself: no
   * screen approval while its hooks may be working (only once they are
   * known inactive), nor while a hook's approval is open.
   */
  function screenApprovalsEnabled(): boolean {
    if (profile.hooks !== 'claude') return true;
    const s = current();
    const status = s.hooks?.status;
    if (status !== 'inactive' && status !== 'off') return false;
    return !Object.values(s.requests).some((r) => r.origin === 'hook');
  }

  function current(): AgentStateFile {
    if (!state) throw new Error(`supervisor for ${agent} is not started`);
    return state;
  }

  async function emit(input: Omit<EventInput, 'agent'>): Promise<void> {
    await emitSafely(events, log, { agent, ...input });
  }

  async function saveNow(): Promise<void> {
    if (lazyTimer) {
      clearTimeout(lazyTimer);
      lazyTimer = undefined;
    }
    await saveAgentState(paths, current());
  }

  function saveLater(): void {
    if (lazyTimer || stopped) return;
    lazyTimer = setTimeout(() => {
      lazyTimer = undefined;
      void serial(() => saveAgentState(paths, current())).catch(
        (error: unknown) => log.error({ err: error }, 'state save failed'),
      );
    }, LAZY_SAVE_MS);
    lazyTimer.unref();
  }

  interface StateDetail {
    /** The screen rule that matched (`<state>:<rule>`). */
    rule?: string;
    exitCode?: number;
    exitSignal?: number;
    /** A dead pane's last lines (why it ended). */
    lastLines?: string[];
    /** A known agent exited to this shell in its pane. */
    exitedTo?: string;
  }

  async function setAgentState(
    next: AgentStateName,
    source: StateSource,
    detail: StateDetail = {},
  ): Promise<void> {
    const s = current();
    if (
      next !== 'dead' &&
      (s.exitCode !== undefined || s.exitSignal !== undefined)
    ) {
      // The pane runs again (respawn-pane): the old exit status is history.
      delete s.exitCode;
      delete s.exitSignal;
      delete s.lastLines;
      saveLater();
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
    saveLater();
    await emit({
      type: 'state.changed',
      data: { from: previous, to: next, source, pane, ...detail },
    });
  }

  /**
   * The pane is gone for good (not merely dead: tmux no longer knows its
   * id) while the tmux server runs: tell the owner once (onPaneGone).
   */
  async function notePaneGone(): Promise<void> {
    if (paneGoneReported || stopped || !options.onPaneGone) return;
    try {
      await tmux.paneInfo(pane);
      return; // still there
    } catch (error) {
      if (!(error instanceof PaneNotFoundError)) return;
    }
    // A server going down loses its panes too; that is reported elsewhere.
    if (!(await tmux.isServerRunning().catch(() => false))) return;
    if (paneGoneReported || stopped) return;
    paneGoneReported = true;
    const open = Object.keys(current().requests).length;
    await emit({
      type: 'error',
      data: {
        where: 'pane',
        paneGone: true,
        message: `pane ${pane} is gone; ${String(open)} open request(s) kept`,
      },
    });
    options.onPaneGone(
      new AgentError(
        `pane ${pane} of agent '${agent}' is gone (killed or closed); the bridge stops`,
        {
          hint: `its ${String(open)} open request(s) are kept in .macs/state/${agent}.json; start the agent again and bridge its new pane (macs bridge --worker-pane <pane> --agent ${agent}), or use macs bridge --all, which follows an agent to its new pane`,
        },
      ),
    );
  }

  /** How the pane's program ended (tmux/pane-exit.ts). */
  function readExit(): Promise<StateDetail> {
    return readPaneExit(tmux, pane);
  }

  /**
   * Read the agent's state (SPEC §6) and record it: `dead` (with the exit
   * status) when tmux says the pane's program ended or the pane is gone;
   * else the preset's screen rules on a fresh capture; when no rule matches,
   * output activity (`working` while output came in the last
   * ACTIVITY_QUIET_MS, else `unknown`). Hooks win over screen and activity
   * (hook-link.ts). Output settling, the backstop timer, hooks and deliveries
   * all come here. It also keeps the screen reader at the pane's size and
   * runs the heuristic triggers on an idle screen. Not under `serial`.
   */
  async function readState(): Promise<AgentStateName> {
    return (await observeState()).state;
  }

  /**
   * One reading (see readState). `state` is what is recorded; `typing` is
   * what a delivery goes by: the same, except that output activity does not
   * count there (a screen no rule reads is `unknown`, typed into at once).
   */
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
          current().state === 'dead'
            ? {}
            : { ...(await readExit()), lastLines: lastScreenLines(screen) };
        await serial(() => setAgentState('dead', 'pane', exit));
        await screenApprovals?.observe('', 'dead', capturedAt);
        return remember({ state: 'dead', typing: 'dead' });
      }
      if (panePid !== undefined && info.pid !== panePid)
        await serial(() => onProgramRestarted(info.pid));
      // A known agent whose pane shows its shell again has exited to it:
      // dead, whatever the screen says (a bare shell prompt reads `idle`).
      if (profile.knownScreens) {
        if (isShellCommand(info.currentCommand)) {
          if (programSeen) {
            exitedToShell = true;
            await serial(() =>
              setAgentState('dead', 'pane', {
                lastLines: lastScreenLines(screen),
                exitedTo: info.currentCommand,
              }),
            );
            return remember({ state: 'dead', typing: 'dead' });
          }
        } else {
          if (exitedToShell) {
            exitedToShell = false;
            await serial(() => onRelaunchedInShell(info.currentCommand));
          }
          programSeen = true;
        }
      }
      await serial(() => Promise.resolve(syncSize(info)));
      const seen = profile.classifyScreen?.(screen) ?? {
        state: profile.classify(screen),
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
      const { state: next, source: winner } = await hooks.resolveState(
        observed,
        source,
      );
      await serial(async () => {
        await setAgentState(
          next,
          winner,
          winner === 'screen' && seen.rule ? { rule: seen.rule } : {},
        );
        if (next === 'idle') await runHeuristics(screen);
      });
      // The screen's own reading, not the hooks': is a dialog shown?
      await screenApprovals?.observe(screen, seen.state, capturedAt);
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

  interface Reading {
    state: AgentStateName;
    typing: AgentStateName;
  }

  function remember(reading: Reading): Reading {
    lastTyping = { state: reading.typing, at: Date.now() };
    return reading;
  }

  /** Who may take an answer now (pane-claim.ts originMismatch). */
  function incarnation(): AgentIncarnation {
    return {
      pane,
      ...(panePid !== undefined ? { panePid } : {}),
      ...(options.session ? { session: options.session } : {}),
    };
  }

  /**
   * The pane runs another program than the one that asked (respawn-pane,
   * `macs restart`): the new program never asked, so the open requests of
   * the old one are ended, never typed into it. Runs under `serial`.
   */
  async function onProgramRestarted(pid: number): Promise<void> {
    if (panePid === undefined || pid === panePid) return;
    const before = panePid;
    panePid = pid;
    await emit({
      type: 'warning',
      data: {
        message: `the program in pane ${pane} was restarted (pid ${String(before)}, now ${String(pid)}); its open requests are ended`,
        pane,
        pid,
        previousPid: before,
      },
    });
    for (const record of Object.values(current().requests))
      await endForeign(record);
  }

  /**
   * A known agent exited to its shell and a program was started there again
   * (same pane, same pane pid): the new program never asked the open
   * requests of the one that exited. Runs under `serial`.
   */
  async function onRelaunchedInShell(command: string): Promise<void> {
    const reason = `the agent exited to its shell and was started again (${command}); the new program never asked this`;
    await emit({
      type: 'warning',
      data: {
        message: `${agent} was started again in its shell; its open requests are ended`,
        pane,
      },
    });
    for (const record of Object.values(current().requests)) {
      if (current().requests[record.id] !== record) continue;
      if (record.stage === 'delivering' || record.stage === 'pasted') {
        await recordUnconfirmed(record, reason);
        await finish(record);
      } else await closeUnanswered(record, 'expired', reason, 'bridge');
    }
  }

  /**
   * End a request that the agent as it runs now did not ask (originMismatch):
   * `expired`, archived with the reason, never typed. One whose typing had
   * begun went to the old program: recorded `unconfirmed`, never completed
   * in the new one. Returns whether it was ended. Runs under `serial`.
   */
  async function endForeign(record: RequestRecord): Promise<boolean> {
    const reason = originMismatch(record, incarnation());
    if (reason === undefined || current().requests[record.id] !== record)
      return false;
    if (record.stage === 'delivering' || record.stage === 'pasted') {
      await recordUnconfirmed(
        record,
        `${reason}; typing had begun in the program that asked, so it is not completed in this one`,
      );
      await finish(record);
      return true;
    }
    await closeUnanswered(record, 'expired', reason, 'bridge');
    return true;
  }

  /**
   * End an open request without typing anything: `expired` (its agent can
   * no longer take the answer) or `dismissed` (a person ended it). Archived
   * with the reason. Runs under `serial`.
   */
  async function closeUnanswered(
    record: RequestRecord,
    stage: UnansweredEnd,
    reason: string,
    by: string,
  ): Promise<void> {
    closeRecord(record, stage, reason, by);
    deliveryAborts.get(record.id)?.abort();
    await saveNow();
    await emit({
      type: stage === 'expired' ? 'request.expired' : 'request.dismissed',
      requestId: record.id,
      data: { reason, by },
    });
    await finish(record);
  }

  /**
   * The state a delivery waiting to type goes by. A recent reading that
   * says "not now" (working, a dialog…) is reused, so a long wait costs a
   * tmux call every TYPING_RECHECK_MS; one that would allow typing is always
   * read afresh, so nothing is typed on an old screen.
   */
  async function deliveryState(): Promise<AgentStateName> {
    const last = lastTyping;
    if (
      last &&
      Date.now() - last.at < TYPING_RECHECK_MS &&
      !canTypeInto(last.state, profile.rules.typeIntoUnknown) &&
      last.state !== 'dead'
    )
      return last.state;
    return (await observeState()).typing;
  }

  /** Keep the reader at the pane's size. Runs under `serial`. */
  function syncSize(info: PaneInfo): void {
    lastSizeCheckAt = Date.now();
    if (reader && (info.width !== reader.cols || info.height !== reader.rows))
      reader.resize(info.width, info.height);
  }

  /**
   * Heuristic triggers (SPEC §2, screen/heuristics.ts) on an idle screen,
   * when turned on: a new conversation that asks for a decision becomes a
   * `type=heuristic` request; the same one never twice. Runs under `serial`.
   */
  async function runHeuristics(screen: string): Promise<void> {
    if (!config.heuristics) return;
    const s = current();
    const triggers = config.heuristicTriggers;
    const match = findHeuristic(cleanScreenLines(screen), 'idle', {
      lines: config.heuristicLines,
      ...(triggers?.question === undefined
        ? {}
        : { question: triggers.question }),
      ...(triggers?.ask ? { ask: triggers.ask } : {}),
      ...(triggers?.done ? { done: triggers.done } : {}),
    });
    if (!match || match.key === s.heuristicKey) return;
    s.heuristicKey = match.key;
    await handleRequest(
      { type: 'heuristic', trigger: match.trigger },
      match.body,
    );
    await saveNow();
  }

  // ---- capture -----------------------------------------------------------

  /**
   * Claim the pane (pane-claim.ts): refuse one tagged for another agent or
   * read by another live bridge, tag it, and pipe it into the log unless our
   * pipe is there already (a bridge killed with -9 leaves it open, so output
   * printed meanwhile is in the log). With `force` our own pipe is replaced
   * too: its `cat` still writes to the file it opened, which is no longer
   * the log when the log was deleted or replaced. Returns whether the pane
   * was piped now.
   */
  async function ensureCapture(force = false): Promise<boolean> {
    const claim = await claimPane({ tmux, pane, agent, logFile, force });
    panePid ??= claim.pid;
    if (!claim.newPipe) return false;
    await emit({
      type: 'capture.started',
      data: {
        pane,
        log: logFile,
        replacedPipe: claim.replaced !== undefined,
        ...(claim.replaced === 'ours' ? { reopened: true } : {}),
      },
    });
    return true;
  }

  /**
   * The log was deleted or replaced under a running bridge (the tail tells,
   * before it reads the old file to its end): pipe the pane into a new log
   * at once, so output goes on reaching the path. Output printed since the
   * deletion may have gone only to the old file, so the pane's history is
   * scanned too (blocks the reader reported before are not reported again;
   * dedup catches the rest). Runs under `serial`.
   */
  async function reopenCapture(): Promise<void> {
    if (stopped) return;
    // Already piped into the file the path names (told twice).
    const now = await stat(logFile).catch(() => undefined);
    if (now && now.ino === captureInode) return;
    try {
      await ensureCapture(true);
      captureInode = (await stat(logFile)).ino;
      // A rotation of our own loses nothing: the old file is read to its end.
      if (rotatedTo) return;
      current().scanPending = true;
      await saveNow();
      await scanExistingScreen();
    } catch (error) {
      await emit({
        type: 'error',
        data: { where: 'capture', message: errorMessage(error) },
      });
      if (error instanceof PaneNotFoundError)
        void notePaneGone().catch(() => undefined);
      return;
    }
    await emit({
      type: 'warning',
      data: {
        message: `the pane log ${logFile} was deleted or replaced while the bridge ran; the pane is piped into a new log and reading goes on`,
      },
    });
  }

  /**
   * Pane logs do not grow without end: once read past `paneLogMaxBytes`
   * (and no block is held half drawn), the log is renamed aside; the tail
   * sees it replaced, the pane is piped into a new log at the path before
   * the old one is read to its end (reopenCapture), and the old one is
   * removed once read (the `replaced` tail event). Nothing printed
   * meanwhile is lost. Runs under `serial`.
   */
  function maybeRotate(readTo: number): void {
    if (rotatedTo || readTo < config.paneLogMaxBytes) return;
    if (currentReader().hasHeld()) return;
    const aside = `${logFile}.rotated`;
    try {
      renameSync(logFile, aside);
      rotatedTo = aside;
    } catch (error) {
      log.warn({ err: error }, 'could not rotate the pane log');
    }
  }

  /**
   * A pipe only sees output printed after it opens. When the bridge starts
   * watching a pane for the first time, what the pane already shows (its
   * history, as tmux renders it, wrapped lines joined) is scanned once, so a
   * worker that asked before the bridge came up is still heard. The pipe is
   * opened first, so nothing falls between; a request seen both ways is a
   * duplicate and dropped.
   */
  async function scanExistingScreen(): Promise<void> {
    const history = await tmux.capturePane(pane, { start: '-', join: true });
    // The same with its colours: text the pane hides is known before the
    // requests found here are recorded (then the pen is reset).
    const coloured = await tmux
      .capturePane(pane, { start: '-', join: true, escapes: true })
      .catch(() => '');
    hiddenText.feed(`${coloured}\x1b[0m`);
    const r = currentReader();
    // Through the reader, so a block seen here is not reported again when
    // the program redraws it.
    const found = r.scanLines(history.replace(/\n$/, '').split('\n'));
    for (const item of found) await handleParsed(item);
    // Saved as seen only once each is recorded: a bridge killed half way
    // through must find the rest again, not skip them as seen.
    if (found.length > 0) current().screenSeen = r.seen();
    delete current().scanPending;
    await saveNow();
  }

  // ---- detection ---------------------------------------------------------

  /**
   * The reader starts with an empty screen. A restarted bridge first redraws
   * it from the log before its saved offset (at most REPLAY_MAX_BYTES):
   * blocks found there were read by the bridge before and are remembered,
   * never reported (docs/screen-reading.md).
   */
  async function openReader(resumed: boolean): Promise<void> {
    const s = current();
    const info = await tmux.paneInfo(pane);
    const r = createScreenReader({
      cols: info.width,
      rows: info.height,
      maxBlockLines: config.maxBlockLines,
      maxBlockBytes: config.maxBlockBytes,
      seen: s.screenSeen ?? [],
    });
    reader = r;
    lastSizeCheckAt = Date.now();
    lastDataEnd = s.logOffset;
    if (resumed && s.logOffset > 0) {
      const from = Math.max(0, s.logOffset - REPLAY_MAX_BYTES);
      const handle = await open(
        logFile,
        constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0),
      );
      try {
        const bytes = Buffer.alloc(s.logOffset - from);
        const { bytesRead } = await handle.read(bytes, 0, bytes.length, from);
        // Start on a character boundary.
        let skip = 0;
        while (
          skip < Math.min(3, bytesRead) &&
          ((bytes[skip] ?? 0) & 0xc0) === 0x80
        )
          skip += 1;
        await r.replay(
          new TextDecoder().decode(bytes.subarray(skip, bytesRead)),
        );
      } finally {
        await handle.close();
      }
    }
    // A program that was on the alternate screen before the log began.
    if (info.alternateOn && r.buffer !== 'alternate')
      await r.replay('\x1b[?1049h');
  }

  function currentReader(): ScreenReader {
    if (!reader) throw new Error(`supervisor for ${agent} is not started`);
    return reader;
  }

  /**
   * Draw output on the reader. Where the output may start a redraw for a new
   * pane size (reader.sizeHint), the pane's size is read first, so the
   * redraw is drawn at the size it was made for. Runs under `serial`.
   */
  async function readOutput(text: string): Promise<BridgeEvent[]> {
    const r = currentReader();
    const hint = r.sizeHint(text);
    if (hint < 0 || Date.now() - lastSizeCheckAt < SIZE_CHECK_MIN_MS)
      return r.write(text);
    const found = await r.write(text.slice(0, hint));
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    lastSizeCheckAt = Date.now();
    if (info && !info.dead) syncSize(info);
    return [...found, ...(await r.write(text.slice(hint)))];
  }

  /** Handle what the reader found; true when the state must be saved now. */
  async function handleFound(found: BridgeEvent[]): Promise<boolean> {
    let changed = false;
    for (const item of found) changed = (await handleParsed(item)) || changed;
    if (found.length > 0) current().screenSeen = currentReader().seen();
    // A block the reader still holds is not behind the saved offset yet:
    // a restart reads that output again rather than lose the block.
    if (!currentReader().hasHeld()) current().logOffset = lastDataEnd;
    return changed;
  }

  /**
   * After output: settle the reader soon; read the state when a burst of
   * output starts, at least every STATE_BUSY_INTERVAL_MS while it lasts,
   * and once it settles.
   */
  function afterOutput(burst: boolean): void {
    if (stopped) return;
    // The reader reports held blocks, and ends its care after a resize,
    // once output has been quiet for a moment.
    clearTimeout(readerSettleTimer);
    const settleReader = (): void => {
      void serial(async () => {
        if (reader && (await handleFound(reader.settle()))) await saveNow();
        // A block drawn by a full-screen program is reported once it has
        // stayed the same a moment (screen/reader.ts): look again then.
        if (!stopped && reader?.hasHeld()) {
          clearTimeout(readerSettleTimer);
          readerSettleTimer = setTimeout(settleReader, LIVE_STABLE_MS);
        }
      }).catch((error: unknown) =>
        log.error({ err: error }, 'screen settle failed'),
      );
    };
    readerSettleTimer = setTimeout(settleReader, READER_SETTLE_MS);
    clearTimeout(stateTimer);
    const due = Math.min(
      burst ? STATE_LEADING_MS : STATE_SETTLE_MS,
      Math.max(0, lastStateReadAt + STATE_BUSY_INTERVAL_MS - Date.now()),
    );
    stateTimer = setTimeout(() => {
      stateTimer = undefined;
      void readState().catch((error: unknown) =>
        log.warn({ err: error }, 'state read failed'),
      );
    }, due);
  }

  async function onTail(event: TailEvent): Promise<void> {
    await serial(async () => {
      // Stopping: output still queued is read by the next start, from the
      // saved offset; a signal is honoured now, not after a backlog.
      if (stopped) return;
      const s = current();
      switch (event.type) {
        case 'data': {
          hiddenText.feed(event.text);
          const now = Date.now();
          const burst = now - (activity.lastOutputAt() ?? 0) > STATE_SETTLE_MS;
          activity.onOutput(now);
          const found = await readOutput(event.text);
          lastDataEnd = event.end;
          if (await handleFound(found)) await saveNow();
          else saveLater();
          afterOutput(burst);
          maybeRotate(event.end);
          return;
        }
        case 'truncated':
        case 'replaced': {
          // The screen is the pane's, not the file's: the reader carries on.
          lastDataEnd = 0;
          s.logOffset = 0;
          s.logInode = await stat(logFile)
            .then((i) => i.ino)
            .catch(() => undefined);
          await saveNow();
          if (event.type === 'replaced' && rotatedTo) {
            // Our rotation: the old log was read to its end; it goes.
            await rm(rotatedTo, { force: true });
            await emit({
              type: 'capture.rotated',
              data: { log: logFile, maxBytes: config.paneLogMaxBytes },
            });
            rotatedTo = undefined;
            return;
          }
          await emit({
            type:
              event.type === 'truncated'
                ? 'capture.truncated'
                : 'capture.replaced',
            data:
              event.type === 'truncated'
                ? { previousOffset: event.previousOffset, size: event.size }
                : {},
          });
          return;
        }
        case 'error':
          await emit({
            type: 'error',
            data: { where: 'tail', message: event.error.message },
          });
          return;
        default: {
          const never: never = event;
          throw new Error(`unexpected tail event ${JSON.stringify(never)}`);
        }
      }
    });
  }

  /** Returns true when the state changed in a way that must be saved now. */
  async function handleParsed(item: BridgeEvent): Promise<boolean> {
    const s = current();
    switch (item.type) {
      case 'attribute-dropped':
        await emit({
          type: 'request.attribute-dropped',
          data: {
            key: item.key.slice(0, 64),
            value: item.value.slice(0, 80),
            reason: item.reason,
          },
        });
        return false;
      case 'malformed':
        s.counters.malformed += 1;
        await emit({
          type: 'request.malformed',
          data: {
            reason: item.reason,
            lines: item.lines,
            bytes: item.bytes,
            firstLine: item.firstLine.slice(0, 200),
          },
        });
        return true;
      case 'request':
        return handleRequest(item.attributes, item.body);
      default: {
        const never: never = item;
        throw new Error(`unexpected parser event ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * Which per-agent limit (config `limits`) one more request would break:
   * open requests, requests in the last minute, bytes of open bodies.
   */
  function overLimit(
    body: string,
    nowMs: number,
  ):
    | {
        reason: 'pending-requests' | 'requests-per-minute' | 'pending-bytes';
        count: number;
        limit: number;
      }
    | undefined {
    const limits = config.limits;
    while (detections.length > 0 && (detections[0] ?? 0) < nowMs - 60_000)
      detections.shift();
    const open = Object.values(current().requests).filter((r) =>
      isOpenStage(r.stage),
    );
    if (open.length >= limits.maxPendingRequests)
      return {
        reason: 'pending-requests',
        count: open.length + 1,
        limit: limits.maxPendingRequests,
      };
    if (detections.length >= limits.maxRequestsPerMinute)
      return {
        reason: 'requests-per-minute',
        count: detections.length + 1,
        limit: limits.maxRequestsPerMinute,
      };
    const bytes = open.reduce((n, r) => n + r.body.length, body.length);
    if (bytes > limits.maxPendingBytes)
      return {
        reason: 'pending-bytes',
        count: bytes,
        limit: limits.maxPendingBytes,
      };
    return undefined;
  }

  async function handleRequest(
    attributes: Record<string, string>,
    body: string,
  ): Promise<boolean> {
    const s = current();
    const now = new Date();
    const bodyHash = hashBody(body);
    const workerId = attributes.id;
    const pendingHashes = new Set(
      Object.values(s.requests)
        .filter((r) => isOpenStage(r.stage))
        .map((r) => r.bodyHash),
    );
    s.dedup = pruneDedup(s.dedup, now, config.dedupWindowSec);
    const verdict = checkDuplicate(s.dedup, {
      ...(workerId ? { workerId } : {}),
      bodyHash,
      now,
      windowSec: config.dedupWindowSec,
      pendingHashes,
    });
    const candidate = makeRequestId({
      agent,
      ...(workerId ? { workerId } : {}),
      body,
      now,
    });
    if (verdict.duplicate || s.requests[candidate]) {
      s.counters.duplicates += 1;
      await emit({
        type: 'request.duplicate',
        requestId: candidate,
        data: {
          reason: verdict.duplicate ? verdict.reason : 'id',
          ...(workerId ? { workerId } : {}),
        },
      });
      return true;
    }
    // Who asks: the program the pane runs now. A program respawned since the
    // last look asks this (its first words), so the one before is ended first.
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    if (info && !info.dead && panePid !== undefined && info.pid !== panePid)
      await onProgramRestarted(info.pid);
    // A flooding worker: over a limit, the request is recorded, not raised.
    const over = overLimit(body, now.getTime());
    if (over) {
      // Dropped, not remembered: cheap whatever the flood's size (asked again
      // later, under the limit, it is a request like any other).
      if (limitedBurst) return false;
      limitedBurst = true;
      await emit({
        type: 'request.limited',
        requestId: candidate,
        data: {
          ...over,
          firstLine: body.split('\n', 1)[0]?.slice(0, 120) ?? '',
          message: `${agent} asks too much at once (${over.reason}: ${String(over.count)} over the limit of ${String(over.limit)}); this request and the next ones over the limit are recorded, not raised`,
        },
      });
      return false;
    }
    limitedBurst = false;
    detections.push(now.getTime());
    // Unique across agents: another agent's `w-1-r` is not ours.
    const id = await claimRequestId(paths, agent, candidate);
    const priority =
      PRIORITIES.find((p) => p === attributes.priority) ?? 'normal';
    const record: RequestRecord = {
      id,
      agent,
      ...(workerId ? { workerId } : {}),
      type: attributes.type ?? 'question',
      priority,
      attributes,
      bodyHash,
      body,
      stage: 'detected',
      detectedAt: now.toISOString(),
      pane,
      ...(panePid !== undefined ? { panePid } : {}),
      ...(options.session ? { session: options.session } : {}),
      ...(hiddenText.hides(body) ? { concealed: true as const } : {}),
    };
    s.requests[id] = record;
    s.dedup = recordSeen(s.dedup, {
      ...(workerId ? { workerId } : {}),
      bodyHash,
      now,
    });
    s.counters.detected += 1;
    await saveNow();
    await emit({
      type: 'request.detected',
      requestId: id,
      data: {
        type: record.type,
        priority,
        attributes,
        chars: body.length,
        hash: bodyHash.slice(0, 12),
        // For a state rebuilt from events (state/rebuild.ts): the dedup key,
        // and a pane-log offset that is before this request's block.
        bodyHash,
        logOffset: s.logOffset,
      },
    });
    log.info({ agent, requestId: id, chars: body.length }, 'request detected');
    await route(record, { fresh: true });
    return true;
  }

  /**
   * Hand a request to its answerer. `fresh`: it was detected just now (not
   * routed again after a restart), so an answer already waiting for its id
   * was planted before anyone saw the question.
   */
  async function route(
    record: RequestRecord,
    { fresh = false }: { fresh?: boolean } = {},
  ): Promise<void> {
    let routed: SubmitResult | void;
    try {
      routed = await backend.submit({
        id: record.id,
        agent,
        ...(record.workerId ? { workerId: record.workerId } : {}),
        type: record.type,
        priority: record.priority,
        attributes: record.attributes,
        body: record.body,
        ...(record.concealed ? { concealed: true } : {}),
        bodyHash: record.bodyHash,
        detectedAt: record.detectedAt,
        preset: profile.preset,
        // For the context packet, and for a restarted bridge to carry on.
        pane,
        recent: current().recent,
        ...(record.backend ? { previousBackend: record.backend } : {}),
        ...(fresh ? { fresh } : {}),
      });
    } catch (error) {
      await emit({
        type: 'error',
        requestId: record.id,
        data: {
          where: 'route',
          backend: backend.name,
          message: errorMessage(error),
        },
      });
      return;
    }
    if (record.stage === 'detected') {
      record.stage = 'routed';
      record.routedAt = new Date().toISOString();
      record.backend = routed?.backend ?? backend.name;
      // Not urgent: a restart that finds the request still `detected` routes
      // it again, which is idempotent.
      saveLater();
    }
    if (routed?.recorded) return; // the dispatcher recorded where it went
    await emit({
      type: 'request.routed',
      requestId: record.id,
      data: { backend: backend.name },
    });
  }

  // ---- answers and delivery ---------------------------------------------

  async function onAnswer(answer: BackendAnswer): Promise<AnswerVerdict> {
    return serial(async () => {
      // Still starting, its state not read: not taken now (an outbox file
      // stays where it is), as for an agent with no supervisor.
      if (!state) return 'already-answered';
      const s = current();
      const record = s.requests[answer.id];
      if (!record) {
        if (s.recent.some((r) => r.id === answer.id)) {
          // A leftover answer file of a request already archived (a crash between the
          // archive and the clean-up): finish the clean-up.
          await removeRequestFiles(paths, answer.id);
          return 'already-answered';
        }
        return 'unknown-request';
      }
      if (answer.dismiss) return dismiss(record, answer.dismiss);
      if (record.stage !== 'routed' && record.stage !== 'detected')
        return 'already-answered';
      const parsed = splitResponse(answer.text, { noSplit: config.noSplit });
      const now = new Date().toISOString();
      // The tool call behind an outbox answer (macs mcp), else a person's.
      const by = answer.source.startsWith('outbox')
        ? await takeAnswerBy(paths, record.id)
        : undefined;
      record.response = {
        instructions: parsed.instructions,
        notes: parsed.notes,
        source: answer.source,
        ...(by ? { by } : {}),
        receivedAt: now,
        raw: answer.text,
      };
      record.answeredAt = now;
      record.stage = parsed.instructions.trim() ? 'answered' : 'answered-empty';
      const decider =
        record.type === 'approval' ? deciderOf(answer.source, by) : undefined;
      // (A hook's or a screen's approval records its decision once applied.)
      if (decider && isTypedAnswer(record) && record.stage === 'answered') {
        // A worker's own approval request: its answer is typed, and the
        // decision is what its first word says (docs/backends.md).
        const said = parseApprovalAnswer(parsed.instructions);
        record.decision = {
          ...(said.recognized ? { decision: said.decision } : {}),
          decidedBy: decider.decidedBy,
          via: decider.via,
          reason: said.reason,
          at: now,
        };
      }
      await saveNow();
      await emit({
        type:
          record.stage === 'answered'
            ? 'request.answered'
            : 'request.answered-empty',
        requestId: record.id,
        data: {
          source: answer.source,
          ...(by ? { by } : {}),
          ...(decider
            ? { decidedBy: decider.decidedBy, via: decider.via }
            : {}),
          chars: parsed.instructions.length,
          notesChars: parsed.notes.length,
          ...(parsed.notes ? { notes: parsed.notes.slice(0, 2000) } : {}),
        },
      });
      // An approval a hook asked for is answered with a decision file, never typed.
      if (record.origin === 'hook') await hooks.decideApproval(record);
      else if (record.stage === 'answered') scheduleDelivery(record);
      else await finish(record);
      return 'accepted';
    });
  }

  /**
   * Right before typing: is the request still open, and does the pane still
   * run the program that asked it, tagged for this agent? One that is not is
   * ended (endForeign). Not under `serial` (the caller is not).
   */
  async function stillAsked(record: RequestRecord): Promise<boolean> {
    if (current().requests[record.id] !== record || record.stage !== 'answered')
      return false;
    const info = await tmux.paneInfo(pane).catch(() => undefined);
    if (!info || info.dead) return false;
    if (info.agentTag && info.agentTag !== agent) {
      await serial(() =>
        closeUnanswered(
          record,
          'expired',
          `pane ${pane} is now tagged for agent '${info.agentTag}'`,
          'bridge',
        ),
      );
      return false;
    }
    if (info.pid !== panePid) {
      await serial(() => onProgramRestarted(info.pid));
      return false;
    }
    return true;
  }

  /**
   * `macs dismiss`: end a request without an answer, unless typing has
   * begun (then it is too late: it is delivered or reported as usual).
   * Runs under `serial`.
   */
  async function dismiss(
    record: RequestRecord,
    by: { reason: string; by: string },
  ): Promise<AnswerVerdict> {
    if (
      record.stage !== 'detected' &&
      record.stage !== 'routed' &&
      record.stage !== 'answered'
    ) {
      await emit({
        type: 'warning',
        requestId: record.id,
        data: {
          message: `not dismissed: typing its answer had begun (stage ${record.stage})`,
        },
      });
      await rm(path.join(paths.outbox, `${record.id}${DISMISS_SUFFIX}`), {
        force: true,
      });
      return 'already-answered';
    }
    await closeUnanswered(
      record,
      'dismissed',
      by.reason || 'dismissed',
      by.by || 'person',
    );
    return 'accepted';
  }

  function scheduleDelivery(record: RequestRecord): void {
    if (deliveryAborts.has(record.id) || stopped) return;
    const calledOff = new AbortController();
    deliveryAborts.set(record.id, calledOff);
    const task = deliver(record, calledOff.signal).catch(
      async (error: unknown) => {
        log.error({ err: error, requestId: record.id }, 'delivery failed');
        await emit({
          type: 'error',
          requestId: record.id,
          data: { where: 'deliver', message: errorMessage(error) },
        });
      },
    );
    deliveries.add(task);
    void task.finally(() => {
      deliveries.delete(task);
      deliveryAborts.delete(record.id);
    });
  }

  async function deliver(
    record: RequestRecord,
    calledOff: AbortSignal,
  ): Promise<void> {
    // A dialog's decision is keys on a re-checked screen, never text.
    if (isScreenApproval(record)) {
      if (screenApprovals)
        await screenApprovals.apply(
          record,
          AbortSignal.any([abort.signal, calledOff]),
        );
      else
        await serial(() =>
          closeUnanswered(
            record,
            'expired',
            `preset ${profile.preset} describes no dialog to apply this decision to; nothing was pressed`,
            'bridge',
          ),
        );
      return;
    }
    if (record.origin === 'hook') {
      await serial(() => hooks.decideApproval(record));
      return;
    }
    // The agent's Stop hook may have handed this answer over already.
    if (await hooks.deliveredByHook(record)) {
      await serial(() => hooks.markDeliveredByHook(record));
      return;
    }
    const text = record.response?.instructions ?? '';
    let claimedByHook = false;
    const result = await deliverer.deliver({
      pane,
      text,
      rules: profile.rules,
      readState: deliveryState,
      classify: profile.classify,
      // SPEC §6 step 6; a UserPromptSubmit hook (hook-link.ts) confirms too.
      confirm: {
        retries: config.submitRetries,
        confirmed: () => record.stage === 'confirmed',
        // An agent whose hooks work confirms by its UserPromptSubmit hook.
        preferConfirmedMs:
          current().hooks?.status === 'active' ? HOOK_CONFIRM_WAIT_MS : 0,
      },
      isPaused: () => current().paused || pausedByPerson(record.id),
      deliverTimeoutMs: config.deliverTimeoutSec * 1000,
      signal: AbortSignal.any([
        abort.signal,
        hooks.signalFor(record.id),
        calledOff,
      ]),
      onWaitingTooLong: (agentState, waitedMs) =>
        emit({
          type: 'delivery.timeout',
          requestId: record.id,
          data: { state: agentState, waitedMs },
        }),
      beforeType: async () => {
        // The last look before the first keystroke: the pane still runs the
        // program that asked (not respawned, not retagged), and the request
        // is still open (not dismissed meanwhile).
        if (!(await stillAsked(record))) return false;
        // Exclusive claim against the Stop hook: whoever is first delivers.
        if (!(await hooks.claimForTyping(record))) {
          claimedByHook = true;
          return false;
        }
        return serial(async () => {
          // Dismissed or ended while the claim was made: type nothing.
          if (
            current().requests[record.id] !== record ||
            record.stage !== 'answered'
          )
            return false;
          // The event goes first here: a state rebuilt from the event log
          // (state/rebuild.ts) must know that typing may have begun.
          await emit({ type: 'request.delivering', requestId: record.id });
          record.stage = 'delivering';
          record.deliveringAt = new Date().toISOString();
          await saveNow();
          return true;
        });
      },
      afterPaste: () =>
        serial(async () => {
          record.stage = 'pasted';
          record.pastedAt = new Date().toISOString();
          await saveNow();
        }),
      // A restart in `pasted` with this set may find the key pressed already.
      beforeSubmit: () =>
        serial(async () => {
          record.submittingAt = new Date().toISOString();
          await saveNow();
        }),
      // Saved before confirming: a restart then finishes the request rather
      // than type it again.
      // Delivered and archived as soon as the submit key is pressed (a
      // restart then never types it again); the confirmation that follows
      // updates the archived record.
      onSubmitted: (delivery) =>
        serial(async () => {
          // Working until the agent's next hook call says otherwise.
          hooks.noteSubmitted();
          await markDelivered(record, delivery);
          await finish(record);
        }),
    });
    switch (result.type) {
      case 'delivered':
        await serial(async () => {
          await markDelivered(record, result);
          if (result.confirmed === true && record.stage !== 'confirmed') {
            record.stage = 'confirmed';
            record.confirmedAt = new Date().toISOString();
            await emit({
              type: 'request.confirmed',
              requestId: record.id,
              data: { via: result.confirmation, submits: result.submits },
            });
          } else if (
            result.confirmed !== true &&
            record.stage !== 'confirmed'
          ) {
            // Counts as delivered; never typed again. (Not confirmed at all:
            // the pane's program ended before the submit key.)
            record.stage = 'unconfirmed';
            await emit({
              type: 'delivery.unconfirmed',
              requestId: record.id,
              data: {
                submits: result.submits,
                reason:
                  result.confirmed === false
                    ? `no sign that the agent took the text after ${String(result.submits)} press(es) of ${profile.rules.submitKey}; not typed again`
                    : `the program in pane ${pane} ended before the submit key; not typed again`,
              },
            });
          }
          if (current().requests[record.id]) await finish(record);
          else await refinish(record);
        });
        return;
      case 'empty':
        await serial(async () => {
          record.stage = 'answered-empty';
          await saveNow();
          await emit({
            type: 'request.answered-empty',
            requestId: record.id,
            data: { reason: 'nothing left after sanitizing' },
          });
          await finish(record);
        });
        return;
      case 'pane-gone':
        await serial(() => onPaneGoneWhileDelivering(record));
        void notePaneGone().catch(() => undefined);
        return;
      case 'aborted':
        // The Stop hook claimed it first: the agent has it; nothing was typed.
        // (Or the request was ended meanwhile: dismissed, or its agent gone.)
        if (claimedByHook)
          await serial(() => hooks.markDeliveredByHook(record));
        return;
      default: {
        const never: never = result;
        throw new Error(`unexpected delivery result ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * The pane died or went away during a delivery. Nothing typed yet: the
   * answer stays `answered` and goes when the pane runs again (respawned),
   * or through a bridge started on the agent's new pane. Typing had begun:
   * the text went to a program that is gone; it is recorded `unconfirmed`
   * and archived, never typed again (at most once). Runs under `serial`.
   */
  async function onPaneGoneWhileDelivering(
    record: RequestRecord,
  ): Promise<void> {
    if (current().requests[record.id] !== record) return;
    const typing = record.stage === 'delivering' || record.stage === 'pasted';
    await emit({
      type: 'error',
      requestId: record.id,
      data: {
        where: 'deliver',
        paneGone: true,
        stage: typing ? 'unconfirmed' : record.stage,
        message: typing
          ? `pane ${pane} died while this answer was being typed; recorded unconfirmed, not typed again`
          : `pane ${pane} is dead or gone; the answer is kept and delivered when the pane runs again or a bridge supervises the agent's new pane`,
      },
    });
    if (!typing) return;
    await recordUnconfirmed(
      record,
      `pane ${pane} died while this answer was being typed; not re-sent (delivery is at most once)`,
    );
    await finish(record);
  }

  /** Record that the text was typed and submitted (once). Runs under `serial`. */
  async function markDelivered(
    record: RequestRecord,
    delivery: { method: string; chars: number; waitedMs: number },
  ): Promise<void> {
    if (record.deliveredAt !== undefined) return;
    if (record.stage !== 'confirmed') record.stage = 'delivered';
    record.deliveredAt = new Date().toISOString();
    current().counters.delivered += 1;
    await saveNow();
    await emit({
      type: 'request.delivered',
      requestId: record.id,
      data: {
        method: delivery.method,
        chars: delivery.chars,
        waitedMs: delivery.waitedMs,
      },
    });
  }

  /**
   * A finished request's stage changed afterwards (its delivery was
   * confirmed, or not): archive it again and update the recent list. Runs
   * under `serial`.
   */
  async function refinish(record: RequestRecord): Promise<void> {
    const s = current();
    s.recent = s.recent.map((r) =>
      r.id === record.id ? { ...r, stage: record.stage } : r,
    );
    // Only the record changed; the next request may be arriving right now.
    const { body: _body, ...meta } = record;
    await writeFileAtomic(
      path.join(archiveDir(paths, record), `${record.id}.json`),
      `${JSON.stringify(meta, null, 2)}\n`,
    );
    saveLater();
  }

  /** Archive a finished request and drop it from the open set. Runs under `serial`. */
  async function finish(record: RequestRecord): Promise<void> {
    const s = current();
    await archiveRequest(paths, record);
    retireRecord(s, record);
    await saveNow();
    await removeRequestFiles(paths, record.id);
    await emit({
      type: 'request.archived',
      requestId: record.id,
      data: { stage: record.stage },
    });
  }

  /**
   * A bridge killed between the paste and the submit key leaves the answer in
   * the worker's composer: pressing the submit key completes that one
   * delivery. Runs under `serial`.
   */
  async function submitPasted(
    record: RequestRecord,
    method: 'submit-after-restart' | 'typed-before-restart',
  ): Promise<void> {
    try {
      await tmux.sendKey(pane, profile.rules.submitKey);
    } catch (error) {
      await emit({
        type: 'error',
        requestId: record.id,
        data: { where: 'resume', message: errorMessage(error) },
      });
      return;
    }
    await recordResumedDelivery(record, method);
  }

  /** Typing may have begun and cannot be checked: never typed again. */
  async function recordUnconfirmed(
    record: RequestRecord,
    reason: string,
  ): Promise<void> {
    record.stage = 'unconfirmed';
    await saveNow();
    await emit({
      type: 'delivery.unconfirmed',
      requestId: record.id,
      data: { reason },
    });
  }

  /**
   * A delivery a restart completed: by pressing the submit key, or, when the
   * composer showed the key pressed already (`submitted-before-restart`),
   * by pressing nothing.
   */
  async function recordResumedDelivery(
    record: RequestRecord,
    method:
      | 'submit-after-restart'
      | 'typed-before-restart'
      | 'submitted-before-restart',
  ): Promise<void> {
    record.stage = 'delivered';
    record.deliveredAt = new Date().toISOString();
    current().counters.delivered += 1;
    await saveNow();
    await emit({
      type: 'request.delivered',
      requestId: record.id,
      data: { method },
    });
    await finish(record);
  }

  /**
   * The state file could not be read: it was moved aside and the state
   * rebuilt from the event log (state/rebuild.ts). Say so, naming the file.
   */
  async function reportCorrupt(
    loaded: Extract<LoadStateResult, { type: 'corrupt' }>,
  ): Promise<void> {
    const summary = loaded.rebuilt;
    const carried = summary
      ? Object.values(summary.resume).reduce((n, ids) => n + ids.length, 0)
      : 0;
    const message = summary
      ? `state file was unreadable (${loaded.error}); moved to ${loaded.movedTo} and rebuilt from the event log: ${String(carried)} request(s) carried on, ${String(summary.reanswer.length)} answer(s) taken again from their backend, ${String(summary.reread.length)} request(s) read again from the pane log, reading from offset ${String(summary.logOffset)}`
      : `state file was unreadable (${loaded.error}); moved to ${loaded.movedTo}; the event log could not be read (${loaded.rebuildError ?? 'unknown error'}), starting fresh`;
    log.warn({ movedTo: loaded.movedTo }, 'state file rebuilt');
    await emit({
      type: 'warning',
      data: {
        message,
        movedTo: loaded.movedTo,
        error: loaded.error,
        ...(summary ? { rebuilt: summary } : {}),
      },
    });
  }

  /** After a restart: carry every open request on from the stage it was saved in. */
  async function resumeRequests(): Promise<void> {
    const s = current();
    const open = Object.values(s.requests).sort((a, b) =>
      a.detectedAt.localeCompare(b.detectedAt),
    );
    for (const record of open) {
      // Asked in another session, pane or program: never answered here.
      if (isOpenStage(record.stage) && (await endForeign(record))) continue;
      // A dialog's keys may have been pressed before the restart: never
      // pressed again, and nothing is ever typed for it.
      if (
        isScreenApproval(record) &&
        (record.stage === 'delivering' || record.stage === 'pasted')
      ) {
        await recordUnconfirmed(
          record,
          'the bridge stopped while applying this decision to the dialog; its keys are not pressed again',
        );
        await finish(record);
        continue;
      }
      switch (record.stage) {
        case 'detected':
        case 'routed':
          // Re-submitting is idempotent for the file backend and restores missing inbox files.
          await route(record);
          break;
        case 'answered':
          scheduleDelivery(record);
          break;
        case 'pasted':
          // The text is in the worker's composer; only the submit key is
          // missing, unless the bridge died just after pressing it: then
          // the composer tells whether the text is still waiting there.
          if (
            record.submittingAt === undefined ||
            (await composerHolds(
              tmux,
              pane,
              record.response?.instructions ?? '',
            ))
          )
            await submitPasted(record, 'submit-after-restart');
          else await recordResumedDelivery(record, 'submitted-before-restart');
          break;
        case 'delivering':
          // The bridge died while typing. Text waiting in the composer is
          // submitted (the key was never pressed in this stage), so it is
          // not left there to run into the next answer; otherwise it is not
          // typed again: it may or may not have arrived (at most once).
          if (
            await composerHolds(tmux, pane, record.response?.instructions ?? '')
          ) {
            await submitPasted(record, 'typed-before-restart');
            break;
          }
          await recordUnconfirmed(
            record,
            'the bridge stopped while typing this answer; not re-sent (delivery is at most once)',
          );
          await finish(record);
          break;
        case 'answered-empty':
        case 'delivered':
        case 'confirmed':
        case 'unconfirmed':
        case 'expired':
        case 'dismissed':
          await finish(record);
          break;
        default: {
          const never: never = record.stage;
          throw new Error(`unexpected stage ${String(never)}`);
        }
      }
    }
    for (const recent of s.recent) await removeRequestFiles(paths, recent.id);
  }

  return {
    agent,
    snapshot: () => structuredClone(current()),
    onAnswer,
    async start() {
      await ensureHomeDirs(paths);
      releaseLock = await acquireAgentLock(paths, agent);
      let piped = false;
      try {
        const loaded = await loadAgentState(paths, agent, profile.preset);
        state = loaded.state;
        state.pane = pane;
        state.preset = profile.preset;
        // A state rebuilt from the event log resumes like a saved one.
        const resumed =
          loaded.type === 'loaded' ||
          (loaded.type === 'corrupt' && loaded.rebuilt !== undefined);
        if (loaded.type === 'corrupt') await reportCorrupt(loaded);
        // A rotation cut short by a crash: the pane is piped anew below and
        // its screen scanned, so the rest of that file is not needed.
        await rm(`${logFile}.rotated`, { force: true });
        // A log deleted or replaced while the bridge was down is no longer
        // where our pipe writes: open the capture again.
        const before = await stat(logFile).catch(() => undefined);
        const moved =
          before === undefined ||
          (state.logInode !== undefined && state.logInode !== before.ino);
        const newPipe = await ensureCapture(moved);
        piped = newPipe;
        const inode = await stat(logFile).then((i) => i.ino);
        if (state.logInode !== undefined && state.logInode !== inode)
          state.logOffset = 0;
        state.logInode = inode;
        captureInode = inode;
        await openReader(resumed);
        // A new pipe, a new state, or a scan a killed bridge left unfinished.
        const scan = newPipe || !resumed || state.scanPending === true;
        if (scan) state.scanPending = true;
        await serial(async () => {
          await saveNow();
          await emit({
            type: resumed ? 'bridge.resumed' : 'bridge.started',
            data: {
              pane,
              preset: profile.preset,
              offset: current().logOffset,
              logInode: inode,
              open: Object.keys(current().requests).length,
              ...(loaded.type === 'corrupt' ? { rebuilt: resumed } : {}),
            },
          });
          await resumeRequests();
          if (scan) await scanExistingScreen();
        });
        tail = createLogTail({
          file: logFile,
          offset: state.logOffset,
          onEvent: onTail,
          backstopMs: config.backstopMs,
          beforeLeave: () => serial(reopenCapture),
        });
        await tail.start();
        // Deleted before the tail first opened it: the tail waits for a file
        // that our pipe will never write. Open the capture again.
        if ((await stat(logFile).catch(() => undefined))?.ino !== captureInode)
          await serial(reopenCapture);
        await hooks.start();
        schedulePruneRequestIds(
          paths,
          agent,
          () => new Set(Object.keys(current().requests)),
        );
        void readState().catch(() => undefined);
        backstopTimer = setInterval(() => {
          const quiet =
            !lastReadingTimed &&
            (activity.lastOutputAt() ?? 0) < lastStateReadAt;
          const every = quiet ? STATE_QUIET_BACKSTOP_MS : STATE_BACKSTOP_MS;
          if (Date.now() - lastStateReadAt < every) return;
          void readState().catch((error: unknown) =>
            log.warn({ err: error }, 'state read failed'),
          );
        }, STATE_BACKSTOP_MS / 2);
        backstopTimer.unref();
      } catch (error) {
        await tail?.stop().catch(() => undefined);
        await hooks.stop().catch(() => undefined);
        // A pipe this start opened ends with it.
        if (piped)
          await releasePane({ tmux, pane, logFile }).catch(() => undefined);
        await releaseLock();
        releaseLock = undefined;
        throw error;
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      abort.abort();
      clearInterval(backstopTimer);
      clearTimeout(stateTimer);
      clearTimeout(readerSettleTimer);
      await hooks.stop();
      await tail?.stop();
      await Promise.allSettled([...deliveries]);
      await serial(() => {
        reader?.dispose();
        reader = undefined;
        return Promise.resolve();
      });
      // Capture ends with the bridge: what a person types in the pane from
      // now on is not written to the log. A restart pipes the pane again and
      // scans what its screen and history show meanwhile.
      const captureClosed = state
        ? await releasePane({ tmux, pane, logFile }).catch((error: unknown) => {
            log.warn({ err: error }, 'could not close the pane pipe');
            return false;
          })
        : false;
      if (state) {
        await serial(() => saveNow());
        await emit({
          type: 'bridge.stopped',
          data: {
            captureClosed,
            offset: current().logOffset,
            ...(current().logInode !== undefined
              ? { logInode: current().logInode }
              : {}),
          },
        });
      }
      await releaseLock?.();
    },
  };
}
