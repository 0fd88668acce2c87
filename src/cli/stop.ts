// `macs stop`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { Option, type Command } from 'commander';
import { ConfigError, errorMessage } from '../errors.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { StoppedPane } from '../session/stop-panes.js';

export interface StopOptions extends CommonOptions {
  graceSec?: string;
  /** Only this host's session (docs/remote.md). */
  host?: string;
}

const DEFAULT_GRACE_SEC = 5;

function describeEnding(pane: StoppedPane): string {
  switch (pane.ended) {
    case 'exited':
      return 'exited when interrupted';
    case 'hung-up':
      return 'exited when hung up (a shell at its prompt)';
    case 'killed':
      return 'did not exit in time; pane killed';
    case 'already-exited':
      return 'had already exited';
    default: {
      const never: never = pane.ended;
      return String(never);
    }
  }
}

/**
 * `macs stop`: end the session of this home (the bridge first, then the agents
 * and the status view, then the tmux server). With no session running it
 * says so and succeeds.
 */
export async function runStop(
  opts: StopOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [{ stopOnHosts }, { createContext }, { printHosts }] =
    await Promise.all([
      import('../operations/host-sessions.js'),
      import('./common.js'),
      import('./host-lines.js'),
    ]);
  const ctx = createContext(opts, deps);
  // The hosts' sessions first (each by its own macs), then this one's.
  const config = await ctx
    .loadConfig()
    .then((c) => c.config)
    .catch(() => undefined);
  const hosts = await stopOnHosts(config, deps.env, opts.host);
  if (hosts) printHosts(hosts, deps);
  if (opts.host !== undefined) return hosts?.code ?? 2;
  return Math.max(await stopLocal(opts, deps), hosts?.code ?? 0);
}

async function stopLocal(opts: StopOptions, deps: CliDeps): Promise<number> {
  const [
    { stopHomeSession },
    { checkTmux },
    { createContext },
    { hintCommand },
  ] = await Promise.all([
    import('../session/stop-home.js'),
    import('../session/tmux-check.js'),
    import('./common.js'),
    import('./session-common.js'),
  ]);
  const ctx = createContext(opts, deps);
  await checkTmux(deps.runTmux);
  const graceSec = await stopGrace(opts, deps, ctx);
  const { socket, result, open } = await stopHomeSession({
    home: ctx,
    runTmux: deps.runTmux,
    env: deps.env,
    ...(opts.tmuxSocket ? { tmuxSocket: opts.tmuxSocket } : {}),
    graceSec,
  });
  const out = deps.output.out;
  if (!result.running) {
    out(
      `no macs session is running for ${ctx.paths.home} (tmux -L ${socket}); nothing to stop`,
    );
    return 0;
  }
  out(`macs: stopped the session in ${ctx.paths.home} (tmux -L ${socket})`);
  for (const pane of [...result.agents, ...result.windows])
    out(
      `  ${pane.name.padEnd(12)} ${pane.pane.padEnd(4)} ${describeEnding(pane)}`,
    );
  if (result.leftovers.length > 0)
    out(
      `  ended ${result.leftovers.length} leftover process(es): ${result.leftovers.join(' ')}`,
    );
  out(
    '  the tmux server is gone; worktrees, inbox/, archive/ and .macs/ are kept',
  );
  if (open > 0)
    out(
      `  ${open} request(s) are still open: they expire at the next start (see them: ${hintCommand('inbox', opts, deps)}; end them now: ${hintCommand('dismiss <id>', opts, deps)})`,
    );
  return 0;
}

/**
 * How long each program gets to exit: `--grace-sec`, else the config's
 * stopGraceSec. A broken config must not keep a session from being
 * stopped: said, not fatal.
 */
async function stopGrace(
  opts: StopOptions,
  deps: CliDeps,
  ctx: { loadConfig: () => Promise<{ config: { stopGraceSec: number } }> },
): Promise<number> {
  if (opts.graceSec === undefined)
    return ctx
      .loadConfig()
      .then(({ config }) => config.stopGraceSec)
      .catch((error: unknown) => {
        deps.output.err(
          `warning: ${errorMessage(error)}; stopping with the default grace of ${DEFAULT_GRACE_SEC}s`,
        );
        return DEFAULT_GRACE_SEC;
      });
  const graceSec = Number(opts.graceSec);
  if (!Number.isFinite(graceSec) || graceSec < 0)
    throw new ConfigError(
      `--grace-sec '${opts.graceSec}' is not a number of seconds`,
    );
  return graceSec;
}

export function registerStopCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('stop')
      .description(
        'end the session: the bridge stops, each agent gets the interrupt key (a shell at its prompt a hang-up) and its pane is killed after a grace period, then the status view and the tmux server go',
      )
      .addOption(
        new Option(
          '--grace-sec <seconds>',
          'how long each program gets to exit after the interrupt key (default: stopGraceSec, 5)',
        ).env('MACS_STOP_GRACE_SEC'),
      )
      .option(
        '--host <name>',
        "stop only this host's session (a host of macs.config.json, docs/remote.md)",
      ),
  ).action((opts: StopOptions) => run(runStop(opts, deps)));
}
