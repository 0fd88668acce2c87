/**
 * One bridge for a fleet of agents: `macs bridge --all` supervises every
 * agent of a session from this process, and `macs bridge --worker-pane` is a
 * fleet of one (`single`). Each agent has its slot (agent-slot.ts); they
 * share one backend and one deliverer. A health loop watches every pane:
 * an agent whose program ends is marked `dead`, one that comes back is
 * supervised again, one that cannot start is retried with backoff, new
 * agents of the session are taken on, and each gets its first message
 * (prompt-once.ts) once.
 */
import { errorMessage, type AgentError } from '../../errors.js';
import { emitSafely } from '../../events/log.js';
import type { EventInput } from '../../events/types.js';
import { readTeammates, shownTeammateName } from '../../state/teammates.js';
import type { PaneInfo } from '../../tmux/client.js';
import { createSlotLife, newSlot, type FleetParts } from './agent-slot.js';
import type { MultiAgent, Roster, Slot, SlotStatus } from './types.js';
import { newProgramSeen, openRequestOf, promptOnce } from './prompt-once.js';
import { answerHandler } from './slot-backend.js';

/** How often every pane is looked at (deaths, revivals, the controller's state). */
export const HEALTH_POLL_MS = 500;
/**
 * …and this often once every agent runs and none waits for its first
 * message: an idle fleet costs next to nothing. A death is still seen, by
 * this check or by the agent's own state reading, and every delivery checks
 * its pane right before typing whatever this check last saw.
 */
export const QUIET_HEALTH_POLL_MS = 2_000;
/**
 * Agents started at once: a start mostly waits on tmux and the disk, so a
 * fleet starts in about the time of its slowest few, not one after another.
 */
const START_CONCURRENCY = 16;
/** New `@macs_agent` panes are looked for this often. */
const DISCOVERY_POLL_MS = 5000;

export interface MultiBridgeOptions extends FleetParts {
  agents: readonly MultiAgent[];
  resolvePane: Roster['resolvePane'];
  findNewAgents?: Roster['findNewAgents'];
  /** A line for the person running the bridge (stderr). */
  onNotice: (line: string) => void;
  onPrompted?: Roster['onPrompted'];
  healthPollMs?: number;
  /**
   * A fleet of one (`macs bridge --worker-pane`): start() throws when an
   * agent cannot be supervised (its pane claimed by another bridge, its lock
   * held) instead of retrying; the health loop leaves a running agent to its
   * supervisor (which reads `dead` itself and carries on when the pane runs
   * again); and a pane gone for good is told here, never followed.
   */
  single?: { onPaneGone: (error: AgentError) => void };
}

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

/**
 * The fleet's bridge (see the module comment). Whatever goes wrong with one
 * agent is reported (an `error` event and a line on stderr) and never stops
 * the others.
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
  const life = createSlotLife({
    paths,
    config,
    tmux,
    events,
    log,
    backend,
    deliverer,
    ...(options.session ? { session: options.session } : {}),
    resolvePane: options.resolvePane,
    onNotice: options.onNotice,
    ...(options.single ? { onPaneGone: options.single.onPaneGone } : {}),
    emit,
  });
  const { problem, begin, markDead, revive } = life;

  // A worker's protocol, or an MCP controller's tools (docs/mcp.md), once.
  const maybePrompt = (slot: Slot): void =>
    promptOnce(slot, {
      tmux,
      deliverer,
      config,
      signal: abort.signal,
      readState: (pane) => life.readPaneState(pane, slot.agent.profile),
      openRequest: () => openRequestOf(slot),
      emit,
      onPrompted: options.onPrompted,
      onProblem: (error) => problem(slot, 'first-message', error),
    });

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
        if (options.single) {
          // A fleet of one leaves its pane to the supervisor, which records
          // the death itself and stops the bridge when the pane is gone:
          // it is only told to look now rather than at its next reading.
          const down = !info || info.dead;
          if (down && !slot.downSeen) await slot.supervisor?.refresh();
          slot.downSeen = down;
          return;
        }
        if (!info || info.dead) {
          await markDead(slot, info);
          return;
        }
        if (slot.pid !== undefined && info.pid !== slot.pid) {
          // Another program in the pane (`macs restart`): it is told the
          // worker protocol unless its conversation was (its supervisor ends
          // the old program's requests itself).
          slot.pid = info.pid;
          await newProgramSeen(slot, emit);
        }
        if (slot.promptUndecided) await newProgramSeen(slot, emit);
        if (slot.agent.role === 'controller')
          await life.watchController(slot, info.id);
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
            await emit(await paneGoneWarning(slot));
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

  /**
   * Said once when a dead agent's pane is gone. A worker waits for a pane
   * tagged for it (`macs restart`); a Claude Code teammate (session/
   * teammates.ts) ended with its pane: only its lead can start another of
   * that name, which is adopted into this slot by its tag.
   */
  async function paneGoneWarning(slot: Slot): Promise<EventInput> {
    const { name } = slot.agent;
    const pane = slot.pane ?? '?';
    const teammate = (await readTeammates(paths)).find((t) => t.agent === name);
    if (teammate)
      return {
        agent: name,
        type: 'warning',
        data: {
          message: `pane ${pane} is gone; teammate ${shownTeammateName(teammate)} ended with its pane and does not come back (its lead ${teammate.lead} may start another, which is adopted as ${name})`,
          teammateEnded: true,
        },
      };
    return {
      agent: name,
      type: 'warning',
      data: {
        message: `pane ${pane} is gone; ${name} stays dead until a pane tagged @macs_agent=${name} appears (macs restart ${name}); no other pane is taken for it`,
        waitingForOwnPane: true,
      },
    };
  }

  function addSlot(agent: MultiAgent): Slot {
    const slot = newSlot(agent);
    slots.set(agent.name, slot);
    if (agent.role === 'worker')
      backend.register(agent.name, answerHandler(slot, { paths, events, log }));
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
      // A fleet of one says at once why its agent cannot be supervised.
      if (options.single) for (const slot of slots.values()) await begin(slot);
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
        [...slots.values()].map((slot) => life.end(slot)),
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
