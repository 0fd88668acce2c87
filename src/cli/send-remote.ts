import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import { forwardIfRemote } from './remote.js';
import type { SendOptions } from './types.js';
import { readSendText } from './send-text.js';

/** Most bytes of a message read from stdin for a host's agent. */
const MAX_SEND_BYTES = 256 * 1024;

/**
 * `macs send <host>/<agent>`: the host's `macs send` types it, with its own
 * checks (idle, sanitized, one paste); the text goes on stdin, never on a
 * command line.
 */
export async function sendRemote(
  agent: string,
  text: string | undefined,
  opts: SendOptions,
  deps: CliDeps,
  ctx: CommandContext,
): Promise<number> {
  const body = await readSendText(text, deps, MAX_SEND_BYTES, '<host>/<agent>');
  const code = await forwardIfRemote(
    agent,
    'agent',
    ctx,
    deps,
    (name) => [
      'send',
      name,
      '-',
      ...(opts.timeout ? ['--timeout', opts.timeout] : []),
      ...(opts.json ? ['--json'] : []),
    ],
    body,
  );
  return code ?? 2;
}
