import { buildSnapshot } from '../state/snapshot.js';
import { createContext, loadConfigOrDefaults } from './common.js';
import type { CliDeps } from './options.js';
import { probeTmuxServer } from '../tmux/probe.js';
import type { StatusDeps, StatusOptions, StatusTerminal } from './types.js';

/** This process's terminal. */
export function processTerminal(): StatusTerminal {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  };
}

/**
 * `macs status`: the live view on a terminal; one JSON snapshot with
 * `--json`; a plain-text summary without a terminal. `--watch` keeps the
 * non-terminal forms going, one output per change.
 */
export async function runStatus(
  opts: StatusOptions,
  deps: CliDeps,
  statusDeps: StatusDeps = {},
): Promise<number> {
  const ctx = createContext(opts, deps);
  const { config } = await loadConfigOrDefaults(ctx, opts, deps);
  const terminal = statusDeps.terminal ?? processTerminal();
  // A hub's hosts (docs/remote.md): `remote` in the JSON, lines in the text.
  const remote =
    Object.keys(config.hosts).length === 0 || (opts.watch ?? false)
      ? undefined
      : await import('./status-remote.js').then((m) =>
          m.readRemoteStatus(ctx, config, deps),
        );
  if (opts.json && !opts.watch) {
    const snapshot = await buildSnapshot(ctx.paths, new Date(), {
      prices: config.prices,
      serverUp: probeTmuxServer(deps.runTmux),
    });
    deps.output.json(remote ? { ...snapshot, remote: remote.json } : snapshot);
    return 0;
  }
  if (!terminal.interactive && !opts.watch) {
    const { formatStatusText } = await import('./status-text.js');
    for (const line of formatStatusText(
      await buildSnapshot(ctx.paths, new Date(), {
        prices: config.prices,
        serverUp: probeTmuxServer(deps.runTmux),
      }),
      Date.now(),
    ))
      deps.output.out(line);
    for (const line of remote?.lines ?? []) deps.output.out(line);
    return 0;
  }
  // The live view and the --watch streams, loaded only for them: a snapshot
  // printed once needs none of it (start-up).
  const { runLiveStatus } = await import('./status-live.js');
  return runLiveStatus({ opts, deps, ctx, config, terminal, statusDeps });
}
