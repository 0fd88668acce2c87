import type { BackendName } from '../config/schema.js';
import type { Priority } from '../state/types.js';

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
}

/** An answer a backend received for a request. */
export interface BackendAnswer {
  id: string;
  text: string;
  /** Where it came from, e.g. `outbox/<id>.txt`. */
  source: string;
}

/** What the supervisor says about an answer it was handed. */
export type AnswerVerdict = 'accepted' | 'already-answered' | 'unknown-request';

export type AnswerHandler = (answer: BackendAnswer) => Promise<AnswerVerdict>;

/** How a request reaches an answerer (SPEC §3). */
export interface ControllerBackend {
  readonly name: BackendName;
  /** Hand a request over; the answer comes back through the agent's AnswerHandler. */
  submit(request: BackendRequest): Promise<void>;
  /** Look for answers that arrived while nobody was watching (after a restart). */
  rescan(): Promise<void>;
  stop(): Promise<void>;
}
