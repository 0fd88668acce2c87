import type { MacsConfig } from '../config/schema.js';
import type { CommandContext } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';
import { hintCommand } from './session-common.js';

/** The hosts' part of `macs start`, running while this machine's starts. */
export interface HostStart {
  /**
   * Wait for every host, then print what each said (kept until now, so the
   * lines come in one block, before this machine's); the exit code of the
   * hosts' part.
   */
  finish(): Promise<number>;
}

/**
 * `macs start` at a hub: each host of the config starts its own session
 * (host-sessions.ts, loaded only when there are hosts); undefined when the
 * config names none. The hosts start at once, in parallel with each other
 * and with this machine's session, as nothing of one waits for the other:
 * a hub no longer waits for its hosts before starting its own agents.
 */
export function startHostSessions(
  config: MacsConfig,
  deps: CliDeps,
): HostStart | undefined {
  if (Object.keys(config.hosts).length === 0) return undefined;
  const lines: string[] = [];
  const quiet: CliDeps = {
    ...deps,
    output: { ...deps.output, out: (line) => void lines.push(line) },
  };
  const running = import('./host-sessions.js').then(({ runOnHosts }) =>
    runOnHosts('start', config, quiet),
  );
  // Awaited in finish(); a rejection meanwhile is not unhandled.
  running.catch(() => undefined);
  return {
    async finish() {
      try {
        return await running;
      } finally {
        for (const line of lines) deps.output.out(line);
      }
    },
  };
}

/**
 * `macs stop` at a hub: each host's session (or only `only`'s) is stopped
 * by its own macs; undefined when the config names no hosts (or cannot be
 * read: stopping this machine's session goes on).
 */
export async function stopHostSessions(
  ctx: CommandContext,
  deps: CliDeps,
  only: string | undefined,
): Promise<number | undefined> {
  const config = await ctx
    .loadConfig()
    .then((c) => c.config)
    .catch(() => undefined);
  if (!config || Object.keys(config.hosts).length === 0) {
    if (only !== undefined)
      deps.output.err(`macs: no host '${only}' in macs.config.json`);
    return undefined;
  }
  const { runOnHosts } = await import('./host-sessions.js');
  return runOnHosts('stop', config, deps, only);
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
