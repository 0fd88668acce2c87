import { ConfigError } from '../errors.js';
import {
  describeDismissal,
  dismissRequests,
} from '../operations/dismiss-requests.js';
import { isSafeFileName } from '../protocol/ids.js';
import { createContext, loadConfigOrDefaults } from './common.js';
import { forwardIfRemote } from './remote.js';
import type { CliDeps, CommonOptions } from './options.js';

export interface DismissOptions extends CommonOptions {
  reason?: string;
  json?: boolean;
}

/**
 * `macs dismiss <id>…`: end pending requests without an answer; each is
 * archived as `dismissed` with the reason and never typed into its worker.
 */
export async function runDismiss(
  ids: string[],
  opts: DismissOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps);
  await loadConfigOrDefaults(ctx, opts, deps);
  // `<host>/<id>`: dismissed by that host's macs, one id at a time.
  let remote = 0;
  for (const id of ids.filter((i) => i.includes('/')))
    remote +=
      (await forwardIfRemote(id, 'request', ctx, deps, (name) => [
        'dismiss',
        name,
        ...(opts.reason ? ['--reason', opts.reason] : []),
      ])) ?? 0;
  ids = ids.filter((i) => !i.includes('/'));
  if (ids.length === 0) return remote;
  for (const id of ids)
    if (!isSafeFileName(id))
      throw new ConfigError(`'${id}' is not a request id`, {
        hint: 'see the ids with `macs inbox`',
      });
  const outcomes = await dismissRequests(
    ctx.paths,
    ids,
    opts.reason?.trim() || 'dismissed by a person',
    ctx.log,
  );
  if (opts.json) deps.output.json(outcomes);
  else
    for (const o of outcomes) {
      const ok = o.result === 'dismissed' || o.result === 'handed-over';
      if (ok) deps.output.out(describeDismissal(o));
      else deps.output.err(`macs: ${describeDismissal(o)}`);
    }
  const failed = outcomes.filter(
    (o) => o.result === 'not-pending' || o.result === 'too-late',
  ).length;
  if (failed > 0 && !opts.json)
    deps.output.err('hint: list pending requests with `macs inbox`');
  return failed > 0 ? 1 : 0;
}
