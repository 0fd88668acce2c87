/**
 * What a hook handler gets and gives. Handlers are pure: (input, context) →
 * plan. The runner (runner.ts) does the I/O a plan asks for: it claims a
 * request, asks the controller and waits (ask.ts), writes the observation
 * (merged in observation.ts) and the events, and prints the reply.
 */
import type { PolicyConfig } from '../config/policy-defaults.js';
import type { ApprovalOutcome, HookObservation } from '../state/hook-files.js';
import type { AgentStateFile } from '../state/types.js';
import type { AgentStateName } from '../config/states.js';
import type { ActivityInput } from '../state/agent-activity.js';

export interface HookContext {
  agent: string;
  now: Date;
  /** The agent's state file as the bridge last saved it (hooks only read it). */
  agentState: AgentStateFile | undefined;
  /** The observation the previous hook call left. */
  previous: HookObservation | undefined;
  policy: PolicyConfig;
  /** prompts/worker.md: what SessionStart adds as context. */
  workerPrompt: string;
  /**
   * `controller` when the hook runs in the session's controller
   * (`MACS_ROLE=controller` in its pane, set by `macs start`): SessionStart
   * gives it no worker protocol. Absent: a worker.
   */
  role?: 'worker' | 'controller';
  /** Requests someone else claimed first; the runner re-plans without them. */
  unavailable: ReadonlySet<string>;
  /** A person paused delivery to this agent (`.macs/control/<agent>.paused`). */
  paused: boolean;
}

/** An event the runner records as `hook.<event>` or `error` for the agent. */
export interface HookEventRecord {
  type: string;
  requestId?: string;
  data?: Record<string, unknown>;
}

/** An approval to ask the controller for; the reply waits for its decision. */
export interface ApprovalAsk {
  id: string;
  /** `PreToolUse` (an `ask` rule) or `PermissionRequest`. */
  event: 'PreToolUse' | 'PermissionRequest';
  tool: string;
  subject: string;
  /** The `ask` rule that matched (PreToolUse). */
  rule?: string;
  /** Hash of the tool and its whole input: a decision must carry the same. */
  fingerprint: string;
  body: string;
  timeoutSec: number;
  /** Without a decision in time: this decision, or Claude Code's own dialog. */
  default: ApprovalOutcome;
  toolUseId?: string;
  sessionId?: string;
}

export interface HookPlan {
  /** JSON printed on stdout; undefined prints nothing (exit 0 either way). */
  reply?: Record<string, unknown>;
  /** The observation to write; undefined leaves the previous one. */
  observation?: {
    state?: AgentStateName;
    delivered?: string;
    consecutiveBlocks?: number;
    /** PreCompact: the compaction's trigger, for the SessionStart after it ('' clears it). */
    trigger?: string;
  };
  /** Lines for `.macs/activity/<agent>.jsonl` (subagents, compactions). */
  activity?: ActivityInput[];
  /** Claude Code's transcript file (an absolute `.jsonl` path), for usage. */
  transcriptPath?: string;
  events: HookEventRecord[];
  /** Claim this request before replying; if taken, re-plan without it. */
  claim?: string;
  /** Ask the controller, then build the reply with resolveApproval. */
  ask?: ApprovalAsk;
  /**
   * A call a deny rule refused: recorded for an appeal, unless an
   * overturned appeal lets it through once (docs/hooks.md#appeals).
   */
  denial?: {
    tool: string;
    subject: string;
    fingerprint: string;
    rule: string;
    transcript?: string;
  };
}
