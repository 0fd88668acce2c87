// `macs attach`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { MacsError } from '../errors.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { Command } from 'commander';
import type { AttachSession } from '../tmux/attach-session.js';
import type { AttachTarget } from '../session/attach-target.js';

/**
 * `macs attach [agent]`: put this terminal on the home's session, the
 * agent's pane selected when one is named (session/attach-target.ts);
 * `<host>/<agent>` attaches the host's session over `ssh -t`
 * (docs/remote.md).
 */
export async function runAttach(
  opts: CommonOptions,
  deps: CliDeps,
  agent?: string,
  attach?: AttachSession,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { SESSION_NAME },
    { checkTmux },
    { prepareAttach },
    { createAttachSession },
    { endOfAttach },
    { createContext },
    { hintCommand, isOnTerminal, resolveSessionSocket },
  ] = await Promise.all([
    import('../session/record.js'),
    import('../session/tmux-check.js'),
    import('../session/attach-target.js'),
    import('../tmux/attach-session.js'),
    import('./attach-end.js'),
    import('./common.js'),
    import('./session-common.js'),
  ]);
  attach ??= createAttachSession(deps.env);
  const ctx = createContext(opts, deps);
  // A broken config is an error here too (exit 2).
  const { config } = await ctx.loadConfig();
  if (agent?.includes('/'))
    return (await import('./attach-remote.js')).attachOnHost(
      agent,
      config,
      deps,
    );
  await checkTmux(deps.runTmux);
  const socket = await resolveSessionSocket(opts, ctx.paths, deps.env);
  const target = await prepareAttach({
    ...{ paths: ctx.paths, socket, runTmux: deps.runTmux, agent },
    onTerminal: isOnTerminal(deps),
  });
  if (target.type !== 'ready')
    throw attachRefusal(
      target,
      { socket, home: ctx.paths.home, agent, session: SESSION_NAME },
      (c) => hintCommand(c, opts, deps),
    );
  const code = await attach({ socket, session: SESSION_NAME });
  const { paths } = ctx;
  const { sessionId } = target;
  return endOfAttach({ code, opts, deps, paths, socket, sessionId });
}

/** Why the attach cannot go on, said with the commands that would help. */
function attachRefusal(
  target: Exclude<AttachTarget, { type: 'ready' }>,
  where: {
    socket: string;
    home: string;
    agent: string | undefined;
    session: string;
  },
  hint: (command: string) => string,
): MacsError {
  const { socket } = where;
  switch (target.type) {
    case 'no-session':
      return new MacsError(
        `no macs session is running for ${where.home} (tmux -L ${socket})`,
        {
          hint: `start one with \`${hint('start')}\`, or try \`${hint('start --demo')}\``,
        },
      );
    case 'not-on-terminal':
      return new MacsError('not on a terminal: attaching needs one', {
        hint: `from a terminal run \`${hint('attach')}\` (or: tmux -L ${socket} attach -t ${where.session})`,
      });
    case 'no-agent':
      return new MacsError(`no agent '${where.agent ?? ''}' in this session`, {
        exitCode: 2,
        hint: `its agents: ${target.agents.join(', ') || 'none'} (on another host: <host>/<agent>)`,
      });
  }
}

export function registerAttachCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('attach')
      .argument(
        '[agent]',
        "select this agent's pane; <host>/<agent>: over ssh -t on that host",
      )
      .description(
        "attach this terminal to the home's session (detach again: tmux prefix, then d)",
      ),
  ).action((agent: string | undefined, opts: CommonOptions) =>
    run(runAttach(opts, deps, agent)),
  );
}
