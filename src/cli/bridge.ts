/**
 * `macs bridge`: parse its options, take the roster of one pane
 * (session/pane-roster.ts) or of the session (`--all`, bridge-all.ts), and
 * run the bridge (bridge-runtime.ts).
 */
// Only the flags load with the program (`macs --help` starts at once);
// what the run needs is imported when it runs.
import { Option, type Command } from 'commander';
import { addCommonOptions, type CliDeps } from './options.js';
import type { BridgeOptions } from './bridge-options.js';

/**
 * Run one bridge in the foreground for an existing pane: detect requests,
 * route them to their backends, deliver answers, until interrupted.
 */
export async function runBridge(
  opts: BridgeOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { createPaneRoster },
    { impliedBackend },
    { runBridgeRuntime },
    { createContext },
  ] = await Promise.all([
    import('../session/pane-roster.js'),
    import('./bridge-options.js'),
    import('./bridge-runtime.js'),
    import('./common.js'),
  ]);
  const ctx = createContext(opts, deps, { longLived: true, create: true });
  try {
    const backendFlag = impliedBackend(opts);
    const { config } = await ctx.loadConfig({
      ...(backendFlag ? { backend: backendFlag } : {}),
      ...(opts.split === false ? { noSplit: true } : {}),
      ...(opts.heuristics ? { heuristics: true } : {}),
      ...(opts.nonInteractive ? { nonInteractive: true } : {}),
    });
    const roster = await createPaneRoster({
      ...(opts.workerPane ? { pane: opts.workerPane } : {}),
      ...(opts.agent ? { agent: opts.agent } : {}),
      ...(opts.preset ? { preset: opts.preset } : {}),
      ...(opts.controllerPane ? { controllerPane: opts.controllerPane } : {}),
      config,
      tmux: ctx.tmux,
      paths: ctx.paths,
    });
    const agent = roster.agents[0]?.name ?? '?';
    return await runBridgeRuntime({
      opts,
      deps,
      ctx,
      tmux: ctx.tmux,
      config,
      roster,
      single: true,
      logFields: { agent },
      banner: () => [
        `macs bridge: supervising ${agent} (pane ${roster.pane}, preset ${roster.preset.name}) with the ${config.backend} backend in ${ctx.paths.home}`,
      ],
    });
  } finally {
    await ctx.tmux.close();
  }
}

/** `macs bridge`: one agent's pane, or with `--all` every agent of the session. */
export async function runBridgeCommand(
  opts: BridgeOptions,
  deps: CliDeps,
): Promise<number> {
  if (!opts.all) return runBridge(opts, deps);
  const { runBridgeAll } = await import('./bridge-all.js');
  return runBridgeAll(opts, deps);
}

export function registerBridgeCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('bridge')
      .description(
        'supervise a worker pane: detect its requests, route them, deliver the answers',
      )
      .addOption(
        new Option(
          '--worker-pane <pane>',
          "the worker's tmux pane id, e.g. %3",
        ).env('MACS_WORKER_PANE'),
      )
      .addOption(
        new Option(
          '--agent <name>',
          "the agent's name (default: the pane's @macs_agent tag, else worker-<N>)",
        ).env('MACS_AGENT'),
      )
      .addOption(
        new Option(
          '--preset <name>',
          "the agent's preset (default: from the config, else detected from the pane's program)",
        ).env('MACS_PRESET'),
      )
      .addOption(
        new Option(
          '--backend <backend>',
          'who answers: file (outbox/<id>.txt), exec (a command per request), interactive (the controller pane); default: implied by --exec or --controller-pane, else file',
        )
          .choices(['file', 'exec', 'interactive'])
          .env('MACS_BACKEND'),
      )
      .addOption(
        new Option(
          '--exec <arg>',
          'the exec command, one argument per --exec (no shell), or a JSON array: --exec \'["claude","-p"]\'',
        )
          .argParser((value: string, previous: string[] | undefined) => [
            ...(previous ?? []),
            value,
          ])
          .env('MACS_EXEC'),
      )
      .addOption(
        new Option('--exec-preset <name>', 'a ready-made exec command')
          .choices(['codex', 'claude', 'gemini'])
          .env('MACS_EXEC_PRESET'),
      )
      .addOption(
        new Option(
          '--controller-pane <pane>',
          "the live controller agent's pane, e.g. %1 (the interactive backend)",
        ).env('MACS_CONTROLLER_PANE'),
      )
      .option(
        '--all',
        'supervise every agent of the session (.macs/session.json, @macs_agent panes) from this one process',
      )
      .option('--no-split', 'send the whole response, notes included')
      .option(
        '--heuristics',
        'also make requests (type=heuristic) when an idle worker asks a question without a request block (MACS_HEURISTICS=1; config "heuristics")',
      )
      .option(
        '--non-interactive',
        'run unattended: answer every request at once, nobody asked (MACS_NON_INTERACTIVE=1; config "nonInteractive")',
      )
      .option('--quiet', 'do not print events as they happen'),
  )
    .addHelpText(
      'after',
      `
Examples:
  macs bridge --worker-pane %3 --agent worker-1 --backend file
  macs bridge --worker-pane %3 --exec-preset claude
  macs bridge --worker-pane %3 --exec my-answerer --exec --flag \\
    --exec '{promptFile}'
  macs bridge --worker-pane %3 --controller-pane %1
  macs bridge --agent worker-1   (finds the pane: pinned, @macs_agent, title,
                                 program)
  macs bridge --all              (every agent of the session of macs start)

Routing by request type, fallback and the loop guards: see docs/backends.md.

The bridge prints each event (detected, routed, answered, delivered) and keeps
its state in .macs/, so a restarted bridge carries on where it stopped.
Exit: 0 stopped, 1 failure, 2 bad usage or config, 3 tmux missing or
unreachable, 130 interrupted.`,
    )
    .action((opts: BridgeOptions) => run(runBridgeCommand(opts, deps)));
}
