import type { MacsConfig } from '../config/schema.js';
import type { HomePaths } from '../home/paths.js';
import { ConfigError, MacsError } from '../errors.js';
import type { HubAnswerBy } from '../protocol/approval.js';
import { splitResponse } from '../protocol/response.js';
import { answerRemoteRequest } from '../remote/answer.js';
import { HostRefusal, type HostSession } from '../remote/host-session.js';
import { qualifyName } from '../remote/names.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import { withRemoteFleet } from './remote.js';

/** What became of an answer to a host's request. */
export type HostAnswerOutcome =
  | { type: 'answered' }
  | { type: 'held'; file: string }
  | { type: 'held-already' }
  | { type: 'refused'; reason: string };

/**
 * The one path of an answer to `<host>/<id>` (`macs respond`, the status
 * view): the host's `answer_request` takes it (instructions, and notes
 * never typed), with the host's checks; a host that cannot be reached now
 * gets it when it is back (kept at the hub). An empty answer is an error.
 */
export async function answerHostRequest(
  paths: HomePaths,
  session: () => Promise<HostSession>,
  answer: { host: string; id: string; text: string; by: HubAnswerBy },
): Promise<HostAnswerOutcome> {
  const parsed = splitResponse(answer.text);
  if (!parsed.instructions.trim())
    throw new ConfigError('the answer is empty; nothing was sent');
  try {
    return await answerRemoteRequest(paths, session, {
      host: answer.host,
      id: answer.id,
      instructions: parsed.instructions.trim(),
      ...(parsed.notes.trim() ? { notes: parsed.notes.trim() } : {}),
      by: answer.by,
    });
  } catch (error) {
    if (error instanceof HostRefusal)
      return { type: 'refused', reason: error.message };
    throw error;
  }
}

/** `macs respond <host>/<id>`: answerHostRequest, said in one line. */
export async function respondRemote(
  ctx: CommandContext,
  config: MacsConfig,
  deps: CliDeps,
  host: string,
  id: string,
  text: string,
): Promise<number> {
  const qualified = qualifyName(host, id);
  const result = await withRemoteFleet(ctx, config, deps, (fleet) =>
    answerHostRequest(ctx.paths, () => fleet.session(host), {
      host,
      id,
      text,
      by: 'hub:respond',
    }),
  );
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
    case 'refused':
      throw new MacsError(
        `host ${host} refused the answer to ${id}: ${result.reason}`,
        { hint: 'list pending requests with `macs inbox`' },
      );
  }
}
