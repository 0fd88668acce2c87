// What the session's commands share at the door: whether to attach, and
// how macs was run (for hints). The rest lives in session/.
import type { Invocation } from '../session/self-command.js';
import type { CliDeps, CommonOptions } from './options.js';

export { hintCommand } from '../session/self-command.js';
export { resolveSessionSocket } from '../session/session-socket.js';

/** Both ends of the terminal are a TTY (attaching makes sense). */
export function isOnTerminal(deps: Pick<CliDeps, 'stdinIsTTY'>): boolean {
  return deps.stdinIsTTY && Boolean(process.stdout.isTTY);
}

/** How macs was run: the session's flags, the folder, the environment. */
export function invocation(
  opts: CommonOptions,
  deps: Pick<CliDeps, 'cwd' | 'env'>,
): Invocation {
  return {
    ...(opts.home !== undefined ? { home: opts.home } : {}),
    ...(opts.tmuxSocket !== undefined ? { tmuxSocket: opts.tmuxSocket } : {}),
    cwd: deps.cwd,
    env: deps.env,
  };
}
