/**
 * One agent's supervision. Its imports are the rooms a request goes
 * through, in order, one factory each:
 *
 *   intake/     the pane piped into its log, read on a screen → blocks
 *               (and a heuristic question on an idle screen)
 *   requests/   a block (or a hook's or a dialog's approval) → a request
 *               recorded (raise.ts, the ledger's steps), routed → what the
 *               routing gave back (`Routed`); resumed after a restart
 *   route/      (the `backend` given: route/dispatch-backend.ts, created
 *               by runtime.ts for the fleet) the answerers tried in order
 *   answers/    an answer taken once → typed through the typist's phases
 *               (delivery.ts), each recorded; or a decision file; the Stop
 *               hook's hand-overs and prompt confirmations
 *   approvals/  a permission dialog on the screen → an approval (or one a
 *               rule decided, returned); its decision pressed as keys after
 *               a fresh look; a hook's approvals, from its request files
 *   agent/      the agent's state, from screen, activity and hooks → what
 *               each reading found (`Observation`); the hook link → what
 *               each look at the hook files found (`HookSeen`)
 *   usage/      (wired beside it by runtime.ts) what the agent used
 *
 * They share one AgentContext (agent-context.ts): the state in memory, the
 * event log, the queue that orders every change. Every step leaves an event
 * and is saved before the next, so a killed bridge resumes where it stopped.
 */
import { rm, stat } from 'node:fs/promises';
import type {
  AnswerVerdict,
  BackendAnswer,
  ControllerBackend,
} from '../backends/types.js';
import type { AgentError } from '../errors.js';
import type { EventInput } from '../events/types.js';
import { ensureHomeDirs } from '../home/fs.js';
import { createActivityTracker } from '../screen/activity.js';
import { createPauseGate } from '../state/person-controls.js';
import { schedulePruneRequestIds } from '../state/request-ids.js';
import { acquireAgentLock, loadAgentState } from '../state/store.js';
import type { AgentStateFile, RequestRecord } from '../state/types.js';
import type { Deliverer } from '../typist/typist.js';
import {
  createAgentContext,
  type AgentContext,
  type AgentContextOptions,
} from './agent-context.js';
import { createIntakeRoom, type Capture, type Intake } from './intake/index.js';
import {
  corruptStateWarning,
  createRequestsRoom,
  resumeRequests,
  type DetectedBlock,
  type LastAsked,
  type Routed,
} from './requests/index.js';
import { createAnswersRoom } from './answers/index.js';
import {
  createDialogApprovals,
  createHookApprovals,
  dialogApprovalsEnabled,
} from './approvals/index.js';
import { teammateOfDialog } from '../screen/teammate-dialog.js';
import {
  ACTIVITY_QUIET_MS,
  createAgentRoom,
  type HookSeen,
  type Observation,
} from './agent/index.js';
import { hookStageHost } from './hook-link-host.js';

export interface SupervisorOptions extends AgentContextOptions {
  deliverer: Deliverer;
  /** Routes a request to its answerer. */
  backend: ControllerBackend;
  /**
   * Told once when the agent's pane no longer exists (killed, its window
   * closed) while its tmux server runs: a pane id never comes back, so a
   * single-agent bridge stops with this error. `macs bridge --all` leaves it
   * out and follows the agent to a new pane itself (fleet/multi-bridge.ts).
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
  /** The last block its program printed (requests/last-asked.ts). */
  lastAsked(): LastAsked | undefined;
  /**
   * Read the agent's state now: a dead pane is recorded `dead`, a pane gone
   * for good told (onPaneGone). For a fleet of one, whose health loop
   * leaves the pane to its supervisor.
   */
  refresh: () => Promise<void>;
}

export function createSupervisor(options: SupervisorOptions): Supervisor {
  const { agent, pane, profile, paths, config, log } = options;
  const ctx = createAgentContext({
    agent,
    pane,
    profile,
    ...(options.followsProgram ? { followsProgram: true } : {}),
    paths,
    config,
    tmux: options.tmux,
    events: options.events,
    log,
    ...(options.session ? { session: options.session } : {}),
  });
  const { serial } = ctx;
  const activity = createActivityTracker({ quietMs: ACTIVITY_QUIET_MS });
  // A person pauses delivery from `macs status` with a control file (state/person-controls.ts).
  const pausedByPerson = createPauseGate(paths, agent, (requestId) => {
    void ctx.emit({
      type: 'delivery.held',
      requestId,
      data: { reason: 'paused' },
    });
  });
  // Each room returns what happened as a value and the supervisor hands it
  // to the next: a block taken (routed, perhaps answered at once), a
  // request routed, an observation of the pane, a dialog a rule answered,
  // what a look at the hook files found. No room calls back into a room
  // that calls it; the names used before they are created below (`answers`,
  // `delivery`, `hookDeliveries`, `intake`) are this hand-on's, and nothing runs before all are made (docs/architecture.md).
  // A delivery under way is called off through the context (ctx.deliveries).
  const { steps, requests } = createRequestsRoom(ctx, {
    backend: options.backend,
  });
  // A request routed may come back answered at once (an echo of the first
  // message's example): the answers room takes that answer, in its queue,
  // after the task that routed the request.
  const handOn = ({ answered }: Routed): void => {
    if (answered)
      void answers
        .onAnswer(answered)
        .catch((error: unknown) =>
          log.warn(
            { err: error, requestId: answered.id },
            'an answer given at once failed',
          ),
        );
  };
  const route = async (
    record: RequestRecord,
    routeOptions?: { fresh?: boolean },
  ): Promise<void> => {
    handOn(await requests.route(record, routeOptions));
  };
  const onBlock = async (block: DetectedBlock): Promise<boolean> => {
    const taken = await requests.onBlock(block);
    handOn(taken);
    return taken.save;
  };
  // Permission dialogs on the screen: raised as approvals, decided with the
  // preset's keys after a fresh look.
  const dialogApprovals =
    profile.dialog || ctx.followsProgram
      ? createDialogApprovals(ctx, {
          route: (record) => route(record, { fresh: true }),
          steps,
          // A teammate's prompt on a lead's screen has no hook of its own.
          enabled: (reading) =>
            dialogApprovalsEnabled(profile.hooks, ctx.current()) ||
            teammateOfDialog(reading.text) !== undefined,
          isPaused: (record) =>
            ctx.current().paused || pausedByPerson(record.id),
        })
      : undefined;
  // What `macs hook` leaves: the agent's hook link reads it and says what
  // it saw (`HookSeen`); the answers room's hook deliveries (the Stop hook's
  // hand-overs, prompt confirmations) and these hook approvals act on it.
  const hookApprovals = createHookApprovals(
    hookStageHost(ctx, { finish: steps.finish, route }),
  );
  const { hooks, stateReader } = createAgentRoom(ctx, {
    steps,
    activity,
    hookSeen: async (seen: HookSeen) => {
      switch (seen.type) {
        case 'call':
          // Answers a Stop hook claimed: handed over, not typed.
          await hookDeliveries.reconcileClaims();
          return;
        case 'prompt':
          // Typed answers the agent's last accepted prompt came after.
          await hookDeliveries.applyConfirmations(seen.observation);
          return;
        case 'requests':
          // Approvals a hook asks for taken; those it gave up on closed.
          await hookApprovals.pickUp();
          await hookApprovals.expire();
          return;
        default: {
          const never: never = seen;
          throw new Error(`unexpected hook look ${JSON.stringify(never)}`);
        }
      }
    },
    // What a reading of the pane found goes on to the room that takes it.
    observe: async (seen: Observation) => {
      switch (seen.type) {
        case 'size':
          intake.syncSize(seen.info);
          return;
        case 'idle':
          await onIdleScreen(seen.screen);
          return;
        case 'screen': {
          // A dialog a rule answered at once is applied by delivery.
          const ruled = await dialogApprovals?.observe(
            seen.screen,
            seen.state,
            seen.capturedAt,
          );
          if (ruled) delivery.schedule(ruled);
          return;
        }
        default: {
          const never: never = seen;
          throw new Error(`unexpected observation ${JSON.stringify(never)}`);
        }
      }
    },
    ...(options.onPaneGone ? { onPaneGone: options.onPaneGone } : {}),
  });
  const { capture, intake, onIdleScreen } = createIntakeRoom(ctx, {
    activity,
    onBlock,
    afterOutput: stateReader.afterOutput,
    notePaneGone: stateReader.notePaneGone,
  });
  const { answers, delivery, hookDeliveries } = createAnswersRoom(ctx, {
    steps,
    deliverer: options.deliverer,
    hooks: {
      noteSubmitted: hooks.noteSubmitted,
      decideApproval: hookApprovals.decide,
    },
    ...(dialogApprovals ? { applyDialog: dialogApprovals.apply } : {}),
    deliveryState: stateReader.deliveryState,
    isPaused: pausedByPerson,
    notePaneGone: stateReader.notePaneGone,
  });
  let releaseLock: (() => Promise<void>) | undefined;
  return {
    agent,
    snapshot: () => structuredClone(ctx.current()),
    lastAsked: () => requests.lastAsked(),
    onAnswer: answers.onAnswer,
    refresh: async () => {
      if (ctx.hasState() && !ctx.stopped) await stateReader.readState();
    },
    async start() {
      await ensureHomeDirs(paths);
      releaseLock = await acquireAgentLock(paths, agent);
      let piped = false;
      try {
        const begun = await begin(ctx, { capture, intake });
        piped = begun.newPipe;
        await serial(async () => {
          await ctx.saveNow();
          await ctx.emit(begun.started);
          const answered = await resumeRequests(ctx, { steps, route });
          for (const record of answered) delivery.schedule(record);
          if (ctx.current().scanPending) await intake.scanHistory();
        });
        await intake.startTail(ctx.current().logOffset);
        // Deleted before the tail first opened it: the tail waits for a file
        // that our pipe will never write. Open the capture again.
        if (
          (await stat(capture.logFile).catch(() => undefined))?.ino !==
          capture.inode
        )
          await serial(() => capture.reopen());
        await hooks.start();
        schedulePruneRequestIds(
          paths,
          agent,
          () => new Set(Object.keys(ctx.current().requests)),
        );
        stateReader.start();
      } catch (error) {
        await intake.stop().catch(() => undefined);
        await hooks.stop().catch(() => undefined);
        // A pipe this start opened ends with it.
        if (piped) await capture.release().catch(() => undefined);
        await releaseLock();
        releaseLock = undefined;
        throw error;
      }
    },
    async stop() {
      if (ctx.stopped) return;
      ctx.markStopped();
      stateReader.stop();
      const intakeStopped = intake.stop();
      await hooks.stop();
      await intakeStopped;
      await delivery.settle();
      await serial(() => Promise.resolve(intake.dispose()));
      // Capture ends with the bridge: what a person types in the pane from
      // now on is not written to the log. A restart pipes the pane again and
      // scans what its screen and history show meanwhile.
      const captureClosed = ctx.hasState()
        ? await capture.release().catch((error: unknown) => {
            log.warn({ err: error }, 'could not close the pane pipe');
            return false;
          })
        : false;
      if (ctx.hasState()) {
        await serial(() => ctx.saveNow());
        await ctx.emit({
          type: 'bridge.stopped',
          data: {
            captureClosed,
            offset: ctx.current().logOffset,
            ...(ctx.current().logInode !== undefined
              ? { logInode: ctx.current().logInode }
              : {}),
          },
        });
      }
      await releaseLock?.();
    },
  };
}

/**
 * Load the state (or rebuild it), pipe the pane and open the reader; the
 * caller says the bridge started (`started`, the event), resumes the open
 * requests and scans the pane's history when it must. `newPipe`: the pane
 * was piped now (a failed start closes that pipe).
 */
async function begin(
  ctx: AgentContext,
  {
    capture,
    intake,
  }: {
    capture: Capture;
    intake: Intake;
  },
): Promise<{ newPipe: boolean; started: Omit<EventInput, 'agent'> }> {
  const { agent, pane, paths, profile, log } = ctx;
  const logFile = capture.logFile;
  const loaded = await loadAgentState(paths, agent, profile.preset);
  const state = loaded.state;
  ctx.setState(state);
  state.pane = pane;
  state.preset = profile.preset;
  // A state rebuilt from the event log resumes like a saved one.
  const resumed =
    loaded.type === 'loaded' ||
    (loaded.type === 'corrupt' && loaded.rebuilt !== undefined);
  if (loaded.type === 'corrupt') {
    log.warn({ movedTo: loaded.movedTo }, 'state file rebuilt');
    const { message, data } = corruptStateWarning(loaded);
    await ctx.emit({ type: 'warning', data: { message, ...data } });
  }
  // A rotation cut short by a crash: the pane is piped anew below and its
  // screen scanned, so the rest of that file is not needed.
  await rm(`${logFile}.rotated`, { force: true });
  // A log deleted or replaced while the bridge was down is no longer where
  // our pipe writes: open the capture again.
  const before = await stat(logFile).catch(() => undefined);
  const moved =
    before === undefined ||
    (state.logInode !== undefined && state.logInode !== before.ino);
  const newPipe = await capture.ensure(moved);
  const inode = await stat(logFile).then((i) => i.ino);
  if (state.logInode !== undefined && state.logInode !== inode)
    state.logOffset = 0;
  state.logInode = inode;
  capture.setInode(inode);
  await intake.openReader(resumed);
  // A new pipe, a new state, or a scan a killed bridge left unfinished.
  if (newPipe || !resumed || state.scanPending === true)
    state.scanPending = true;
  return {
    newPipe,
    started: {
      type: resumed ? 'bridge.resumed' : 'bridge.started',
      data: {
        pane,
        preset: profile.preset,
        offset: state.logOffset,
        logInode: inode,
        open: Object.keys(state.requests).length,
        ...(loaded.type === 'corrupt' ? { rebuilt: resumed } : {}),
      },
    },
  };
}
