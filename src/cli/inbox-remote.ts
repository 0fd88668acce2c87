import type { MacsConfig } from '../config/schema.js';
import { readRemoteFleet } from '../remote/fleet.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import { withRemoteFleet } from './remote.js';

/**
 * `macs inbox` for the hosts: each host's open requests as lines and JSON
 * entries (with `host`), and one line per host that cannot be reached.
 */
export async function readRemoteInbox(
  ctx: CommandContext,
  config: MacsConfig,
  deps: CliDeps,
  agent: string | undefined,
): Promise<{ lines: string[]; json: unknown[]; problems: string[] }> {
  const views = await withRemoteFleet(ctx, config, deps, (fleet) =>
    readRemoteFleet(fleet, ctx.paths),
  );
  const requests = views
    .flatMap((v) => v.requests)
    .filter((r) => !agent || r.agent === agent);
  return {
    lines: requests.map(
      (r) =>
        `${r.id}  ${r.agent}  ${r.type}  ${r.stage}  ${Math.round(r.ageSec ?? 0)}s  ${r.firstLine.slice(0, 72)}`,
    ),
    json: requests.map((r) => ({
      id: r.id,
      agent: r.agent,
      host: r.host,
      type: r.type,
      priority: r.priority ?? 'normal',
      stage: r.stage,
      waitingForAnswer: r.waitingForAnswer,
      firstLine: r.firstLine,
    })),
    problems: views
      .filter((v) => v.link === 'down')
      .map(
        (v) =>
          `macs: ${v.error?.message ?? `host ${v.name} cannot be reached`}${v.error?.hint ? ` (hint: ${v.error.hint})` : ''}`,
      ),
  };
}
