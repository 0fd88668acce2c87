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
import { RemoteError } from '../remote/ssh-errors.js';
import { formatFromHub } from './from-hub.js';
import type { CliDeps } from './options.js';

type HostVerb = 'start' | 'stop';

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

/** Run `macs start|stop` on each host (or only `only`); exit 1 if one failed. */
export async function runOnHosts(
  verb: HostVerb,
  config: MacsConfig,
  deps: CliDeps,
  only?: string,
): Promise<number> {
  const targets = hostTargets(config, deps.env).filter(
    (t) => only === undefined || t.name === only,
  );
  if (only !== undefined && targets.length === 0) {
    deps.output.err(`macs: no host '${only}' in macs.config.json`);
    return 2;
  }
  const results = await Promise.all(
    targets.map(async (target) => {
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
        const warnings = lines.filter((l) =>
          /^warning:|not found on PATH/.test(l),
        );
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
    }),
  );
  for (const r of results) {
    deps.output.out(
      `host ${r.target.name}: ${r.line.replace(/^host \S+: /, '')}`,
    );
    if (!r.ok && 'hint' in r && r.hint) deps.output.out(`  hint: ${r.hint}`);
  }
  return results.every((r) => r.ok) ? 0 : 1;
}
