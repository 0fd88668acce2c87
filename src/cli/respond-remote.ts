import type { MacsConfig } from '../config/schema.js';
import { ConfigError, MacsError } from '../errors.js';
import { splitResponse } from '../protocol/response.js';
import { answerRemoteRequest } from '../remote/answer.js';
import { HostRefusal } from '../remote/host-session.js';
import { qualifyName } from '../remote/names.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import { withRemoteFleet } from './remote.js';

/**
 * `macs respond <host>/<id>`: the host's `answer_request` takes the answer
 * (instructions, and notes never typed), with the host's checks; a host
 * that cannot be reached now gets it when it is back (kept at the hub).
 */
export async function respondRemote(
  ctx: CommandContext,
  config: MacsConfig,
  deps: CliDeps,
  host: string,
  id: string,
  text: string,
): Promise<number> {
  const parsed = splitResponse(text);
  if (!parsed.instructions.trim())
    throw new ConfigError('the answer is empty; nothing was sent');
  const qualified = qualifyName(host, id);
  const result = await withRemoteFleet(ctx, config, deps, (fleet) =>
    answerRemoteRequest(ctx.paths, () => fleet.session(host), {
      host,
      id,
      instructions: parsed.instructions.trim(),
      ...(parsed.notes.trim() ? { notes: parsed.notes.trim() } : {}),
      by: 'macs respond',
    }),
  ).catch((error: unknown) => {
    if (error instanceof HostRefusal)
      throw new MacsError(
        `host ${host} refused the answer to ${id}: ${error.message}`,
        {
          hint: 'list pending requests with `macs inbox`',
        },
      );
    throw error;
  });
  switch (result.type) {
    case 'answered':
      deps.output.out(
        `answered ${qualified} (${text.length} chars) on ${host}`,
      );
      return 0;
    case 'held':
      deps.output.out(
        `host ${host} cannot be reached now: the answer to ${qualified} is kept (${result.file}) and delivered once when it is back`,
      );
      return 0;
    case 'held-already':
      throw new MacsError(
        `an answer to ${qualified} is already kept for ${host}`,
        {
          hint: 'it is delivered once the host is back; a request is answered once',
        },
      );
  }
}
