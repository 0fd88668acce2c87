import { AgentError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import { listHomeAgents, pauseDelivery } from '../operations/pause-delivery.js';
import { createContext } from './common.js';
import { forwardIfRemote } from './remote.js';
import type { CliDeps, CommonOptions } from './options.js';

/** `macs pause <agent>` / `macs resume <agent>`. */
export async function runPause(
  agent: string,
  paused: boolean,
  opts: CommonOptions,
  deps: CliDeps,
): Promise<number> {
  const ctx = createContext(opts, deps);
  const remote = await forwardIfRemote(agent, 'agent', ctx, deps, (name) => [
    paused ? 'pause' : 'resume',
    name,
  ]);
  if (remote !== undefined) return remote;
  const known = await listHomeAgents(ctx.paths);
  if (!known.includes(agent))
    throw new AgentError(`no agent '${agent}' in ${ctx.paths.home}`, {
      hint: known.length
        ? `its agents: ${known.join(', ')}`
        : 'start a session first (macs start)',
    });
  await pauseDelivery(
    ctx.paths,
    createEventLog(ctx.paths),
    agent,
    paused,
    paused ? 'macs pause' : 'macs resume',
  );
  deps.output.out(
    paused
      ? `delivery to ${agent} paused: its answers wait (kept) until macs resume ${agent}`
      : `delivery to ${agent} resumed`,
  );
  return 0;
}
