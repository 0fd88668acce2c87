import { setTimeout as delay } from 'node:timers/promises';
import type {
  AnswerHandler,
  BackendAnswer,
  ControllerBackend,
} from '../backends/types.js';
import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { emitSafely, type EventSink } from '../events/log.js';
import type { EventInput } from '../events/types.js';
import type { Logger } from '../log/logger.js';
import type { HomePaths } from '../home/paths.js';
import {
  acquireAgentLock,
  loadAgentState,
  saveAgentState,
} from '../state/store.js';
import type { AgentStateFile, AgentStateName } from '../state/types.js';
import {
  PaneNotFoundError,
  type PaneInfo,
  type TmuxClient,
} from '../tmux/client.js';
import { readPaneExit } from '../tmux/pane-exit.js';
import { lastScreenLines } from '../screen/classify.js';
import { endRequestsInState, isUntyped } from './close.js';
import type { Deliverer } from './deliver.js';
import {
  createSupervisor,
  type AgentProfile,
  type Supervisor,
} from './supervisor.js';

/** How often every pane is looked at (deaths, revivals, the controller's state). */
export const HEALTH_POLL_MS = 500;
/**
 * …and this often once every agent runs and none waits for its first
 * message: an idle fleet costs next to nothing. A death is still seen, by
 * this check or by the agent's own state reading, and every delivery checks
 * its pane right before typing whatever this check last saw.
 */
export const QUIET_HEALTH_POLL_MS = 2_000;
/** A failed start is retried after this, doubling up to the maximum. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;
/**
 * Agents started at once: a start mostly waits on tmux and the disk, so a
 * fleet starts in about the time of its slowest few, not one after another.
 */
const START_CONCURRENCY = 16;
/** New `@macs_agent` panes are looked for this often. */
const DISCOVERY_POLL_MS = 5000;
/** The first message waits until the screen has not changed for this long… */
const SETTLE_MS = 1000;
/** …but not longer than this (then the deliverer's own idle wait decides). */
const SETTLE_MAX_MS = 20_000;
const SETTLE_POLL_MS = 200;
/** A dead pane's exit status is read this many times, this far apart. */

/** A message typed into a worker once, when it first comes up (prompts/worker.md). */
export interface FirstMessageSpec {
  text: string;
  /** Body hashes of example request blocks in the text (their echo is not a request). */
  exampleHashes: ReadonlySet<string>;
  /** Already delivered in an earlier run of the bridge. */
  sent: boolean;
}

export interface MultiAgent {
  name: string;
  role: 'worker' | 'controller';
  profile: AgentProfile;
  firstMessage?: FirstMessageSpec;
}

/** The shared backend: one for every agent, answers dispatched by agent name. */
export interface SharedBackend extends ControllerBackend {
  register(agent: string, onAnswer: AnswerHandler): void;
}

export interface MultiBridgeOptions {
  agents: readonly MultiAgent[];
  paths: HomePaths;
  config: MacsConfig;
  tmux: TmuxClient;
  events: EventSink;
  log: Logger;
  backend: SharedBackend;
  deliverer: Deliverer;
  /**
   * Find an agent's pane (pane discovery, SPEC §5); throws when there is
   * none or several. With `ownPaneOnly`, only the agent's pin and
   * `@macs_agent` tag count: an agent that died is never followed to a pane
   * found by its title or program, which runs another program.
   */
  resolvePane: (
    agent: MultiAgent,
    options?: { ownPaneOnly?: boolean },
  ) => Promise<string>;
  /** The `macs start` session these agents belong to (`.macs/session.json`). */
  session?: string;
  /** Agents that appeared since (panes newly tagged `@macs_agent`). */
  findNewAgents?: (known: ReadonlySet<string>) => Promise<MultiAgent[]>;
  /** A line for the person running the bridge (stderr). */
  onNotice: (line: string) => void;
  /** The first message reached the agent (record it, so it is never sent twice). */
  onPrompted?: (agent: string) => Promise<void>;
  healthPollMs?: number;
}

export type SlotStatus = 'waiting' | 'running' | 'dead';

export interface MultiBridge {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Each agent's supervision, for the start-up message and tests. */
  snapshot(): {
    agent: string;
    status: SlotStatus;
    pane?: string;
    problem?: string;
  }[];
}

interface Slot {
  agent: MultiAgent;
  status: SlotStatus;
  pane?: string;
  supervisor?: Supervisor;
  /** The agent's state lock, while this process writes its state itself (dead, controller). */
  lock?: () => Promise<void>;
  controllerState?: AgentStateFile;
  nextTry: number;
  backoffMs: number;
  problem?: string;
  prompting: boolean;
  /** The pid of the program in the pane when supervision began (`#{pane_pid}`). */
  pid?: number;
  /** Said once per death that the agent waits for a pane of its own. */
  waitNoted?: boolean;
}

function exitWords(exit: { exitCode?: number; exitSignal?: number }): string {
  if (exit.exitSignal !== undefined)
    return `was killed by signal ${exit.exitSignal}`;
  if (exit.exitCode !== undefined) return `exited with status ${exit.exitCode}`;
  return 'is gone';
}

/**
 * `macs bridge --all`: one process supervising every agent of a session.
 * Each worker gets its own supervisor; they share one backend and one
 * deliverer. A health loop watches every pane: an agent whose program ends
 * is marked `dead` with its exit status, one that comes back (respawned) is
 * supervised again, and a supervisor that cannot start (no pane found, a
 * lock held elsewhere) is reported and retried with backoff. Whatever goes
 * wrong with one agent is reported (an `error` event and a line on stderr)
 * and never stops the others.
 */
export function createMultiBridge(options: MultiBridgeOptions): MultiBridge {
  const { paths, config, tmux, events, log, backend, deliverer } = options;
  const slots = new Map<string, Slot>();
  const abort = new AbortController();
  const pollMs = options.healthPollMs ?? HEALTH_POLL_MS;
  const quietPollMs = options.healthPollMs ?? QUIET_HEALTH_POLL_MS;
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let nextDiscovery = Date.now() + DISCOVERY_POLL_MS;
  let stopped = false;
  let tmuxProblem: string | undefined;

  async function emit(input: EventInput): Promise<void> {
    await emitSafely(events, log, input);
  }

  /** Report a problem with one agent once (until it changes or clears). */
  async function problem(
    slot: Slot,
    where: string,
    error: unknown,
  ): Promise<void> {
    const message = errorMessage(error);
    const waitS = Math.round(slot.backoffMs / 1000);
    slot.nextTry = Date.now() + slot.backoffMs;
    slot.backoffMs = Math.min(slot.backoffMs * 2, RETRY_MAX_MS);
    if (slot.problem === message) return;
    slot.problem = message;
    log.warn(
      { agent: slot.agent.name, where, err: error },
      'agent supervision problem',
    );
    options.onNotice(
      `macs bridge: ${slot.agent.name}: ${message} (trying again in ${waitS}s; the other agents carry on)`,
    );
    await emit({
      agent: slot.agent.name,
      type: 'error',
      data: { where, message, retryInMs: waitS * 1000 },
    });
  }

  function recovered(slot: Slot): void {
    slot.backoffMs = RETRY_FIRST_MS;
    if (slot.problem === undefined) return;
    slot.problem = undefined;
    options.onNotice(
      `macs bridge: ${slot.agent.name}: supervised again (pane ${slot.pane ?? '?'})`,
    );
  }

  async function readPaneState(
    pane: string,
    profile: AgentProfile,
  ): Promise<AgentStateName> {
    try {
      const info = await tmux.paneInfo(pane);
      if (info.dead) return 'dead';
      return profile.classify(await tmux.capturePane(pane));
    } catch (error) {
      if (error instanceof PaneNotFoundError) return 'dead';
      throw error;
    }
  }

  /**
   * The backend as one worker's supervisor sees it. An echo of an example
   * request from the worker's first message (agents show what they were
   * sent) is closed at once, without asking the controller.
   */
  function backendFor(slot: Slot): ControllerBackend {
    return {
      name: backend.name,
      async submit(request) {
        if (!slot.agent.firstMessage?.exampleHashes.has(request.bodyHash))
          return backend.submit(request);
        await emit({
          agent: slot.agent.name,
          type: 'warning',
          requestId: request.id,
          data: {
            message:
              'the worker showed the example request of its first message (prompts/worker.md); closed without asking the controller',
          },
        });
        const supervisor = slot.supervisor;
        // After this submit returns: the supervisor records `routed` first.
        setImmediate(() => {
          void supervisor
            ?.onAnswer({
              id: request.id,
              text: '',
              source: 'macs:protocol-example',
            })
            .catch((error: unknown) =>
              log.warn({ err: error }, 'closing an example echo failed'),
            );
        });
      },
      rescan: () => backend.rescan(),
      stop: () => Promise.resolve(),
    };
  }

  /**
   * Answers for an agent go to its current supervisor; a dead agent's wait
   * in outbox/ (a supervisor started later, the agent back, takes them or
   * ends them). A dismissal of a dead agent's request is done here: this
   * process holds the agent's lock.
   */
  function answerHandler(slot: Slot): AnswerHandler {
    return async (answer: BackendAnswer) => {
      if (slot.supervisor) return slot.supervisor.onAnswer(answer);
      const dismissal = answer.dismiss;
      if (!dismissal) return 'already-answered';
      slot.lock ??= await acquireAgentLock(paths, slot.agent.name);
      const { state } = await loadAgentState(
        paths,
        slot.agent.name,
        slot.agent.profile.preset,
      );
      const ended = await endRequestsInState(state, {
        paths,
        events,
        log,
        select: (r) => r.id === answer.id && isUntyped(r),
        stage: 'dismissed',
        reason: () => dismissal.reason || 'dismissed',
        by: dismissal.by || 'person',
      });
      return ended.length > 0 ? 'accepted' : 'unknown-request';
    };
  }

  async function saveOwnState(
    slot: Slot,
    change: (s: AgentStateFile) => void,
  ): Promise<AgentStateFile> {
    slot.lock ??= await acquireAgentLock(paths, slot.agent.name);
    const state =
      slot.controllerState ??
      (await loadAgentState(paths, slot.agent.name, slot.agent.profile.preset))
        .state;
    change(state);
    await saveAgentState(paths, state);
    return state;
  }

  async function begin(slot: Slot, resolved?: string): Promise<void> {
    const { agent } = slot;
    const pane = resolved ?? (await options.resolvePane(agent));
    slot.pane = pane;
    slot.pid = (await tmux.paneInfo(pane)).pid;
    if (agent.role === 'worker') {
      const supervisor = createSupervisor({
        agent: agent.name,
        pane,
        profile: agent.profile,
        paths,
        config,
        tmux,
        events,
        log: log.child({ agent: agent.name }),
        deliverer,
        backend: backendFor(slot),
        ...(options.session ? { session: options.session } : {}),
      });
      // Answers are taken from the moment it starts: requests it finds on
      // the screen while starting are routed at once, and a quick answerer
      // may reply before start() returns.
      slot.supervisor = supervisor;
      try {
        await supervisor.start();
      } catch (error) {
        slot.supervisor = undefined;
        throw error;
      }
    } else {
      slot.controllerState = undefined;
      slot.controllerState = await saveOwnState(slot, (s) => {
        s.pane = pane;
        s.preset = agent.profile.preset;
      });
      await emit({
        agent: agent.name,
        type: 'bridge.started',
        data: { pane, preset: agent.profile.preset, role: 'controller' },
      });
    }
    slot.status = 'running';
    recovered(slot);
  }

  async function markDead(
    slot: Slot,
    info: PaneInfo | undefined,
  ): Promise<void> {
    const pane = slot.pane ?? '?';
    const exit = info ? await readPaneExit(tmux, pane) : {};
    const lastLines = info
      ? lastScreenLines(await tmux.capturePane(pane).catch(() => ''))
      : [];
    const { exitCode } = exit;
    const supervisor = slot.supervisor;
    slot.supervisor = undefined;
    if (supervisor)
      await supervisor
        .stop()
        .catch((error: unknown) =>
          log.warn({ err: error }, 'supervisor stop failed'),
        );
    let from = 'unknown' as AgentStateName;
    const state = await saveOwnState(slot, (s) => {
      from = s.state;
      s.state = 'dead';
      s.stateSource = 'pane';
      s.stateSince = new Date().toISOString();
      s.pane = pane;
      delete s.exitCode;
      delete s.exitSignal;
      delete s.lastLines;
      if (exitCode !== undefined) s.exitCode = exitCode;
      if (exit.exitSignal !== undefined) s.exitSignal = exit.exitSignal;
      if (lastLines.length > 0) s.lastLines = lastLines;
    });
    if (slot.agent.role === 'controller') slot.controllerState = state;
    const data = {
      pane,
      ...(exitCode !== undefined ? { exitCode } : {}),
      ...(exit.exitSignal !== undefined ? { exitSignal: exit.exitSignal } : {}),
      ...(info ? {} : { paneGone: true }),
      ...(lastLines.length > 0 ? { lastLines } : {}),
    };
    if (from !== 'dead')
      await emit({
        agent: slot.agent.name,
        type: 'state.changed',
        data: { from, to: 'dead', source: 'pane', ...data },
      });
    await emit({ agent: slot.agent.name, type: 'agent.exited', data });
    options.onNotice(
      `macs bridge: ${slot.agent.name} ${exitWords(exit)} (pane ${pane}); the other agents carry on`,
    );
    slot.status = 'dead';
    slot.nextTry = Date.now() + slot.backoffMs;
  }

  /** A dead agent's pane runs again (respawn-pane), or another pane was found for it. */
  async function revive(slot: Slot): Promise<void> {
    await saveOwnState(slot, (s) => {
      delete s.exitCode;
      delete s.exitSignal;
      delete s.lastLines;
      s.state = 'unknown';
      s.stateSource = 'pane';
      s.stateSince = new Date().toISOString();
    });
    if (slot.agent.role === 'worker') {
      const release = slot.lock;
      slot.lock = undefined;
      await release?.();
    }
    slot.status = 'waiting';
    slot.nextTry = 0;
    slot.waitNoted = false;
    // A new program: it has not been told the worker protocol.
    if (slot.agent.firstMessage) slot.agent.firstMessage.sent = false;
    await emit({
      agent: slot.agent.name,
      type: 'state.changed',
      data: { from: 'dead', to: 'unknown', source: 'pane', pane: slot.pane },
    });
    await begin(slot);
  }

  async function watchController(slot: Slot, pane: string): Promise<void> {
    const next = await readPaneState(pane, slot.agent.profile);
    const state = slot.controllerState;
    if (!state || state.state === next) return;
    const from = state.state;
    await saveOwnState(slot, (s) => {
      s.state = next;
      s.stateSource = 'screen';
      s.stateSince = new Date().toISOString();
    });
    await emit({
      agent: slot.agent.name,
      type: 'state.changed',
      data: { from, to: next, source: 'screen' },
    });
  }

  /** Wait until the screen shows something and has stopped changing. */
  async function waitSettled(pane: string): Promise<void> {
    const until = Date.now() + SETTLE_MAX_MS;
    let last = '';
    let since = Date.now();
    while (Date.now() < until) {
      const screen = await tmux.capturePane(pane);
      if (screen !== last) {
        last = screen;
        since = Date.now();
      } else if (screen.trim() && Date.now() - since >= SETTLE_MS) return;
      await delay(SETTLE_POLL_MS, undefined, { signal: abort.signal });
    }
  }

  async function sendFirstMessage(slot: Slot, pane: string): Promise<void> {
    const message = slot.agent.firstMessage;
    if (!message) return;
    await waitSettled(pane);
    const result = await deliverer.deliver({
      pane,
      text: message.text,
      rules: slot.agent.profile.rules,
      readState: () => readPaneState(pane, slot.agent.profile),
      deliverTimeoutMs: config.deliverTimeoutSec * 1000,
      signal: abort.signal,
      onWaitingTooLong: (state, waitedMs) =>
        emit({
          agent: slot.agent.name,
          type: 'delivery.timeout',
          data: { what: 'first message', state, waitedMs },
        }),
    });
    if (result.type !== 'delivered' && result.type !== 'empty') return;
    message.sent = true;
    await emit({
      agent: slot.agent.name,
      type: 'agent.prompted',
      data: {
        pane,
        chars: message.text.length,
        ...(result.type === 'delivered' ? { method: result.method } : {}),
      },
    });
    await options.onPrompted?.(slot.agent.name);
  }

  function maybePrompt(slot: Slot): void {
    const message = slot.agent.firstMessage;
    const pane = slot.pane;
    if (!message || message.sent || slot.prompting || !pane) return;
    slot.prompting = true;
    void sendFirstMessage(slot, pane)
      .catch(async (error: unknown) => {
        if (abort.signal.aborted) return;
        message.sent = true; // reported, not retried forever
        await problem(slot, 'first-message', error);
      })
      .finally(() => {
        slot.prompting = false;
      });
  }

  async function step(
    slot: Slot,
    panes: ReadonlyMap<string, PaneInfo>,
  ): Promise<void> {
    switch (slot.status) {
      case 'waiting':
        if (Date.now() >= slot.nextTry) await begin(slot);
        return;
      case 'running': {
        const info = slot.pane ? panes.get(slot.pane) : undefined;
        if (!info || info.dead) {
          await markDead(slot, info);
          return;
        }
        if (slot.pid !== undefined && info.pid !== slot.pid) {
          // Another program in the pane (`macs restart`): it has not been
          // told the worker protocol (its supervisor ends the old program's
          // requests itself).
          slot.pid = info.pid;
          if (slot.agent.firstMessage) slot.agent.firstMessage.sent = false;
        }
        if (slot.agent.role === 'controller')
          await watchController(slot, info.id);
        // A worker's protocol, or an MCP controller's tools (docs/mcp.md).
        maybePrompt(slot);
        return;
      }
      case 'dead': {
        const info = slot.pane ? panes.get(slot.pane) : undefined;
        if (info && !info.dead) {
          await revive(slot);
          return;
        }
        if (!info && Date.now() >= slot.nextTry) {
          // The pane is gone: a pane tagged for the agent may appear (macs
          // restart, or a person tagging one). Never one found by title or
          // program: that is another program, which asked nothing.
          slot.nextTry = Date.now() + slot.backoffMs;
          const pane = await options
            .resolvePane(slot.agent, { ownPaneOnly: true })
            .catch(() => undefined);
          const found = pane ? panes.get(pane) : undefined;
          if (pane && found && !found.dead) {
            slot.pane = pane;
            await revive(slot);
          } else if (!slot.waitNoted) {
            slot.waitNoted = true;
            await emit({
              agent: slot.agent.name,
              type: 'warning',
              data: {
                message: `pane ${slot.pane ?? '?'} is gone; ${slot.agent.name} stays dead until a pane tagged @macs_agent=${slot.agent.name} appears (macs restart ${slot.agent.name}); no other pane is taken for it`,
                waitingForOwnPane: true,
              },
            });
          }
        }
        return;
      }
      default: {
        const never: never = slot.status;
        throw new Error(`unexpected slot status ${String(never)}`);
      }
    }
  }

  function addSlot(agent: MultiAgent): Slot {
    const slot: Slot = {
      agent,
      status: 'waiting',
      nextTry: 0,
      backoffMs: RETRY_FIRST_MS,
      prompting: false,
    };
    slots.set(agent.name, slot);
    if (agent.role === 'worker')
      backend.register(agent.name, answerHandler(slot));
    return slot;
  }

  async function tick(): Promise<void> {
    let panes: Map<string, PaneInfo>;
    try {
      panes = new Map((await tmux.listPanes()).map((p) => [p.id, p]));
      if (tmuxProblem) options.onNotice('macs bridge: tmux answers again');
      tmuxProblem = undefined;
    } catch (error) {
      const message = errorMessage(error);
      if (tmuxProblem !== message) {
        tmuxProblem = message;
        options.onNotice(`macs bridge: cannot list panes: ${message}`);
        await emit({
          agent: 'bridge',
          type: 'error',
          data: { where: 'tmux', message },
        });
      }
      return;
    }
    if (options.findNewAgents && Date.now() >= nextDiscovery) {
      nextDiscovery = Date.now() + DISCOVERY_POLL_MS;
      try {
        for (const agent of await options.findNewAgents(
          new Set(slots.keys()),
        )) {
          if (slots.has(agent.name)) continue;
          addSlot(agent);
          options.onNotice(`macs bridge: found a new agent, ${agent.name}`);
        }
      } catch (error) {
        log.warn({ err: error }, 'looking for new agents failed');
      }
    }
    const due = [...slots.values()].filter(
      (slot) => slot.status === 'waiting' && Date.now() >= slot.nextTry,
    );
    await startSeveral(due);
    for (const slot of slots.values()) {
      if (stopped) return;
      if (due.includes(slot)) continue;
      await guarded(slot, () => step(slot, panes));
    }
  }

  /** A step that fails is reported on its agent, never on the others. */
  async function guarded(slot: Slot, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (
        slot.status === 'running' &&
        !slot.supervisor &&
        slot.agent.role === 'worker'
      )
        slot.status = 'waiting';
      if (slot.status === 'waiting' || slot.status === 'dead')
        await problem(slot, 'supervise', error);
      else await problem(slot, 'watch', error);
    }
  }

  /**
   * Start the agents due, several at once. Their panes are found one after
   * another first, and two agents never start on the same pane together:
   * the second waits until the first has claimed it (then its own start
   * refuses the pane, or finds another).
   */
  async function startSeveral(due: Slot[]): Promise<void> {
    const ready: { slot: Slot; pane: string }[] = [];
    const later: Slot[] = [];
    const taken = new Set<string>();
    for (const slot of due) {
      if (stopped) return;
      await guarded(slot, async () => {
        const pane = await options.resolvePane(slot.agent);
        if (taken.has(pane)) later.push(slot);
        else {
          taken.add(pane);
          ready.push({ slot, pane });
        }
      });
    }
    let next = 0;
    const lane = async (): Promise<void> => {
      while (!stopped && next < ready.length) {
        const item = ready[next++];
        if (item) await guarded(item.slot, () => begin(item.slot, item.pane));
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(START_CONCURRENCY, ready.length) }, lane),
    );
    for (const slot of later) {
      if (stopped) return;
      await guarded(slot, () => begin(slot));
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(
      () => {
        ticking = tick()
          .catch((error: unknown) =>
            log.error({ err: error }, 'health check failed'),
          )
          .finally(() => {
            ticking = undefined;
            schedule();
          });
      },
      settled() ? quietPollMs : pollMs,
    );
  }

  /**
   * No agent is waiting to be supervised or for its first message (a dead
   * one waits for its pane to run again: seen within the quiet interval).
   */
  function settled(): boolean {
    for (const slot of slots.values()) {
      if (slot.status === 'waiting' || slot.prompting) return false;
      const message = slot.agent.firstMessage;
      if (message && !message.sent) return false;
    }
    return true;
  }

  // A bug in one agent's supervision must not end the process for all.
  const onRejection = (reason: unknown) => {
    log.error({ err: reason }, 'unhandled rejection in the bridge');
    options.onNotice(
      `macs bridge: internal error (kept running): ${errorMessage(reason)}`,
    );
    void emit({
      agent: 'bridge',
      type: 'error',
      data: { where: 'bridge', message: errorMessage(reason) },
    });
  };

  return {
    async start() {
      process.on('unhandledRejection', onRejection);
      for (const agent of options.agents) addSlot(agent);
      await tick();
      schedule();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      abort.abort();
      if (timer) clearTimeout(timer);
      await ticking;
      await Promise.allSettled(
        [...slots.values()].map(async (slot) => {
          await slot.supervisor?.stop();
          slot.supervisor = undefined;
          if (slot.controllerState) {
            await saveAgentState(paths, slot.controllerState);
            await emit({
              agent: slot.agent.name,
              type: 'bridge.stopped',
              data: { role: 'controller' },
            });
          }
          await slot.lock?.();
          slot.lock = undefined;
        }),
      );
      process.off('unhandledRejection', onRejection);
    },
    snapshot() {
      return [...slots.values()].map((slot) => ({
        agent: slot.agent.name,
        status: slot.status,
        ...(slot.pane ? { pane: slot.pane } : {}),
        ...(slot.problem ? { problem: slot.problem } : {}),
      }));
    },
  };
}
