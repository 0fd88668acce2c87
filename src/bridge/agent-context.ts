/**
 * What every stage of one agent's supervision shares: who the agent is and
 * where it runs, its state file as held in memory, the event log, and the
 * one queue (`serial`) that orders every change to that state. Each stage
 * (agent-state, intake, requests, answers, delivery, resume) gets this
 * object, never the others' inner variables; supervisor.ts wires them.
 */
import type { MacsConfig } from '../config/schema.js';
import type { Preset, PresetDialog } from '../config/presets/types.js';
import { emitSafely, type EventSink } from '../events/log.js';
import type { EventInput } from '../events/types.js';
import type { HomePaths } from '../home/paths.js';
import type { Logger } from '../log/logger.js';
import type { ClassifyResult } from '../screen/classify.js';
import { createSerialQueue } from '../state/serial.js';
import { saveAgentState } from '../state/store.js';
import type { AgentStateFile } from '../state/types.js';
import type { AgentStateName } from '../config/states.js';
import type { TmuxClient } from '../tmux/client.js';
import type { DeliveryRules } from '../typist/typist.js';

/** What the supervisor needs to know about the agent's kind (from its preset). */
/**
 * Who may take a request's answer now: the pane, its program and the
 * session (requests/check-origin.ts checks a request against it).
 */
export interface AgentIncarnation {
  agent: string;
  pane: string;
  panePid?: number;
  session?: string;
}

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
   * The preset's permission dialog (approvals/dialog-approvals.ts);
   * absent: none are raised from this agent's screen.
   */
  dialog?: PresetDialog;
  /** The preset's hooks: with Claude Code's, its PermissionRequest hook asks instead while hooks work. */
  hooks?: Preset['hooks'];
}

/**
 * The deliveries under way, one per request at most: the answers room starts
 * and ends each (answers/delivery.ts); whoever ends a request meanwhile calls
 * its delivery off (requests/request-steps.ts), without knowing the room
 * that delivers it.
 */
export interface DeliveriesUnderWay {
  /** A delivery begins: its call-off signal, or undefined while one is under way. */
  start: (requestId: string) => AbortSignal | undefined;
  /** The delivery ended (however). */
  end: (requestId: string) => void;
  /** Call off the delivery under way for this request, if any. */
  callOff: (requestId: string) => void;
}

/** How long offset-only changes may wait before the state file is written. */
const LAZY_SAVE_MS = 200;

export interface AgentContext {
  readonly agent: string;
  readonly pane: string;
  /**
   * What the agent's preset says of it. Read it at each use: an agent whose
   * preset was not named follows the program its pane runs
   * (`followsProgram`, agent/agent-state.ts switches it).
   */
  profile: AgentProfile;
  /** The preset was detected from the pane's program, not named: it follows that program. */
  readonly followsProgram: boolean;
  readonly paths: HomePaths;
  readonly config: MacsConfig;
  readonly tmux: TmuxClient;
  readonly log: Logger;
  /** The `macs start` session the bridge serves; its requests carry it. */
  readonly session: string | undefined;
  /** Orders every change to the state: one step at a time. */
  readonly serial: <T>(task: () => Promise<T>) => Promise<T>;
  /** Aborted when the supervision stops. */
  readonly signal: AbortSignal;
  /** The deliveries under way, and how to call one off. */
  readonly deliveries: DeliveriesUnderWay;
  /** The state in memory; throws before start. */
  current: () => AgentStateFile;
  /** Set by start (loaded or rebuilt). */
  setState: (state: AgentStateFile) => void;
  hasState: () => boolean;
  emit: (input: Omit<EventInput, 'agent'>) => Promise<void>;
  /** Write the state file now (a stage that must survive a crash). */
  saveNow: () => Promise<void>;
  /** Write it within LAZY_SAVE_MS (offsets, counters: cheap to redo). */
  saveLater: () => void;
  readonly stopped: boolean;
  /** Stop: no more lazy saves (a pending one is dropped), and `signal` aborts. */
  markStopped: () => void;
  /** The pid of the program in the pane (`#{pane_pid}`): who may take answers. */
  panePid: number | undefined;
  /** Who may take an answer now (requests/check-origin.ts). */
  incarnation: () => AgentIncarnation;
}

/** Who and where the agent is, and what its supervision writes to. */
export interface AgentContextOptions {
  agent: string;
  pane: string;
  profile: AgentProfile;
  /** Detected, not named: the preset follows the pane's program. */
  followsProgram?: boolean;
  paths: HomePaths;
  config: MacsConfig;
  tmux: TmuxClient;
  events: EventSink;
  log: Logger;
  /**
   * The `macs start` session this bridge serves (`.macs/session.json`):
   * requests carry it, and one of another session is never answered.
   */
  session?: string;
}

export function createAgentContext(options: AgentContextOptions): AgentContext {
  const { agent, pane, paths, events, log } = options;
  const serial = createSerialQueue();
  const abort = new AbortController();
  let state: AgentStateFile | undefined;
  let lazyTimer: NodeJS.Timeout | undefined;
  let stopped = false;

  const current = (): AgentStateFile => {
    if (!state) throw new Error(`supervisor for ${agent} is not started`);
    return state;
  };

  const context: AgentContext = {
    agent,
    pane,
    profile: options.profile,
    followsProgram: options.followsProgram === true,
    paths,
    config: options.config,
    tmux: options.tmux,
    log,
    session: options.session,
    serial,
    signal: abort.signal,
    deliveries: createDeliveriesUnderWay(),
    current,
    setState(next) {
      state = next;
    },
    hasState: () => state !== undefined,
    async emit(input) {
      await emitSafely(events, log, { agent, ...input });
    },
    async saveNow() {
      if (lazyTimer) {
        clearTimeout(lazyTimer);
        lazyTimer = undefined;
      }
      await saveAgentState(paths, current());
    },
    saveLater() {
      if (lazyTimer || stopped) return;
      lazyTimer = setTimeout(() => {
        lazyTimer = undefined;
        if (stopped) return;
        void serial(() => saveAgentState(paths, current())).catch(
          (error: unknown) => log.error({ err: error }, 'state save failed'),
        );
      }, LAZY_SAVE_MS);
      lazyTimer.unref();
    },
    get stopped() {
      return stopped;
    },
    markStopped() {
      stopped = true;
      abort.abort();
      // The stop saves the state itself; a lazy save due later would write
      // a file after the supervision ended (into a home perhaps gone).
      clearTimeout(lazyTimer);
      lazyTimer = undefined;
    },
    panePid: undefined,
    incarnation() {
      return {
        agent,
        pane,
        ...(context.panePid !== undefined ? { panePid: context.panePid } : {}),
        ...(options.session ? { session: options.session } : {}),
      };
    },
  };
  return context;
}

function createDeliveriesUnderWay(): DeliveriesUnderWay {
  const aborts = new Map<string, AbortController>();
  return {
    start(requestId) {
      if (aborts.has(requestId)) return undefined;
      const calledOff = new AbortController();
      aborts.set(requestId, calledOff);
      return calledOff.signal;
    },
    end(requestId) {
      aborts.delete(requestId);
    },
    callOff(requestId) {
      aborts.get(requestId)?.abort();
    },
  };
}
