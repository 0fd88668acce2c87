// `macs hosts`: its flags; the command itself is loaded when it runs.
import type { Command } from 'commander';
import { addCommonOptions, type CliDeps } from '../options.js';
import type { HostsOptions } from '../hosts.js';

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
  ).action((opts: HostsOptions) =>
    run(import('../hosts.js').then((m) => m.runHosts(opts, deps))),
  );
}
