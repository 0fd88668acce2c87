import { MacsError } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import { sessionAfterAttach } from '../session/attach-target.js';
import type { CliDeps, CommonOptions } from './options.js';
import { hintCommand } from './session-common.js';

/**
 * A person's tmux client (`macs start`, `macs attach`) has returned: say
 * what became of the session (session/attach-target.ts) and give the exit
 * code. Still running: the person detached (`detached`, when given, says
 * so; 0, or 1 when tmux failed). Ended by `macs stop` from another
 * terminal: said, 0. Gone otherwise: an error with how to bring it back, 1.
 */
export async function endOfAttach(options: {
  code: number;
  opts: CommonOptions;
  deps: CliDeps;
  paths: HomePaths;
  socket: string;
  /** The id of the session the client was attached to. */
  sessionId: string | undefined;
  detached?: string;
}): Promise<number> {
  const { code, opts, deps, socket, detached } = options;
  const session = await sessionAfterAttach(
    options.paths,
    socket,
    options.sessionId,
    deps.runTmux,
  );
  if (session === 'running') {
    if (detached !== undefined) deps.output.out(detached);
    return code === 0 ? 0 : 1;
  }
  if (session === 'stopped') {
    deps.output.out(
      `the session was stopped (macs stop); worktrees, inbox/, archive/ and .macs/ are kept (start a new one: ${hintCommand('start', opts, deps)})`,
    );
    return 0;
  }
  throw new MacsError(
    `the session's tmux server is gone (tmux -L ${socket}), not ended by macs stop`,
    {
      hint: `bring the session back with \`${hintCommand('start --resume', opts, deps)}\``,
    },
  );
}
