import type { DedupState } from '../protocol/dedup.js';

/** Agent states (SPEC §6). */
export type AgentStateName =
  'working' | 'idle' | 'approval' | 'error' | 'dead' | 'unknown';
export type StateSource = 'hook' | 'screen' | 'activity' | 'pane';

/**
 * A request's stages (SPEC §7): detected → routed → answered → delivering →
 * delivered → confirmed. `answered-empty` ends a request with nothing to send;
 * `unconfirmed` is a delivery whose submission could not be confirmed.
 */
export type RequestStage =
  | 'detected'
  | 'routed'
  | 'answered'
  | 'answered-empty'
  | 'delivering'
  | 'delivered'
  | 'confirmed'
  | 'unconfirmed';

export type Priority = 'low' | 'normal' | 'high';

export interface StoredResponse {
  instructions: string;
  notes: string;
  /** Where the answer came from (`outbox`, `exec`, ...). */
  source: string;
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
  deliveredAt?: string;
  confirmedAt?: string;
  response?: StoredResponse;
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
  updatedAt: string;
}

export const OPEN_STAGES: readonly RequestStage[] = [
  'detected',
  'routed',
  'answered',
  'delivering',
];

export function isOpenStage(stage: RequestStage): boolean {
  return OPEN_STAGES.includes(stage);
}
