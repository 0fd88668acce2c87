// `macs status`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { addCommonOptions, type CliDeps } from './options.js';
import type { Command } from 'commander';
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
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { buildSnapshot },
    { createContext, loadConfigOrDefaults },
    { probeTmuxServer },
  ] = await Promise.all([
    import('../state/snapshot.js'),
    import('./common.js'),
    import('../tmux/probe.js'),
  ]);
  const ctx = createContext(opts, deps);
  const { config } = await loadConfigOrDefaults(ctx, opts, deps);
  const terminal = statusDeps.terminal ?? processTerminal();
  // A hub's hosts (docs/remote.md): `remote` in the JSON; in the text, the
  // fleet with them (one model) and their links.
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
    const snapshot = await buildSnapshot(ctx.paths, new Date(), {
      prices: config.prices,
      serverUp: probeTmuxServer(deps.runTmux),
    });
    const lines = remote
      ? (await import('./status-remote.js')).formatHubStatus(
          snapshot,
          remote.views,
          Date.now(),
        )
      : (await import('../ui/status-text.js')).formatStatusText(
          snapshot,
          Date.now(),
        );
    for (const line of lines) deps.output.out(line);
    return 0;
  }
  // The live view and the --watch streams, loaded only for them: a snapshot
  // printed once needs none of it (start-up).
  const { runLiveStatus } = await import('./status-live.js');
  return runLiveStatus({ opts, deps, ctx, config, terminal, statusDeps });
}

export function registerStatusCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('status')
      .description(
        'the status view: agents, pending requests, answers and events (one JSON snapshot with --json)',
      )
      .option('--json', 'print one snapshot as JSON (schema: docs/status.md)')
      .option(
        '--watch',
        'keep going: the live view (the default on a terminal); without a terminal or with --json, print again on each change',
      )
      .addHelpText(
        'after',
        `
On a terminal, the live view: arrows or j/k select, enter shows the detail,
r answers the selected request inline (Ctrl-D sends, Esc cancels), e answers
it in $EDITOR, p pauses or resumes delivery to the agent, a jumps to the
agent's pane, ? lists every key, q quits.

Examples:
  macs status
  macs status --json | jq '.requests[] | select(.waitingForPerson) | .id'
  macs status --json --watch     # one JSON snapshot per line, on each change`,
      ),
  ).action((opts: StatusOptions) => run(runStatus(opts, deps)));
}
