import type { MacsConfig } from '../config/schema.js';
import { MacsError } from '../errors.js';
import { answerHostRequest } from '../operations/answer-host.js';
import { qualifyName } from '../remote/names.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import { withRemoteFleet } from './remote.js';

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
