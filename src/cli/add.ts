import { createEventLog } from '../events/log.js';
import { addAgent } from '../session/change-agents.js';
import { createContext } from './common.js';
import { forwardIfRemote } from './remote.js';
import type { CliDeps, CommonOptions } from './options.js';
import { hintCommand, openRunningSession } from './session-common.js';

export interface AddOptions extends CommonOptions {
  /** A host of the config: the worker is added to its session (docs/remote.md). */
  host?: string;
  name?: string;
  command?: string;
  cwd?: string;
}

/** `macs add <preset>`: a new worker in the running session. */
export async function runAdd(
  preset: string,
  opts: AddOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps);
  if (opts.host !== undefined) {
    const argv = [
      'add',
      preset,
      ...(opts.name ? ['--name', opts.name] : []),
      ...(opts.command ? ['--command', opts.command] : []),
      ...(opts.cwd ? ['--cwd', opts.cwd] : []),
    ];
    const forwarded = await forwardIfRemote(
      `${opts.host}/${opts.name ?? 'new'}`,
      'agent',
      ctx,
      deps,
      () => argv,
    );
    return forwarded ?? 2;
  }
  const { config } = await ctx.loadConfig();
  const { record, tmux } = await openRunningSession(opts, deps, ctx.paths);
  const { entry, warnings } = await addAgent(
    {
      tmux,
      paths: ctx.paths,
      record,
      config,
      events: createEventLog(ctx.paths),
      log: ctx.log.child({ component: 'add' }),
    },
    {
      preset,
      ...(opts.name ? { name: opts.name } : {}),
      ...(opts.command ? { command: opts.command } : {}),
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    },
  );
  deps.output.out(
    `added ${entry.name} (preset ${entry.preset}) in pane ${entry.pane}: ${entry.command.join(' ').slice(0, 80)}`,
  );
  deps.output.out(
    `  the session's bridge supervises it within a few seconds; watch: ${hintCommand('status', opts, deps)}`,
  );
  for (const warning of warnings) deps.output.err(`warning: ${warning}`);
  return 0;
}
