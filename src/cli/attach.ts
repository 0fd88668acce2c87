import { MacsError } from '../errors.js';
import { SESSION_NAME, readSessionRecord } from '../session/record.js';
import { checkTmux, isSessionRunning } from '../session/tmux-check.js';
import { createAttachSession, type AttachSession } from '../tmux/attach.js';
import { createTmuxClient } from '../tmux/client.js';
import { endOfAttach } from './attach-end.js';
import { createContext } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';
import {
  hintCommand,
  isOnTerminal,
  resolveSessionSocket,
} from './session-common.js';

/** `macs attach`: put this terminal on the home's session. */
export async function runAttach(
  opts: CommonOptions,
  deps: CliDeps,
  attach: AttachSession = createAttachSession(deps.env),
): Promise<number> {
  const ctx = createContext(opts, deps);
  await ctx.loadConfig(); // a broken config is an error here too (exit 2)
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
