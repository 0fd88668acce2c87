/**
 * What the live status view (ui/) and the operations it calls share: the
 * view's intents, what they report, and where its snapshots come from.
 */
import type { HostLink } from '../remote/host-link.js';
import type { RequestSnapshot, Snapshot } from '../state/snapshot-schema.js';

/** What an intent reports back to the view (shown on the message line). */
export interface IntentResult {
  ok: boolean;
  message: string;
}

/**
 * What the status view asks the outside world to do. The view never writes
 * files or runs tmux itself: operations/status-intents.ts (and at a hub
 * operations/view-hosts.ts) implement these.
 */
export interface StatusIntents {
  /** Write the answer for a file-backend request (`outbox/<id>.txt`). */
  answer(requestId: string, text: string): Promise<IntentResult>;
  /** Answer in `$EDITOR`; the terminal belongs to the editor meanwhile. */
  editAnswer(request: RequestSnapshot): Promise<IntentResult>;
  /** End a pending request without an answer (`macs dismiss`). */
  dismiss(requestId: string): Promise<IntentResult>;
  /** Pause or resume delivery to an agent. */
  setPaused(agent: string, paused: boolean): Promise<IntentResult>;
  /** Show the agent's pane in tmux. */
  jumpToPane(agent: string, pane: string | null): Promise<IntentResult>;
}

/**
 * One host's link as the view shows it (docs/remote.md): the value every
 * door draws, with its words in the header's short form (remote/host-link.ts).
 */
export interface HostLinkRow extends HostLink {
  /** `h1 up 12 ms`, `h2 down since 2026-11-29T10:02:03Z`, `h3 connecting`. */
  line: string;
}

/** Where the view gets snapshots from (a `SnapshotFeed`, or a fixed one in tests). */
export interface SnapshotSource {
  current(): Snapshot | undefined;
  subscribe(listener: () => void): () => void;
  /** At a hub: each host's link as last read (its agents and requests are in the snapshot). */
  hosts?(): readonly HostLinkRow[];
}
