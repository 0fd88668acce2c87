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
 * the round trip, its agents and open requests, in the line every door
 * says (remote/host-link.ts). A host that cannot be reached says why in
 * that line; the others are listed all the same. Exit 1 when a host is down.
 */
export async function runHosts(
  opts: HostsOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { readRemoteFleet },
    { hostLink, hostLinkLine, withLinkLine },
    { createContext },
    { withRemoteFleet },
  ] = await Promise.all([
    import('../remote/remote-fleet.js'),
    import('../remote/host-link.js'),
    import('./common.js'),
    import('./remote.js'),
  ]);
  const ctx = createContext(opts, deps);
  const { config } = await ctx.loadConfig();
  const views = await withRemoteFleet(ctx, config, deps, (fleet) =>
    readRemoteFleet(fleet, ctx.paths),
  );
  const exitCode = views.some((v) => v.link === 'down') ? 1 : 0;
  if (opts.json) {
    // Each host with its link in words (`line`), as the page has it.
    deps.output.json({ hosts: views.map(withLinkLine) });
    return exitCode;
  }
  if (views.length === 0) {
    deps.output.out(
      'no hosts: add them under "hosts" in macs.config.json (docs/remote.md)',
    );
    return 0;
  }
  // The link in the words of every door (remote/host-link.ts), then where
  // the host is and its agents (as last read, while it is down).
  for (const v of views) {
    deps.output.out(hostLinkLine(hostLink(v)));
    deps.output.out(`  ${v.ssh}:${v.home}`);
    for (const a of v.agents)
      deps.output.out(`  ${a.name}  ${a.state}${a.paused ? ' paused' : ''}`);
  }
  return exitCode;
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
