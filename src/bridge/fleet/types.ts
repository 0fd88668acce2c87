/**
 * The types the fleet's modules share (agent-slot.ts, prompt-once.ts,
 * slot-backend.ts, multi-bridge.ts): kept here so that none of them imports
 * another only for a type, and the modules have no import cycle.
 */
import type { AnswerHandler, ControllerBackend } from '../../backends/types.js';
import type { AgentStateFile } from '../../state/types.js';
import type { AgentProfile } from '../agent-context.js';
import type { ControllerPane } from '../route/answerer-backends.js';
import type { Supervisor } from '../supervisor.js';

/** A message typed into a worker once, when it first comes up (prompts/worker.md). */
export interface FirstMessageSpec {
  text: string;
  /** Body hashes of example request blocks in the text (their echo is not a request). */
  exampleHashes: ReadonlySet<string>;
  /** Already delivered in an earlier run of the bridge. */
  sent: boolean;
  /**
   * When another program (`pid`) runs in the agent's pane (`macs restart`,
   * a respawn): does the conversation it runs already hold this message?
   * True only for the program `macs restart` started to continue a
   * conversation that was told (the session record keeps `promptedAt` and
   * names that pid); `pending` while the restart has not recorded it yet;
   * absent or false, the message is typed again.
   */
  heldByConversation?: (
    pid: number | undefined,
  ) => Promise<boolean | 'pending'>;
}

export interface MultiAgent {
  name: string;
  role: 'worker' | 'controller';
  profile: AgentProfile;
  /** Its preset was detected, not named: it follows the pane's program. */
  followsProgram?: boolean;
  firstMessage?: FirstMessageSpec;
}

/** How the session launched an agent (its working folder and environment). */
export interface LaunchedAgent {
  preset: string;
  cwd?: string;
  env?: Readonly<Record<string, string>>;
}

/** The `macs start` session the agents run in, as its record says now. */
export interface LaunchedSession {
  /** Its id (or, for a record without one, when it began). */
  id: string;
  /** When it began (ISO). */
  since: string;
  agents: ReadonlyMap<string, LaunchedAgent>;
}

/**
 * The agents a bridge supervises and how it finds them (src/session/roster.ts
 * builds it from a session, a config, or one pane): the bridge's one input
 * from above.
 */
export interface Roster {
  agents: readonly MultiAgent[];
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
  /** Agents that appeared since (added to the session, panes newly tagged). */
  findNewAgents?: (known: ReadonlySet<string>) => Promise<MultiAgent[]>;
  /** The first message reached the agent (record it, so it is never sent twice). */
  onPrompted?: (agent: string) => Promise<void>;
  /** The controller pane the interactive backend types into. */
  controller?: ControllerPane;
  /** The `macs start` session these agents belong to. */
  session?: string;
  /** When that session began (ISO): for the loop guards. */
  sessionSince?: string;
  /** The session as its record says now (usage reading), if there is one. */
  launched: () => Promise<LaunchedSession | undefined>;
}

/** The shared backend: one for every agent, answers dispatched by agent name. */
export interface SharedBackend extends ControllerBackend {
  register: (agent: string, onAnswer: AnswerHandler) => void;
}

export type SlotStatus = 'waiting' | 'running' | 'dead';

export interface Slot {
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
  /** A fleet of one: its pane was seen dead or gone at the last check. */
  downSeen?: boolean;
  /** A new program's first message waits for `macs restart` to finish. */
  promptUndecided?: boolean;
}
