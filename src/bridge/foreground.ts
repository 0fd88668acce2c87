/**
 * A bridge run in the foreground (`macs bridge`, one pane or a whole
 * session): the bridge assembled (runtime.ts) and started, until Ctrl-C,
 * SIGTERM, the tmux server's end, a crash, or (for a single pane) that pane
 * gone for good; a hub's links to its hosts live as long as it runs.
 */
import { resolveExecArgv } from '../backends/exec-presets.js';
import { MacsError, errorMessage } from '../errors.js';
import { watchTmuxServer } from '../tmux/server-watch.js';
import {
  createBridgeRuntime,
  type BridgeRuntime,
  type BridgeRuntimeOptions,
} from './runtime.js';

export interface ForegroundBridge extends Omit<BridgeRuntimeOptions, 'exec'> {
  /** `--exec` and `--exec-preset`, resolved with the config's. */
  execFlags: { flagExec?: string[]; flagPreset?: string };
  /** Resolves when the person interrupts (SIGINT) or the process is told to end. */
  interrupted: Promise<'SIGINT' | 'SIGTERM'>;
  /** Links kept while the bridge runs (a hub's to its hosts), closed at its end. */
  startLinks?: () => { close(): Promise<void> };
  /** Told once the bridge runs (the CLI says what runs). */
  onStarted: (bridge: BridgeRuntime) => void;
}

/**
 * Run the bridge until it is told to stop: the signal that stopped it. The
 * tmux server's end, a single pane gone and a crash reject (each says why);
 * the bridge is stopped, its links closed, either way.
 */
export async function runForegroundBridge(
  run: ForegroundBridge,
): Promise<'SIGINT' | 'SIGTERM'> {
  const exec = resolveExecArgv({ ...run.execFlags, config: run.config });
  const bridge = await createBridgeRuntime({
    paths: run.paths,
    config: run.config,
    tmux: run.tmux,
    log: run.log,
    roster: run.roster,
    ...(exec ? { exec } : {}),
    ...(run.single ? { single: true } : {}),
    ...(run.onEvent ? { onEvent: run.onEvent } : {}),
    onNotice: run.onNotice,
  });
  const links = run.startLinks?.();
  try {
    await bridge.start();
    run.onStarted(bridge);
    return await waitForEnd(run, bridge);
  } finally {
    await links?.close();
    await bridge.stop();
  }
}

/** Until Ctrl-C, SIGTERM, the tmux server's end, the single pane's, or a crash. */
async function waitForEnd(
  run: ForegroundBridge,
  bridge: BridgeRuntime,
): Promise<'SIGINT' | 'SIGTERM'> {
  const server = watchTmuxServer(run.tmux);
  const crash = watchCrash();
  try {
    return await Promise.race([
      run.interrupted,
      server.gone,
      bridge.paneGone,
      crash.crashed,
    ]);
  } finally {
    server.stop();
    crash.stop();
  }
}

/**
 * A bug in a long-running command's own code (an exception no caller
 * catches) must still take the orderly way out: `crashed` rejects, the
 * command's `finally` stops its bridge (closing its pane pipes), and main
 * reports the error with exit 1.
 */
export function watchCrash(): { crashed: Promise<never>; stop: () => void } {
  let fail: (error: Error) => void = () => undefined;
  const crashed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  crashed.catch(() => undefined);
  const onCrash = (error: unknown) => {
    fail(
      new MacsError(`internal error: ${errorMessage(error)}`, {
        cause: error,
        hint: 'the bridge stopped cleanly; run it with --log-level debug and report .macs/macs.log',
      }),
    );
  };
  process.on('uncaughtException', onCrash);
  return {
    crashed,
    stop: () => process.off('uncaughtException', onCrash),
  };
}
