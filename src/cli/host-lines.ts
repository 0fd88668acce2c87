// What `macs start` and `macs stop` at a hub print for its hosts
// (operations/host-sessions.ts runs them).
import type { HostsOutcome } from '../operations/host-sessions.js';
import type { CliDeps, CommonOptions } from './options.js';
import { hintCommand } from './session-common.js';

/** What each host said (a line or two each). */
export function printHosts(outcome: HostsOutcome, deps: CliDeps): void {
  for (const line of outcome.err) deps.output.err(line);
  for (const line of outcome.out) deps.output.out(line);
}

/**
 * What to run next, after a hub's `macs start` that started sessions on
 * its hosts only (a hub with workers of its own prints its session's).
 */
export function printHubHints(opts: CommonOptions, deps: CliDeps): void {
  const hint = (sub: string) => hintCommand(sub, opts, deps);
  deps.output.out(`  attach:  ${hint('attach <host>/<agent>')}`);
  deps.output.out(
    `  watch:   ${hint('status')} · ${hint('inbox')} · ${hint('events --follow')}`,
  );
  deps.output.out(`  stop:    ${hint('stop')}`);
}
