import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import {
  FAKE_AGENT,
  FAKE_CONTROLLER,
  runMacs,
  startBridge,
  type BridgeProcess,
  type Step,
} from './macs.js';
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
  /**
   * Start `macs bridge ARGS` on the harness's server and home, with `env`
   * added to its environment; the harness ends it after the test.
   */
  startBridge(args: string[], env?: Record<string, string>): BridgeProcess;
  /**
   * Start the fake agent in a new pane with `script` (written to the home),
   * recording what it reads; `extra` is added to its arguments, `cwd` is the
   * pane's folder. Its files are `<name>.script.json` and
   * `<name>.record.jsonl` in the home when `name` is given, else
   * `script-<random>.json` and `record-<random>.jsonl`.
   */
  startWorker(
    script: Step[],
    options?: { extra?: string[]; cwd?: string; name?: string },
  ): Promise<{ pane: string; record: string }>;
  /**
   * Start the fake controller in a new pane with `args`, recording what it
   * reads to `controller-<random>.jsonl` in the home; resolves once it is ready.
   */
  startController(args?: string[]): Promise<{ pane: string; record: string }>;
  /** Tag a pane as agent `agent` (its `@macs_agent` option), as `macs start` does. */
  tagAgent(pane: string, agent: string): Promise<void>;
  /** Answer a request with `macs respond ID TEXT`, which must succeed. */
  respond(id: string, text: string): Promise<void>;
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
  // server and home are set before each test.
  const harness = {
    bridges: [] as BridgeProcess[],
    startBridge(args, env) {
      const b = startBridge(args, {
        home: harness.home,
        socket: harness.server.socket,
        ...(env ? { env } : {}),
      });
      harness.bridges.push(b);
      return b;
    },
    async startWorker(script, { extra = [], cwd, name } = {}) {
      const { server, home } = harness;
      const tag = Math.random().toString(36).slice(2);
      const record = path.join(
        home,
        name ? `${name}.record.jsonl` : `record-${tag}.jsonl`,
      );
      const scriptFile = path.join(
        home,
        name ? `${name}.script.json` : `script-${tag}.json`,
      );
      writeFileSync(scriptFile, JSON.stringify(script));
      const pane = await server.spawnPane(
        [
          process.execPath,
          FAKE_AGENT,
          '--script',
          scriptFile,
          '--record',
          record,
          ...extra,
        ],
        cwd ? { cwd } : {},
      );
      return { pane, record };
    },
    async startController(args = []) {
      const { server, home } = harness;
      const tag = Math.random().toString(36).slice(2);
      const record = path.join(home, `controller-${tag}.jsonl`);
      const pane = await server.spawnPane([
        process.execPath,
        FAKE_CONTROLLER,
        '--record',
        record,
        ...args,
      ]);
      await waitFor(
        async () =>
          (await server.capture(pane)).includes('fake-controller ready'),
        { timeout: 10_000, message: 'controller ready' },
      );
      return { pane, record };
    },
    async tagAgent(pane, agent) {
      await harness.server.tmux(
        'set-option',
        '-p',
        '-t',
        pane,
        '@macs_agent',
        agent,
      );
    },
    async respond(id, text) {
      const result = await runMacs(['respond', id, text], {
        home: harness.home,
        socket: harness.server.socket,
      });
      expect(result.exitCode, result.stderr).toBe(0);
    },
  } as TmuxHarness;
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
