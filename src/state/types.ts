import type { AgentStateName } from '../config/states.js';
import type { DecidedBy } from '../protocol/approval.js';
import type { DedupState } from '../protocol/dedup.js';

export type StateSource =
  | 'hook'
  | 'screen'
  | 'activity'
  | 'pane'
  // macs submitted a prompt and no hook has spoken since (bridge/hook-state.ts).
  | 'submission';

/**
 * A request's stages (SPEC §7): detected → routed → answered → delivering →
 * pasted → delivered → confirmed. `delivering` is saved right before the first
 * keystroke and `pasted` once the text is in the pane, before the submit key,
 * so a restart knows whether only the submit key is missing.
 * `answered-empty` ends a request with nothing to send; `unconfirmed` is a
 * delivery whose submission could not be confirmed. `expired` ends a request
 * whose agent can no longer take its answer (another session, the program
 * restarted, its pane gone, or an approval its hook stopped waiting for);
 * `dismissed` one a person ended with `macs dismiss`. Neither is ever typed.
 */
export type RequestStage =
  | 'detected'
  | 'routed'
  | 'answered'
  | 'answered-empty'
  | 'delivering'
  | 'pasted'
  | 'delivered'
  | 'confirmed'
  | 'unconfirmed'
  | 'expired'
  | 'dismissed';

export type Priority = 'low' | 'normal' | 'high';

export interface StoredResponse {
  instructions: string;
  notes: string;
  /** Where the answer came from (`outbox`, `exec`, ...). */
  source: string;
  /** The tool call behind an outbox answer (`mcp:decide_approval`, `mcp:answer_request`). */
  by?: string;
  receivedAt: string;
  /** The answer exactly as received. */
  raw: string;
}

export interface RequestRecord {
  id: string;
  agent: string;
  workerId?: string;
  type: string;
  priority: Priority;
  attributes: Record<string, string>;
  bodyHash: string;
  /** The request text, kept until the request is archived. */
  body: string;
  stage: RequestStage;
  backend?: string;
  detectedAt: string;
  routedAt?: string;
  answeredAt?: string;
  deliveringAt?: string;
  pastedAt?: string;
  /**
   * Saved right before the submit key is first pressed: a bridge restarted
   * in `pasted` with this set may have pressed it already, and looks at the
   * composer before pressing again.
   */
  submittingAt?: string;
  deliveredAt?: string;
  confirmedAt?: string;
  response?: StoredResponse;
  /**
   * Where the request came from: a worker's request block (the default), an
   * agent hook (an approval a PreToolUse or PermissionRequest hook asked
   * for; its answer is a decision file, never typed, docs/hooks.md) or a
   * permission dialog on the worker's screen (its decision is applied with
   * the preset's keys for the dialog, never typed, docs/backends.md). Only
   * a worker's request ever has its answer typed.
   */
  origin?: 'worker' | 'hook' | 'screen';
  /**
   * Who asked (docs/reliability.md): the pane the request was read from, the
   * pid of the program the pane ran then (`#{pane_pid}`: a respawned pane
   * has another), and the `macs start` session. An answer is typed only
   * into that same pane running that same program.
   */
  pane?: string;
  panePid?: number;
  session?: string;
  /**
   * The program that asked, within the pane: the process group that held
   * the pane's terminal when the request was read (`pgid`), its command line
   * for people, and whether it was the shell itself at its prompt. The
   * answer is typed only while that group holds the terminal (a shell's only
   * at its prompt); once it has ended the request expires. Absent where it
   * could not be read (no /proc).
   */
  asker?: RequestAsker;
  /** Why its answer's delivery waits, once it has waited a while; cleared when typing begins. */
  waits?: { reason: string; since: string };
  /** The output it came in hid text (concealed): a person did not see all of it. */
  concealed?: true;
  /** Why an `expired` or `dismissed` request was ended, and by whom. */
  closed?: { reason: string; by: string; at: string };
  /** What an approval asks (type=approval from a hook or a screen dialog). */
  approval?: ApprovalInfo;
  /** How an approval was decided, and who decided (docs/backends.md). */
  decision?: ApprovalVerdict;
}

/** Who asked, within a pane (RequestRecord.asker). */
export interface RequestAsker {
  pgid: number;
  command: string;
  shell: boolean;
}

/** What a `type=approval` request from a hook or a dialog asks. */
export interface ApprovalInfo {
  /** Where it was asked: a hook event, or a dialog on the screen. */
  source: 'PreToolUse' | 'PermissionRequest' | 'screen';
  tool: string;
  /** What the tool would act on: a command, a path, a URL. */
  subject: string;
  /** Hash of the tool and its input, or of the dialog's text. */
  fingerprint: string;
  /** The `ask` rule that sent a PreToolUse call here. */
  rule?: string;
  /** The pid of the hook that waits for the decision. */
  hookPid?: number;
}

export interface ApprovalVerdict {
  /** Absent for a worker's own approval whose answer starts with neither word. */
  decision?: 'allow' | 'deny';
  decidedBy: DecidedBy;
  /** The rule's name (`rule`), or how the answer came: `mcp:decide_approval`, `outbox`, `exec:<cmd>`, `controller:%N`. */
  via: string;
  reason: string;
  at: string;
}

/** A finished request, kept briefly for context and the status view. */
export interface RecentRequest {
  id: string;
  type: string;
  stage: RequestStage;
  detectedAt: string;
  deliveredAt?: string;
  firstLine: string;
  instructions?: string;
  /** An approval's decision and who made it. */
  decision?: ApprovalVerdict;
}

export interface AgentCounters {
  detected: number;
  delivered: number;
  duplicates: number;
  malformed: number;
}

/** `.macs/state/<agent>.json`. */
export interface AgentStateFile {
  version: 1;
  agent: string;
  pane?: string;
  preset: string;
  state: AgentStateName;
  stateSource: StateSource;
  stateSince: string;
  /** Byte offset in the pane log from which a restarted bridge resumes. */
  logOffset: number;
  /** Identity of the pane log the offset belongs to (inode), to notice replacement. */
  logInode?: number;
  /** Requests not yet finished, by id. */
  requests: Record<string, RequestRecord>;
  recent: RecentRequest[];
  dedup: DedupState;
  counters: AgentCounters;
  paused: boolean;
  /** When `dead`: the program's exit status (128 + N after signal N), from tmux. */
  exitCode?: number;
  /** When `dead` by a signal: its number (`#{pane_dead_signal}`). */
  exitSignal?: number;
  /** When `dead`: the last lines its pane showed, to tell why it ended. */
  lastLines?: string[];
  /** Whether the agent's hooks are seen working (docs/hooks.md). */
  hooks?: HooksStatus;
  /**
   * Fingerprints of the request blocks the screen reader reported last
   * (src/screen/reader.ts), so a restarted bridge knows them when a program
   * reprints its history.
   */
  screenSeen?: string[];
  /**
   * The macs session whose programs printed the blocks of `screenSeen`: a
   * bridge of another session starts with none seen (a new program asking
   * what an earlier one asked is asking, not redrawing).
   */
  screenSession?: string;
  /**
   * A scan of the pane's screen and history is due and not finished: set
   * before a bridge scans (its start with a new pipe, a reopened capture),
   * cleared once every block found is recorded. A bridge killed mid-scan
   * leaves it set, and the next one scans again: what was printed before
   * the pipe existed is only there.
   */
  scanPending?: boolean;
  /**
   * A request block shown without its end marker (issue 29): its worker
   * waits, and a person was told (bridge/intake/incomplete-watch.ts). Cleared when
   * the block ends (then it is a request like any other), is abandoned, or
   * leaves the screen.
   */
  incomplete?: IncompleteRequest;
  /** The conversation the last heuristic request was made from (SPEC §2). */
  heuristicKey?: string;
  updatedAt: string;
}

/** A block whose end marker has not come, as a person is shown it. */
export interface IncompleteRequest {
  /** When it was found incomplete. */
  since: string;
  /**
   * Why it was: the pane was quiet for `incompleteAfterSec` (`quiet`), or
   * the agent's prompt came back under it (`prompt`: its screen read idle).
   */
  reason: 'quiet' | 'prompt';
  /** Its start-marker line. */
  firstLine: string;
  attributes: Record<string, string>;
  /** Its first body lines, cleaned. */
  head: string[];
  /** Body lines shown so far. */
  lines: number;
  /** The id it will have once complete (`<agent>-<id>`), when it has an id. */
  requestId?: string;
}

const OPEN = [
  'detected',
  'routed',
  'answered',
  'delivering',
  'pasted',
] as const;
/** A request in one of these stages is still on its way (in the open set). */
export type OpenStage = (typeof OPEN)[number];
export const OPEN_STAGES: readonly RequestStage[] = OPEN;

const FINAL = [
  'answered-empty',
  'delivered',
  'confirmed',
  'unconfirmed',
  'expired',
  'dismissed',
] as const;
/**
 * A request in one of these stages is finished (archived; a `delivered`
 * one may still be confirmed, or not): every stage that is not open. The
 * one list of them, for the restarted bridge, the inbox and the status view.
 */
export type FinalStage = (typeof FINAL)[number];
export const FINAL_STAGES: readonly RequestStage[] = FINAL;

// Every stage is open or final, and none is both (checked when compiled).
type IsNever<T extends never> = T;
type _EveryStageOpenOrFinal = IsNever<
  Exclude<RequestStage, OpenStage | FinalStage>
>;
type _NoStageOpenAndFinal = IsNever<Extract<OpenStage, FinalStage>>;

/** Is the answer to this request typed into the agent (a worker's own request)? */
export function isTypedAnswer(record: Pick<RequestRecord, 'origin'>): boolean {
  return record.origin === undefined || record.origin === 'worker';
}

export function isOpenStage(stage: RequestStage): boolean {
  return OPEN_STAGES.includes(stage);
}

export function isFinalStage(stage: RequestStage): stage is FinalStage {
  return FINAL_STAGES.includes(stage);
}

/**
 * Are the agent's hooks calling macs? `off`: its preset has none; `waiting`:
 * none seen yet; `active`: a hook call was seen; `inactive`: none came in
 * time after the bridge started (`reason` says why that may be).
 */
export interface HooksStatus {
  status: 'off' | 'waiting' | 'active' | 'inactive';
  since: string;
  reason?: string;
  lastEvent?: string;
  lastEventAt?: string;
}
