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
  const [{ stopHostSessions }, { createContext }] = await Promise.all([
    import('./host-start.js'),
    import('./common.js'),
  ]);
  // The hosts' sessions first (each by its own macs), then this one's.
  const hosts = await stopHostSessions(
    createContext(opts, deps),
    deps,
    opts.host,
  );
  if (opts.host !== undefined) return hosts ?? 2;
  return Math.max(await stopLocal(opts, deps), hosts ?? 0);
}

async function stopLocal(opts: StopOptions, deps: CliDeps): Promise<number> {
  const [
    { createEventLog },
    { readSessionRecord },
    { listOpenRequests },
    { checkTmux },
    { stopSession },
    { createTmuxClient },
    { createContext },
    { hintCommand, resolveSessionSocket },
  ] = await Promise.all([
    import('../events/log.js'),
    import('../session/record.js'),
    import('../state/pending.js'),
    import('../session/tmux-check.js'),
    import('../session/stop-session.js'),
    import('../tmux/client.js'),
    import('./common.js'),
    import('./session-common.js'),
  ]);
  const ctx = createContext(opts, deps);
  await checkTmux(deps.runTmux);
  let graceSec: number;
  if (opts.graceSec !== undefined) {
    graceSec = Number(opts.graceSec);
    if (!Number.isFinite(graceSec) || graceSec < 0)
      throw new ConfigError(
        `--grace-sec '${opts.graceSec}' is not a number of seconds`,
      );
  } else {
    // A broken config must not keep a session from being stopped: said, not fatal.
    graceSec = await ctx
      .loadConfig()
      .then(({ config }) => config.stopGraceSec)
      .catch((error: unknown) => {
        deps.output.err(
          `warning: ${errorMessage(error)}; stopping with the default grace of ${DEFAULT_GRACE_SEC}s`,
        );
        return DEFAULT_GRACE_SEC;
      });
  }
  const record = await readSessionRecord(ctx.paths);
  const socket = await resolveSessionSocket(opts, ctx.paths, deps.env, record);
  const tmux = createTmuxClient(socket, deps.runTmux);
  const result = await stopSession({
    tmux,
    paths: ctx.paths,
    graceMs: graceSec * 1000,
    events: createEventLog(ctx.paths),
    log: ctx.log.child({ component: 'stop' }),
    ...(record ? { record } : {}),
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
  const open = (await listOpenRequests(ctx.paths)).length;
  if (open > 0)
    out(
      `  ${open} request(s) are still open: they expire at the next start (see them: ${hintCommand('inbox', opts, deps)}; end them now: ${hintCommand('dismiss <id>', opts, deps)})`,
    );
  return 0;
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
