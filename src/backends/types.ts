import type { BackendName } from '../config/schema.js';
import type { ContextPacket } from '../protocol/context-packet.js';
import type { Priority, RecentRequest } from '../state/types.js';

/** A request as a backend sees it. */
export interface BackendRequest {
  id: string;
  agent: string;
  workerId?: string;
  type: string;
  priority: Priority;
  attributes: Record<string, string>;
  body: string;
  bodyHash: string;
  detectedAt: string;
  preset: string;
  /** The worker's pane (for the context packet). */
  pane?: string;
  /** The worker's last finished requests, newest first (for the context packet). */
  recent?: readonly RecentRequest[];
  /** Set when a restarted bridge routes a request again: where it went before. */
  previousBackend?: string;
  /** Detected just now (not routed again after a restart). */
  fresh?: boolean;
  /** Its output hid text from the person (concealed SGR): flagged to answerers. */
  concealed?: true;
  /** The context packet (SPEC §3), added by the dispatcher before a backend sees it. */
  context?: ContextPacket;
}

/** What `submit` may say about where a request went. */
export interface SubmitResult {
  /**
   * The backend the request was handed to first, or `non-interactive`: an
   * unattended worker's request is answered at once (docs/unattended.md).
   */
  backend: BackendName | 'non-interactive';
  /** The backend recorded `request.routed` itself. */
  recorded: boolean;
  /**
   * Answered at once, without an answerer (an echo of the first message's
   * example): the bridge takes it once `routed` is recorded.
   */
  answered?: BackendAnswer;
}

/** An answer a backend received for a request. */
export interface BackendAnswer {
  id: string;
  text: string;
  /** Where it came from, e.g. `outbox/<id>.txt`. */
  source: string;
  /** Not an answer: end the request without one (`macs dismiss`). */
  dismiss?: { reason: string; by: string };
}

/** What the supervisor says about an answer it was handed. */
export type AnswerVerdict = 'accepted' | 'already-answered' | 'unknown-request';

export type AnswerHandler = (answer: BackendAnswer) => Promise<AnswerVerdict>;

/** How a request reaches an answerer (SPEC §3). */
export interface ControllerBackend {
  readonly name: BackendName;
  /** Hand a request over; the answer comes back through the agent's AnswerHandler. */
  submit(request: BackendRequest): Promise<SubmitResult | void>;
  /** Look for answers that arrived while nobody was watching (after a restart). */
  rescan(): Promise<void>;
  stop(): Promise<void>;
}

/** How one try of an answerer ended. Expected failures are values. */
export type AttemptResult =
  | { type: 'answered'; text: string; source: string }
  | { type: 'failed'; reason: string; detail?: Record<string, unknown> }
  | { type: 'aborted' };

/**
 * An answerer that is tried and either answers or fails (exec,
 * interactive); the dispatcher moves a failed request down its chain.
 */
export interface AttemptBackend {
  readonly name: Exclude<BackendName, 'file'>;
  attempt(request: BackendRequest): Promise<AttemptResult>;
  /** Abort every try in progress (they resolve `aborted`). */
  stop(): Promise<void>;
}
