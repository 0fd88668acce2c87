import { execa } from 'execa';
import { TmuxError } from '../errors.js';
import { buildSocketArgs } from './args.js';
import { buildAttachArgs } from './session-args.js';
import { TMUX_INSTALL_HINT } from './run.js';

/** Attach the user's terminal to a session; resolves to tmux's exit code. */
export type AttachSession = (options: {
  socket: string;
  session: string;
}) => Promise<number>;

/**
 * The real attach: tmux runs in the foreground with the user's terminal
 * (stdio inherited) until they detach. `TMUX` is removed from its
 * environment: the session lives on its own server, so attaching from inside
 * another tmux nests the client rather than refusing.
 */
export function createAttachSession(
  env: NodeJS.ProcessEnv = process.env,
): AttachSession {
  const tmuxPath = env.MACS_TMUX ?? 'tmux';
  const childEnv: NodeJS.ProcessEnv = { ...env };
  delete childEnv.TMUX;
  delete childEnv.TMUX_PANE;
  return async ({ socket, session }) => {
    const args = [...buildSocketArgs(socket), ...buildAttachArgs(session)];
    const result = await execa(tmuxPath, args, {
      stdio: 'inherit',
      reject: false,
      env: childEnv,
      extendEnv: false,
    });
    if ((result as { code?: string }).code === 'ENOENT') {
      throw new TmuxError(`tmux not found: could not run '${tmuxPath}'`, {
        hint: TMUX_INSTALL_HINT,
        args,
      });
    }
    return result.exitCode ?? 1;
  };
}
