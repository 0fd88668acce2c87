/**
 * What the session commands (`macs start`, `attach`, `stop`) ask of tmux
 * before they act: is a recent enough tmux installed, and is the macs
 * session already up on the private server.
 */
import { TmuxError } from '../errors.js';
import type { TmuxClient } from '../tmux/client.js';
import { TMUX_INSTALL_HINT, type RunTmux } from '../tmux/run.js';
import { buildHasSessionArgs, parseTmuxVersion } from '../tmux/session-args.js';
import { SESSION_NAME } from './record.js';

/** The oldest tmux with `respawn-pane -e/-c` and direct argv execution. */
export const MIN_TMUX_VERSION: readonly [number, number] = [3, 0];

/**
 * tmux must be installed and recent enough. A missing binary is a TmuxError
 * (exit 3) from the runner, with how to install it.
 */
export async function checkTmux(run: RunTmux): Promise<string> {
  const result = await run(['-V']);
  const text = `${result.stdout}${result.stderr}`.trim();
  if (result.exitCode !== 0)
    throw new TmuxError(`could not run tmux -V: ${text}`, {
      hint: TMUX_INSTALL_HINT,
    });
  const version = parseTmuxVersion(text);
  const [major, minor] = MIN_TMUX_VERSION;
  if (
    version &&
    (version[0] < major || (version[0] === major && version[1] < minor))
  ) {
    throw new TmuxError(
      `${text} is too old; macs start needs tmux ${major}.${minor} or newer`,
      {
        hint: TMUX_INSTALL_HINT,
      },
    );
  }
  return text;
}

/** Is the macs session up on this server? */
export async function isSessionRunning(
  tmux: TmuxClient,
  session = SESSION_NAME,
): Promise<boolean> {
  try {
    await tmux.command(buildHasSessionArgs(session));
    return true;
  } catch {
    return false;
  }
}
