import { afterEach, beforeEach } from 'vitest';
import type { BridgeProcess } from './macs.js';
import {
  makeTempHome,
  startTmuxServer,
  type TestTmuxServer,
} from './tmux-server.js';
import { waitFor } from './wait-for.js';

/** What an integration test works with: a private tmux server, a home, its bridges. */
export interface TmuxHarness {
  server: TestTmuxServer;
  home: string;
  /** Bridges started by the test; the harness ends them after each test. */
  bridges: BridgeProcess[];
}

/**
 * Register the set-up every bridge integration test shares: before each test
 * a private tmux server and a temporary home; after it, the test's bridges
 * ended (SIGKILL, or with `gracefulStop` SIGINT and up to 5 s to exit), the
 * server killed and the home removed. Call it inside a `describe`.
 */
export function useTmuxHarness(
  options: { gracefulStop?: boolean } = {},
): TmuxHarness {
  let cleanup: () => void = () => undefined;
  const harness = { bridges: [] as BridgeProcess[] } as TmuxHarness;
  beforeEach(async () => {
    harness.server = await startTmuxServer();
    const made = makeTempHome();
    harness.home = made.home;
    cleanup = made.cleanup;
  });
  afterEach(async () => {
    for (const b of harness.bridges.splice(0)) {
      if (options.gracefulStop) {
        b.child.kill('SIGINT');
        const ended = () =>
          b.child.exitCode !== null || b.child.signalCode !== null;
        await waitFor(ended, { timeout: 5_000 }).catch(() => undefined);
      }
      b.child.kill('SIGKILL');
      await b.exited;
    }
    await harness.server.kill();
    cleanup();
  });
  return harness;
}
