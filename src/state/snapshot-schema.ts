/**
 * The status snapshot's schema (snapshot.ts builds snapshots; docs/status.md
 * documents each field). A module of its own so that `macs status --json`,
 * which only builds a snapshot, does not construct it.
 */
import * as z from 'zod';
import { AGENT_STATE_NAMES } from '../config/states.js';
import { SNAPSHOT_VERSION } from './snapshot-version.js';
import type { RequestStage } from './types.js';

const isoTime = z.iso.datetime({ offset: true });
const count = z.number().int().nonnegative();

export const AgentStateNameSchema = z.enum(AGENT_STATE_NAMES);

const REQUEST_STAGES = [
  'detected',
  'routed',
  'answered',
  'answered-empty',
  'delivering',
  'pasted',
  'delivered',
  'confirmed',
  'unconfirmed',
  'expired',
  'dismissed',
] as const satisfies readonly RequestStage[];

/**
 * A stage added to `RequestStage` must be added to REQUEST_STAGES (and to
 * docs/status.md): the snapshot's schema lists every stage.
 */
type UndocumentedStage = Exclude<RequestStage, (typeof REQUEST_STAGES)[number]>;
const EVERY_STAGE_LISTED: [UndocumentedStage] extends [never]
  ? true
  : UndocumentedStage = true;
void EVERY_STAGE_LISTED;

export const RequestStageSchema = z.enum(REQUEST_STAGES);

export const AnswerSnapshotSchema = z.strictObject({
  requestId: z.string(),
  stage: RequestStageSchema,
  instructions: z.string(),
  notes: z.string(),
  source: z.string().nullable(),
  receivedAt: isoTime.nullable(),
  deliveredAt: isoTime.nullable(),
});

/** Who decided an approval (docs/backends.md "approvals and who decided"). */
export const DecisionSnapshotSchema = z.strictObject({
  decision: z.enum(['allow', 'deny']).nullable(),
  decidedBy: z.enum(['rule', 'controller', 'person']),
  /** The rule's name, or how the answer came (`mcp:decide_approval`, `outbox`, `exec:…`). */
  via: z.string(),
  at: isoTime,
});

const tokenFigure = count.nullable();

/**
 * What an agent's model calls used (docs/usage.md): null figures are not
 * reported by the agent; `costUsd` null: a model without a price.
 */
export const AgentUsageSchema = z.strictObject({
  model: z.string().nullable(),
  inputTokens: tokenFigure,
  outputTokens: tokenFigure,
  cacheReadTokens: tokenFigure,
  cacheWriteTokens: tokenFigure,
  costUsd: z.number().nonnegative().nullable(),
});

/** A subagent an agent ran (Claude Code's SubagentStart and SubagentStop hooks). */
export const SubagentSnapshotSchema = z.strictObject({
  id: z.string(),
  /** Its kind: Claude Code's `agent_type` (`general-purpose`, `Explore`, a custom agent). */
  kind: z.string(),
  startedAt: isoTime.nullable(),
  stoppedAt: isoTime.nullable(),
});

export const AgentSnapshotSchema = z.strictObject({
  name: z.string(),
  preset: z.string(),
  pane: z.string().nullable(),
  state: AgentStateNameSchema,
  stateSource: z.string(),
  stateSince: isoTime,
  stateAgeMs: count,
  paused: z.boolean(),
  bridge: z.strictObject({
    running: z.boolean(),
    pid: z.number().int().positive().nullable(),
  }),
  counts: z.strictObject({
    pending: count,
    waitingForPerson: count,
    detected: count,
    delivered: count,
    duplicates: count,
    malformed: count,
  }),
  lastRoundTripMs: count.nullable(),
  lastResponse: AnswerSnapshotSchema.nullable(),
  /** Whether the agent's hooks report to macs (null: its preset has none). */
  hooks: z
    .strictObject({
      status: z.enum(['off', 'waiting', 'active', 'inactive']),
      reason: z.string().nullable(),
    })
    .nullable(),
  /** When `dead`: how it ended (exit status) and its last screen lines. */
  exit: z
    .strictObject({
      code: z.number().int().nullable(),
      signal: z.number().int().nullable(),
      lastLines: z.array(z.string()),
    })
    .nullable(),
  /** Tokens and cost of its model calls this session; null: none recorded. */
  usage: AgentUsageSchema.nullable(),
  /**
   * The subagents its hooks reported: running, and the newest finished (at
   * most 10; `finishedTotal` counts all); null: none reported. Always
   * written by the reader; optional for snapshots made before it existed.
   */
  subagents: z
    .strictObject({
      running: z.array(SubagentSnapshotSchema),
      finished: z.array(SubagentSnapshotSchema),
      finishedTotal: count,
    })
    .nullable()
    .optional(),
  /** How many times its context was compacted (optional as `subagents`). */
  compactions: count.optional(),
  /** The newest compaction: when, and `manual` (`/compact`) or `auto`. */
  lastCompaction: z
    .strictObject({ at: isoTime, trigger: z.string() })
    .nullable()
    .optional(),
  /**
   * A Claude Code teammate macs adopted: its lead, its name in the team,
   * and how the doors show it (`<lead>/<teammate>`); absent for any other
   * agent (docs/hooks.md "Agent teams").
   */
  teammate: z
    .strictObject({
      lead: z.string(),
      name: z.string(),
      shownAs: z.string(),
      team: z.string().nullable(),
    })
    .optional(),
  updatedAt: isoTime,
});

export const RequestSnapshotSchema = z.strictObject({
  id: z.string(),
  agent: z.string(),
  workerId: z.string().nullable(),
  type: z.string(),
  priority: z.enum(['low', 'normal', 'high']),
  stage: RequestStageSchema,
  backend: z.string().nullable(),
  waitingForPerson: z.boolean(),
  detectedAt: isoTime,
  ageMs: count,
  firstLine: z.string(),
  body: z.string(),
  attributes: z.record(z.string(), z.string()),
  context: z.unknown().nullable(),
  answer: AnswerSnapshotSchema.nullable(),
  /** An approval's decision once made (a worker's own approval waits to be typed). */
  decision: DecisionSnapshotSchema.nullable(),
  /**
   * Why its answer waits to be typed, once it has waited a few seconds
   * (`pane runs \`sleep 30\`, not at a prompt`); null otherwise.
   */
  waits: z.strictObject({ reason: z.string(), since: isoTime }).nullable(),
});

export const EventSnapshotSchema = z.strictObject({
  ts: z.string(),
  agent: z.string(),
  type: z.string(),
  requestId: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
});

/** A decided approval, newest first in `Snapshot.approvals`. */
export const ApprovalSnapshotSchema = z.strictObject({
  id: z.string(),
  agent: z.string(),
  stage: RequestStageSchema,
  firstLine: z.string(),
  ...DecisionSnapshotSchema.shape,
});

export const SessionSnapshotSchema = z.strictObject({
  /**
   * `running`: `macs start` made it and it was not stopped; `server-gone`:
   * not stopped, but its tmux server is no longer running (killed, a reboot:
   * `macs start --resume` brings it back); `stopped`: `macs stop` ended it.
   */
  status: z.enum(['running', 'server-gone', 'stopped', 'none']),
  id: z.string().nullable(),
  /** When it started (running, server-gone) or was stopped (stopped). */
  since: isoTime.nullable(),
  /**
   * A session `macs start --resume` brought back after its tmux server was
   * gone: the session it was, and what became of each agent.
   */
  resumed: z
    .strictObject({
      from: z.string().nullable(),
      agents: z.array(
        z.strictObject({
          name: z.string(),
          outcome: z.enum(['resumed', 'fresh', 'failed']),
          why: z.string().nullable(),
        }),
      ),
    })
    .optional(),
});

/**
 * A request refused for its size (state/refused.ts): never raised, its
 * worker gets no answer.
 */
export const RefusedSnapshotSchema = z.strictObject({
  agent: z.string(),
  /** Which limit it ran past: `maxBlockLines` or `maxBlockBytes`. */
  reason: z.enum(['max-lines', 'max-bytes']),
  /** When it was refused. */
  at: isoTime,
  /** Its start marker line. */
  firstLine: z.string(),
  /** Body lines and bytes read before it was given up. */
  lines: count,
  bytes: count,
  /** What the person was told. */
  message: z.string().nullable(),
});

/**
 * A request block shown without its end marker
 * (state/incomplete-requests.ts): its worker may wait; it cannot be
 * answered until it is complete.
 */
export const IncompleteSnapshotSchema = z.strictObject({
  agent: z.string(),
  /** When it was found incomplete. */
  since: isoTime,
  /** `quiet`: the pane went quiet; `prompt`: the agent's prompt came back under it. */
  reason: z.enum(['quiet', 'prompt']),
  /** Its start marker line. */
  firstLine: z.string(),
  /** Its first body lines. */
  head: z.array(z.string()),
  /** Body lines shown so far. */
  lines: count,
  /** The id it will have once complete (only when the block has an `id`). */
  requestId: z.string().nullable(),
  /** What the person is told, with what the worker must do. */
  message: z.string(),
});

export const SnapshotSchema = z.strictObject({
  version: z.literal(SNAPSHOT_VERSION),
  generatedAt: isoTime,
  home: z.string(),
  session: SessionSnapshotSchema,
  totals: z.strictObject({
    agents: count,
    pending: count,
    waitingForPerson: count,
    paused: count,
  }),
  agents: z.array(AgentSnapshotSchema),
  requests: z.array(RequestSnapshotSchema),
  /** The approvals decided last (at most SNAPSHOT_APPROVALS), newest first, with who decided. */
  approvals: z.array(ApprovalSnapshotSchema),
  events: z.array(EventSnapshotSchema),
  /**
   * Requests refused for their size in the running session (the last day
   * without one), oldest first. Always written by the reader; optional for
   * snapshots made before it existed.
   */
  refused: z.array(RefusedSnapshotSchema).optional(),
  /**
   * Request blocks shown without their end marker, one per agent at most,
   * oldest first. Always written by the reader; optional for snapshots made
   * before it existed.
   */
  incomplete: z.array(IncompleteSnapshotSchema).optional(),
});

export type AnswerSnapshot = z.infer<typeof AnswerSnapshotSchema>;
export type AgentSnapshot = z.infer<typeof AgentSnapshotSchema>;
export type SubagentSnapshot = z.infer<typeof SubagentSnapshotSchema>;
export type AgentUsageSnapshot = z.infer<typeof AgentUsageSchema>;
export type RequestSnapshot = z.infer<typeof RequestSnapshotSchema>;
export type EventSnapshot = z.infer<typeof EventSnapshotSchema>;
export type SessionSnapshot = z.infer<typeof SessionSnapshotSchema>;
export type DecisionSnapshot = z.infer<typeof DecisionSnapshotSchema>;
export type ApprovalSnapshot = z.infer<typeof ApprovalSnapshotSchema>;
export type RefusedSnapshot = z.infer<typeof RefusedSnapshotSchema>;
export type IncompleteSnapshot = z.infer<typeof IncompleteSnapshotSchema>;
export type Snapshot = z.infer<typeof SnapshotSchema>;
