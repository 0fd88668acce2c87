import { listOpenRequests } from '../state/pending.js';
import { createContext, formatAge } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';

export interface InboxOptions extends CommonOptions {
  json?: boolean;
  agent?: string;
}

/** List pending requests (every agent's, from their state files). */
export async function runInbox(
  opts: InboxOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig(); // a broken config is an error here too (exit 2)
  const open = (await listOpenRequests(ctx.paths)).filter(
    (r) => !opts.agent || r.agent === opts.agent,
  );
  // The hosts' open requests (docs/remote.md), `<host>/<id>` from `<host>/<agent>`.
  const remote =
    Object.keys(config.hosts).length === 0
      ? undefined
      : await import('./inbox-remote.js').then((m) =>
          m.readRemoteInbox(ctx, config, deps, opts.agent),
        );
  if (opts.json) {
    deps.output.json([
      ...open.map((r) => ({
        id: r.id,
        agent: r.agent,
        type: r.type,
        priority: r.priority,
        stage: r.stage,
        backend: r.backend ?? null,
        detectedAt: r.detectedAt,
        body: r.body,
        attributes: r.attributes,
      })),
      ...(remote?.json ?? []),
    ]);
    return 0;
  }
  for (const line of remote?.problems ?? []) deps.output.err(line);
  if (open.length === 0 && !remote?.lines.length) {
    deps.output.out('no pending requests');
    return 0;
  }
  for (const r of open) {
    const first = r.body.split('\n', 1)[0] ?? '';
    deps.output.out(
      `${r.id}  ${r.agent}  ${r.type}  ${r.stage}  ${formatAge(r.detectedAt)}  ${first.slice(0, 72)}`,
    );
  }
  for (const line of remote?.lines ?? []) deps.output.out(line);
  deps.output.out('');
  deps.output.out(
    'answer with: macs respond <id> "text"   (full text: inbox/<id>.txt)',
  );
  return 0;
}
