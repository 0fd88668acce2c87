/**
 * `macs start`, `macs stop` and `macs add --host` at a hub (docs/remote.md):
 * each host's own macs starts or stops the session in its home over ssh
 * (`macs start --detach`), so its agents live on the host, not in the
 * link: they keep running when the hub stops or the link drops. Hosts are
 * handled in parallel; one that fails says why in one line and the others
 * go on.
 */
import type { MacsConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { isValidAgentName } from '../protocol/ids.js';
import { hostTargets } from '../remote/remote-fleet.js';
import { qualifyName } from '../remote/names.js';
import { runHostMacs } from '../remote/forward.js';
import type { HostTarget } from '../remote/host-session.js';
import { RemoteError } from '../remote/ssh-errors.js';
import { formatFromHub } from '../session/from-hub.js';

type HostVerb = 'start' | 'stop';

/** What the hosts' part of `macs start|stop` said, and its exit code. */
export interface HostsOutcome {
  code: number;
  /** A line or two per host: what its macs said, or why it failed. */
  out: string[];
  /** Set when `only` names no host of the config. */
  err: string[];
}

/**
 * The agents a host's `macs start` listed (its lines `  worker  <name>
 * %N …`), named at the hub: `h1/worker-1 (worker)`. Names that are not
 * agent names are left out (host data, cleaned, never trusted).
 */
export function startedHostAgents(host: string, lines: string[]): string[] {
  return lines.flatMap((line) => {
    const m = /^\s+(controller|worker)\s+(\S+)\s+%\d+\s/.exec(line);
    return m?.[2] && isValidAgentName(m[2])
      ? [`${qualifyName(host, m[2])} (${m[1]})`]
      : [];
  });
}

/**
 * Run `macs start|stop` on each host (or only `only`), in parallel; exit 1
 * if one failed, 2 if `only` names no host.
 */
export async function runOnHosts(
  verb: HostVerb,
  config: MacsConfig,
  env: NodeJS.ProcessEnv,
  only?: string,
): Promise<HostsOutcome> {
  const targets = hostTargets(config, env).filter(
    (t) => only === undefined || t.name === only,
  );
  if (only !== undefined && targets.length === 0)
    return { code: 2, out: [], err: [noHost(only)] };
  const results = await Promise.all(
    targets.map((target) => runOnHost(verb, config, target)),
  );
  const out = results.flatMap((r) => [
    `host ${r.target.name}: ${r.line.replace(/^host \S+: /, '')}`,
    ...(!r.ok && r.hint ? [`  hint: ${r.hint}`] : []),
  ]);
  return { code: results.every((r) => r.ok) ? 0 : 1, out, err: [] };
}

/** The line for a host the config does not name. */
export function noHost(name: string): string {
  return `macs: no host '${name}' in macs.config.json`;
}

/** One host's `macs start|stop`: whether it is as asked, and its line. */
async function runOnHost(
  verb: HostVerb,
  config: MacsConfig,
  target: HostTarget,
): Promise<{ target: HostTarget; ok: boolean; line: string; hint?: string }> {
  // The hub's workers for this host and its policy go on stdin
  // (from-hub.ts).
  const fromHub =
    verb === 'start' ? formatFromHub(config, target.name) : undefined;
  const argv =
    verb === 'stop'
      ? ['stop']
      : ['start', '--detach', '--no-wait', '--from-hub'];
  try {
    const lines = await runHostMacs(target, argv, fromHub);
    const warnings = lines.filter((l) => /^warning:|not found on PATH/.test(l));
    const agents = startedHostAgents(target.name, lines);
    return {
      target,
      ok: true,
      line: [
        lines[0] ?? `${verb} done`,
        ...warnings,
        ...(agents.length > 0 ? [`agents: ${agents.join(', ')}`] : []),
      ].join('\n  '),
    };
  } catch (error) {
    const message = errorMessage(error);
    // Started before, or nothing to stop: the host is as asked.
    if (/already running|nothing to stop/.test(message))
      return { target, ok: true, line: message };
    return {
      target,
      ok: false,
      line: message,
      hint: error instanceof RemoteError ? error.hint : undefined,
    };
  }
}

/**
 * `macs stop` at a hub: each host's session (or only `only`'s) is stopped
 * by its own macs; undefined when the config names no hosts (or could not
 * be read: stopping this machine's session goes on), but for `only`.
 */
export async function stopOnHosts(
  config: MacsConfig | undefined,
  env: NodeJS.ProcessEnv,
  only: string | undefined,
): Promise<HostsOutcome | undefined> {
  if (!config || Object.keys(config.hosts).length === 0)
    return only === undefined
      ? undefined
      : { code: 2, out: [], err: [noHost(only)] };
  return runOnHosts('stop', config, env, only);
}
