/**
 * Types the operations and the doors share (the MCP tools, the page of
 * `macs web`, the forwarding at a hub): kept here so that no module imports
 * another only for a type (no import cycle), and the page's bundle only
 * types.
 */
import type { HubAnswerBy } from '../protocol/approval.js';
import type { RemoteAgent, RemoteRequest } from '../remote/remote-fleet.js';

/** What a pane shows now (operations/agent-screen.ts). */
export interface AgentScreen {
  agent: string;
  pane: string;
  dead: boolean;
  width: number;
  height: number;
  /** Sanitized text lines, trailing blank lines dropped. */
  lines: string[];
}

/** What `wait_for_request` returns as `notice`. */
export interface BudgetNotice {
  notice: 'budget';
  agent: string;
  /** Whose budget: the agent's own, or the session's (every agent paused). */
  scope: 'agent' | 'session';
  percent: number;
  paused: true;
  pausedAt: string;
  budget?: { usd?: number; tokens?: number };
  spentTokens?: number;
  spentUsd?: number | null;
}

/**
 * What a tool handler of `macs mcp` gives back (here, or a host's at a
 * hub): text for the model, data for programs.
 */
export interface ToolOutput {
  text: string;
  data: Record<string, unknown>;
  /** The agent the call was about (its events file), when there is one. */
  agent?: string;
  requestId?: string;
  /** Extra fields for the `mcp.call` event. */
  event?: Record<string, unknown>;
}

export interface RemoteTools {
  /**
   * The tool's output when the call is about a host's agent or request.
   * `by`: who answers at the hub (default: the hub's controller, as the
   * tool's own name says); a `by` in `args` is never passed on.
   */
  forward: (
    tool: string,
    args: Record<string, unknown>,
    by?: HubAnswerBy,
  ) => Promise<ToolOutput | undefined>;
  /** Every reachable host's agents, and a line per host that is not. */
  agents: () => Promise<{ agents: RemoteAgent[]; down: string[] }>;
  requests: () => Promise<{ requests: RemoteRequest[]; down: string[] }>;
  /**
   * Resolves when a host has a waiting request (of `agent`/`type`, hub
   * names) that `exclude` does not name: each host's own wait_for_request
   * runs on its link until then, or until `signal` aborts.
   */
  wake: (
    filter: { agent?: string; type?: string; exclude: readonly string[] },
    signal: AbortSignal,
  ) => Promise<void>;
  /**
   * A budget notice a host's wait_for_request returned (its agent named at
   * the hub), not told yet: of `agent` when given. A host's notice also
   * wakes `wake`.
   */
  takeNotice: (agent?: string) => BudgetNotice | undefined;
}
