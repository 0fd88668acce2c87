/**
 * `macs attach <host>/<agent>` at a hub (docs/remote.md): the host's own
 * `macs attach <agent>` on this terminal, over `ssh -t` with the user's ssh
 * config (remote/ssh.ts runs it). Detaching (tmux prefix, then d) ends ssh
 * and comes back here; the host's agents run on.
 */
import type { MacsConfig } from '../config/schema.js';
import { MacsError } from '../errors.js';
import { runSshTerminal } from '../remote/ssh.js';
import type { CliDeps } from './options.js';
import { remoteTargetOf } from '../operations/host-forward.js';
import { isOnTerminal } from './session-common.js';

export async function attachOnHost(
  qualified: string,
  config: MacsConfig,
  deps: CliDeps,
): Promise<number> {
  const remote = remoteTargetOf(qualified, 'agent', config, deps.env);
  if (!remote)
    throw new MacsError(`'${qualified}' is not <host>/<agent>`, {
      exitCode: 2,
    });
  const { target, name } = remote;
  if (!isOnTerminal(deps))
    throw new MacsError('not on a terminal: attaching needs one', {
      hint: `from a terminal run \`macs attach ${qualified}\` (or: ssh -t ${target.destination} macs attach ${name} --home ${target.home})`,
    });
  const code = await runSshTerminal(target, [
    'macs',
    'attach',
    name,
    '--home',
    target.home,
  ]);
  if (code === 255)
    throw new MacsError(`host ${target.name}: ssh failed (it said why above)`, {
      hint: `check that \`ssh ${target.destination} true\` works from this machine`,
    });
  return code;
}
