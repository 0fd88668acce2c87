/**
 * `macs start` at a hub (docs/remote.md): each host of the config starts
 * its own session (its own macs over ssh, host-sessions.ts) while this
 * machine's starts (session/new-session.ts). Nothing of one waits for the
 * other: a hub no longer waits for its hosts before starting its own agents.
 */
import type { MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import {
  launchNewSession,
  type LaunchedSession,
  type NewSession,
} from '../session/new-session.js';
import type { ExpiryReport } from '../session/session-requests.js';
import type { HostsOutcome } from './host-sessions.js';

/** What `macs start` started: this machine's session, or only the hosts'. */
export type FleetStart =
  | { kind: 'hosts-only'; code: number }
  | { kind: 'started'; session: LaunchedSession };

/** What a start says while it runs. */
export interface FleetProgress {
  /** The earlier session's requests that expired, before the agents start. */
  onExpiry: (report: ExpiryReport) => void;
  /**
   * What the hosts said, once each has finished (before this machine's
   * summary; also when this machine's start failed).
   */
  onHosts: (outcome: HostsOutcome) => void;
}

/**
 * Start the hosts' sessions (unless `withHosts` is false: the demo) and
 * this machine's, in parallel. A hub with no workers of its own starts
 * only its hosts'.
 */
export async function startFleet(
  s: NewSession,
  withHosts: boolean,
  progress: FleetProgress,
): Promise<FleetStart> {
  const hosts = withHosts ? startOnHosts(s.config, s.inv.env) : undefined;
  if (hosts && localWorkers(s.config).length === 0) {
    const outcome = await hosts;
    progress.onHosts(outcome);
    return { kind: 'hosts-only', code: outcome.code };
  }
  let reported = false;
  const reportHosts = async () => {
    if (!hosts || reported) return;
    reported = true;
    progress.onHosts(await hosts);
  };
  try {
    const session = await launchNewSession(s, progress.onExpiry);
    await reportHosts();
    return { kind: 'started', session };
  } finally {
    // Also when this machine's start failed: what the hosts did is said.
    await reportHosts();
  }
}

/**
 * Each host of the config starts its own session, at once and in parallel
 * (host-sessions.ts, loaded only when there are hosts); undefined when the
 * config names none.
 */
function startOnHosts(
  config: MacsConfig,
  env: NodeJS.ProcessEnv,
): Promise<HostsOutcome> | undefined {
  if (Object.keys(config.hosts).length === 0) return undefined;
  const running = import('./host-sessions.js').then(({ runOnHosts }) =>
    runOnHosts('start', config, env),
  );
  // Awaited by the caller; a rejection meanwhile is not unhandled.
  running.catch(() => undefined);
  return running;
}
