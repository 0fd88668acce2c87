/**
 * The CLI's door to other hosts (docs/remote.md): a one-shot fleet for a
 * command, and the forwarding of commands about `<host>/<name>` to the
 * host's macs. Commands call `forwardIfRemote` first and go on locally
 * when the name is not a host's.
 */
import { ConfigError } from '../errors.js';
import type { MacsConfig } from '../config/schema.js';
import {
  createRemoteFleet,
  hostTargets,
  type RemoteFleet,
} from '../remote/fleet.js';
import { runHostMacs } from '../remote/forward.js';
import type { HostTarget } from '../remote/host-session.js';
import { splitRemoteName } from '../remote/names.js';
import { VERSION } from '../version.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';

/** A one-shot fleet: a short session per host on first use, closed by `fn`'s end. */
export async function withRemoteFleet<T>(
  ctx: CommandContext,
  config: MacsConfig,
  deps: CliDeps,
  fn: (fleet: RemoteFleet) => Promise<T>,
): Promise<T> {
  const fleet = createRemoteFleet(
    { config, env: deps.env, paths: ctx.paths, version: VERSION, log: ctx.log },
    { live: false },
  );
  try {
    return await fn(fleet);
  } finally {
    await fleet.close();
  }
}

/** The host of `<host>/<name>`, checked; undefined for a local name. */
export function remoteTargetOf(
  qualified: string,
  kind: 'agent' | 'request',
  config: MacsConfig,
  env: NodeJS.ProcessEnv,
): { target: HostTarget; name: string } | undefined {
  const split = splitRemoteName(qualified, kind);
  if (split === undefined) return undefined;
  if (split === 'invalid')
    throw new ConfigError(
      `'${qualified}' is not ${kind === 'request' ? 'a request id' : 'an agent name'}`,
      {
        hint:
          kind === 'request'
            ? 'see the ids with `macs inbox` (on another host: <host>/<id>)'
            : 'see the agents with `macs status` (on another host: <host>/<agent>)',
      },
    );
  const target = hostTargets(config, env).find((t) => t.name === split.host);
  if (!target)
    throw new ConfigError(`no host '${split.host}' in macs.config.json`, {
      hint: 'add it under "hosts" (docs/remote.md); `macs hosts` lists them',
    });
  return { target, name: split.name };
}

/**
 * When `qualified` is `<host>/<name>`, run the command on the host
 * (`argv(name)` are its words after `macs`) and print its reply; returns
 * the exit code, or undefined for a local name.
 */
export async function forwardIfRemote(
  qualified: string,
  kind: 'agent' | 'request',
  ctx: CommandContext,
  deps: CliDeps,
  argv: (name: string) => string[],
  input?: string,
): Promise<number | undefined> {
  const { config } = await ctx.loadConfig();
  const remote = remoteTargetOf(qualified, kind, config, deps.env);
  if (!remote) return undefined;
  const lines = await runHostMacs(remote.target, argv(remote.name), input);
  for (const line of lines) deps.output.out(`${remote.target.name}: ${line}`);
  return 0;
}
