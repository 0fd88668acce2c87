/**
 * One agent's place in the bridge's fleet (multi-bridge.ts) and its life there:
 * waiting for a pane, running (a worker under its supervisor; a controller
 * watched), dead (its pane's program ended or its pane is gone), and back
 * again when its pane runs again. A dead or watched agent's state is
 * written here, under the agent's lock; a running worker's by its
 * supervisor. A problem with one agent is reported on that agent, with a
 * retry that backs off, and never stops the others.
 */
import type { MacsConfig } from '../../config/schema.js';
import { errorMessage, type AgentError } from '../../errors.js';
import type { EventInput } from '../../events/types.js';
import type { EventSink } from '../../events/log.js';
import type { HomePaths } from '../../home/paths.js';
import type { Logger } from '../../log/logger.js';
import { lastScreenLines } from '../../screen/classify.js';
import {
  acquireAgentLock,
  loadAgentState,
  saveAgentState,
} from '../../state/store.js';
import type { AgentStateName } from '../../config/states.js';
import {
  PaneNotFoundError,
  type PaneInfo,
  type TmuxClient,
} from '../../tmux/client.js';
import { readPaneExit } from '../../tmux/pane-exit.js';
import type { AgentProfile } from '../agent-context.js';
import type { Deliverer } from '../../typist/typist.js';
import type { MultiAgent, SharedBackend, Slot } from './types.js';
import type { AgentStateFile } from '../../state/types.js';
import { backendFor } from './slot-backend.js';
import { newProgramSeen } from './prompt-once.js';
import { createSupervisor } from '../supervisor.js';

/** A failed start is retried after this, doubling up to the maximum. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 30_000;

export function newSlot(agent: MultiAgent): Slot {
  return {
    agent,
    status: 'waiting',
    nextTry: 0,
    backoffMs: RETRY_FIRST_MS,
    prompting: false,
  };
}

function exitWords(exit: { exitCode?: number; exitSignal?: number }): string {
  if (exit.exitSignal !== undefined)
    return `was killed by signal ${exit.exitSignal}`;
  if (exit.exitCode !== undefined) return `exited with status ${exit.exitCode}`;
  return 'is gone';
}

/** What every agent of a fleet shares. */
/** A slot's status read afresh (after an await that may have changed it). */
function isRunning(slot: Pick<Slot, 'status'>): boolean {
  return slot.status === 'running';
}

export interface FleetParts {
  paths: HomePaths;
  config: MacsConfig;
  tmux: TmuxClient;
  events: EventSink;
  log: Logger;
  backend: SharedBackend;
  deliverer: Deliverer;
  /** The `macs start` session these agents belong to (`.macs/session.json`). */
  session?: string;
}

export interface SlotLifeOptions extends FleetParts {
  resolvePane: (
    agent: MultiAgent,
    options?: { ownPaneOnly?: boolean },
  ) => Promise<string>;
  onNotice: (line: string) => void;
  /** Told when a worker's pane is gone for good (a fleet of one stops). */
  onPaneGone?: (error: AgentError) => void;
  emit: (input: EventInput) => Promise<void>;
}

export interface SlotLife {
  /** Report a problem with one agent once (until it changes or clears). */
  problem: (slot: Slot, where: string, error: unknown) => Promise<void>;
  /** Supervise (a worker) or watch (a controller) the agent in its pane. */
  begin: (slot: Slot, resolved?: string) => Promise<void>;
  /** Its pane's program ended, or its pane is gone. */
  markDead: (slot: Slot, info: PaneInfo | undefined) => Promise<void>;
  /** A dead agent's pane runs again (respawn-pane), or another pane was found for it. */
  revive: (slot: Slot) => Promise<void>;
  watchController: (slot: Slot, pane: string) => Promise<void>;
  readPaneState: (
    pane: string,
    profile: AgentProfile,
  ) => Promise<AgentStateName>;
  /** Stopping: end the agent's supervision and release its lock. */
  end: (slot: Slot) => Promise<void>;
}

export function createSlotLife(options: SlotLifeOptions): SlotLife {
  const { paths, config, tmux, events, log, backend, emit } = options;

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
        ...(agent.followsProgram ? { followsProgram: true } : {}),
        paths,
        config,
        tmux,
        events,
        log: log.child({ agent: agent.name }),
        deliverer: options.deliverer,
        backend: backendFor(slot, { backend, emit }),
        ...(options.session ? { session: options.session } : {}),
        ...(options.onPaneGone ? { onPaneGone: options.onPaneGone } : {}),
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

  return {
    async problem(slot, where, error) {
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
    },
    begin,
    markDead,
    async revive(slot) {
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
      await emit({
        agent: slot.agent.name,
        type: 'state.changed',
        data: { from: 'dead', to: 'unknown', source: 'pane', pane: slot.pane },
      });
      await begin(slot);
      // A new program (its pid known once begun): told the worker protocol
      // unless it continues a conversation that was.
      if (slot.agent.firstMessage) slot.agent.firstMessage.sent = false;
      // (begin may have failed: then it waits, and the message goes.)
      if (isRunning(slot)) await newProgramSeen(slot, emit);
    },
    async watchController(slot, pane) {
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
    },
    readPaneState,
    async end(slot) {
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
    },
  };
}
