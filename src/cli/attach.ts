import { MacsError } from '../errors.js';
import { SESSION_NAME, readSessionRecord } from '../session/record.js';
import { checkTmux, isSessionRunning } from '../session/tmux-check.js';
import {
  createAttachSession,
  type AttachSession,
} from '../tmux/attach-session.js';
import { buildSelectPaneArgs, buildSelectWindowArgs } from '../tmux/args.js';
import { createTmuxClient } from '../tmux/client.js';
import { endOfAttach } from './attach-end.js';
import { createContext } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';
import {
  hintCommand,
  isOnTerminal,
  resolveSessionSocket,
} from './session-common.js';

/**
 * `macs attach [agent]`: put this terminal on the home's session, the
 * agent's pane selected when one is named; `<host>/<agent>` attaches the
 * host's session over `ssh -t` (docs/remote.md).
 */
export async function runAttach(
  opts: CommonOptions,
  deps: CliDeps,
  agent?: string,
  attach: AttachSession = createAttachSession(deps.env),
): Promise<number> {
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
  const tmux = createTmuxClient(socket, deps.runTmux);
  if (!(await isSessionRunning(tmux))) {
    throw new MacsError(
      `no macs session is running for ${ctx.paths.home} (tmux -L ${socket})`,
      {
        hint: `start one with \`${hintCommand('start', opts, deps)}\`, or try \`${hintCommand('start --demo', opts, deps)}\``,
      },
    );
  }
  if (!isOnTerminal(deps)) {
    throw new MacsError('not on a terminal: attaching needs one', {
      hint: `from a terminal run \`${hintCommand('attach', opts, deps)}\` (or: tmux -L ${socket} attach -t ${SESSION_NAME})`,
    });
  }
  const record = await readSessionRecord(ctx.paths);
  if (agent !== undefined) {
    const pane = record?.agents.find((a) => a.name === agent)?.pane;
    if (!pane)
      throw new MacsError(`no agent '${agent}' in this session`, {
        exitCode: 2,
        hint: `its agents: ${record?.agents.map((a) => a.name).join(', ') || 'none'} (on another host: <host>/<agent>)`,
      });
    await tmux.command(buildSelectWindowArgs(pane));
    await tmux.command(buildSelectPaneArgs(pane));
  }
  const code = await attach({ socket, session: SESSION_NAME });
  return endOfAttach({
    code,
    opts,
    deps,
    paths: ctx.paths,
    socket,
    sessionId: record?.id,
  });
}
