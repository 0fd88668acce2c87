/**
 * The CLI's door to other hosts (docs/remote.md): a one-shot fleet for a
 * command, and the forwarding of commands about `<host>/<name>` to the
 * host's macs (operations/host-forward.ts). Commands call
 * `forwardIfRemote` first and go on locally when the name is not a host's.
 */
import type { MacsConfig } from '../config/schema.js';
import {
  remoteTargetOf,
  runOnHost,
  withHostFleet,
} from '../operations/host-forward.js';
import type { RemoteFleet } from '../remote/remote-fleet.js';
import type { CommandContext } from './common.js';
import type { CliDeps } from './options.js';

/** A one-shot fleet: a short session per host on first use, closed by `fn`'s end. */
export function withRemoteFleet<T>(
  ctx: CommandContext,
  config: MacsConfig,
  deps: CliDeps,
  fn: (fleet: RemoteFleet) => Promise<T>,
): Promise<T> {
  return withHostFleet(
    { config, env: deps.env, paths: ctx.paths, log: ctx.log },
    fn,
  );
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
  const lines = await runOnHost(remote.target, argv(remote.name), input);
  for (const line of lines) deps.output.out(line);
  return 0;
}
