/**
 * What the server of `macs web` and its page say to each other over the
 * socket, and the shape of the fleet the page draws. Types only: the page
 * (page/) and the server both import them.
 */
import type { AgentScreen } from '../operations/types.js';
import type { HostLink } from '../remote/host-link.js';
import type {
  AgentSnapshot,
  ApprovalSnapshot,
  EventSnapshot,
  RequestSnapshot,
  SessionSnapshot,
} from '../state/snapshot-schema.js';

/** One step of a request's path, with when it happened. */
export interface PathStep {
  stage: string;
  at: string;
}

/** A request's path (detected -> routed -> answered -> delivered -> confirmed). */
export interface RequestPath {
  id: string;
  agent: string;
  firstLine: string;
  steps: PathStep[];
}

/**
 * A host of the hub (docs/remote.md) as the page shows it: its link, the
 * value every door draws, with its words said by the server (the page
 * draws `line` as it is, the words of `macs hosts`: remote/host-link.ts).
 */
export interface HostSummary extends HostLink {
  line: string;
}

/** The fleet as the page shows it. */
export interface FleetView {
  generatedAt: string;
  home: string;
  session: SessionSnapshot;
  totals: {
    agents: number;
    pending: number;
    waitingForPerson: number;
    paused: number;
  };
  agents: AgentSnapshot[];
  /** Pending requests, those waiting for a person first. */
  requests: RequestSnapshot[];
  approvals: ApprovalSnapshot[];
  /** Recent events, newest first. */
  events: EventSnapshot[];
  /** Recent requests' paths, newest first. */
  paths: RequestPath[];
  /** The config's hosts (empty without `hosts`); their agents are among `agents`. */
  hosts: HostSummary[];
  /** Whether the page may type messages into panes (`--allow-send`). */
  allowSend: boolean;
}

/** An agent's screen as the page draws it, or why there is none. */
export type ScreenView = AgentScreen | { agent: string; error: string };

/** Server -> page. */
export type ServerMessage =
  { type: 'fleet'; fleet: FleetView } | { type: 'screen'; screen: ScreenView };

/** Page -> server: which agents' screens to stream. */
export interface ClientMessage {
  type: 'screens';
  agents: string[];
}

/** The reply to an action. */
export interface ActionReply {
  ok: boolean;
  message: string;
}
