import type { MacsConfig } from '../config/schema.js';
import { readRemoteFleet } from '../remote/remote-fleet.js';
import { downLabel } from '../remote/fleet-model.js';
import { formatAge, type CommandContext } from './common.js';
import type { CliDeps } from './options.js';
import { withRemoteFleet } from './remote.js';

/** A host's request body in `macs inbox`: this many lines at most. */
const BODY_LINES = 20;

/**
 * `macs inbox` for the hosts: each host's open requests whole (as lines and
 * JSON entries with `host`), a host that cannot be reached with what was
 * last read of it, marked (remote/fleet-model.ts), and one line per host
 * that cannot be reached.
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
  const now = Date.now();
  return {
    lines: requests.flatMap((r) => {
      const age = r.detectedAt
        ? formatAge(r.detectedAt, now)
        : `${Math.round(r.ageSec ?? 0)}s`;
      const body = (r.body ?? r.firstLine).split('\n');
      const rest = body.slice(1, BODY_LINES);
      return [
        `${r.id}  ${r.agent}  ${r.type}  ${r.stage}  ${age}  ${(body[0] ?? '').slice(0, 72)}`,
        ...rest.map((l) => `    ${l}`),
        ...(body.length > BODY_LINES
          ? [
              `    … ${body.length - BODY_LINES} more lines (macs mcp get_request ${r.id})`,
            ]
          : []),
        ...(r.hostDownSince !== undefined
          ? [
              `    ${downLabel(r.host, r.hostDownSince)}: an answer is kept and delivered once when it is back`,
            ]
          : []),
      ];
    }),
    json: requests.map((r) => ({
      id: r.id,
      agent: r.agent,
      host: r.host,
      type: r.type,
      priority: r.priority ?? 'normal',
      stage: r.stage,
      waitingForAnswer: r.waitingForAnswer,
      detectedAt: r.detectedAt ?? null,
      ageSec: r.ageSec ?? null,
      firstLine: r.firstLine,
      body: r.body ?? r.firstLine,
      attributes: r.attributes ?? {},
      context: r.context ?? null,
      hostDown:
        r.hostDownSince !== undefined
          ? { since: r.hostDownSince ?? null }
          : null,
    })),
    problems: views
      .filter((v) => v.link === 'down')
      .map(
        (v) =>
          `macs: ${v.error?.message ?? `host ${v.name} cannot be reached`}${v.error?.hint ? ` (hint: ${v.error.hint})` : ''}`,
      ),
  };
}
