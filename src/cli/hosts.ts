// `macs hosts`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { Command } from 'commander';

export interface HostsOptions extends CommonOptions {
  json?: boolean;
}

/**
 * `macs hosts`: each host of the config, reached now over ssh: its link
 * (up or down, since when a hub process holds the links), its macs version,
 * the round trip, its agents and open requests. A host that cannot be
 * reached says why in one line; the others are listed all the same.
 * Exit 1 when a host is down.
 */
export async function runHosts(
  opts: HostsOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { readRemoteFleet },
    { createContext, formatAge },
    { withRemoteFleet },
  ] = await Promise.all([
    import('../remote/remote-fleet.js'),
    import('./common.js'),
    import('./remote.js'),
  ]);
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig();
  const views = await withRemoteFleet(ctx, config, deps, (fleet) =>
    readRemoteFleet(fleet, ctx.paths),
  );
  if (opts.json) {
    deps.output.json({ hosts: views });
    return views.some((v) => v.link === 'down') ? 1 : 0;
  }
  if (views.length === 0) {
    deps.output.out(
      'no hosts: add them under "hosts" in macs.config.json (docs/remote.md)',
    );
    return 0;
  }
  for (const v of views) {
    const since = v.since ? ` for ${formatAge(v.since)}` : '';
    if (v.link === 'up') {
      const waiting = v.requests.filter((r) => r.waitingForAnswer).length;
      deps.output.out(
        `${v.name}  up${since}  ${v.ssh}:${v.home}  macs ${v.version}  ${v.rttMs} ms  ${v.agents.length} agents  ${v.requests.length} open requests (${waiting} waiting)${v.heldAnswers ? `  ${v.heldAnswers} answers held` : ''}`,
      );
      for (const a of v.agents)
        deps.output.out(`  ${a.name}  ${a.state}${a.paused ? ' paused' : ''}`);
    } else {
      deps.output.out(
        `${v.name}  down${since}  ${v.ssh}:${v.home}${v.heldAnswers ? `  ${v.heldAnswers} answers held` : ''}`,
      );
      deps.output.out(`  ${v.error?.message ?? 'unreachable'}`);
      if (v.error?.hint) deps.output.out(`  hint: ${v.error.hint}`);
    }
  }
  return views.some((v) => v.link === 'down') ? 1 : 0;
}

export function registerHostsCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('hosts')
      .description(
        'other hosts (docs/remote.md): link up or down, macs version, round trip, agents, open requests',
      )
      .option('--json', 'print the hosts as JSON'),
  ).action((opts: HostsOptions) => run(runHosts(opts, deps)));
}
