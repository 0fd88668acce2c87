// `macs hooks`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { Option, type Command } from 'commander';
import { assertNever, ConfigError } from '../errors.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { LocalHooksRequest } from '../hooks/install-local.js';
import type { HomePaths } from '../home/paths.js';

export interface HooksOptions extends CommonOptions {
  dir?: string;
  preset?: string;
}

/** An agent name the home does not know: hooks for it would report to no one. */
async function unknownAgent(
  agent: string,
  paths: HomePaths,
  known: readonly string[],
  extra = '',
): Promise<ConfigError> {
  const { describeKnownAgents } = await import('../session/known-agents.js');
  return new ConfigError(`no agent '${agent}' in ${paths.home}${extra}`, {
    hint: `${describeKnownAgents(known)}; for an agent outside a session, start its bridge first (macs bridge --agent ${agent} --worker-pane %N)`,
  });
}

/**
 * The request of `macs hooks install|uninstall`: the home, its config and
 * the agents it knows (no logger: these commands only edit a settings
 * file). The home is found as for every command: the nearest one at or
 * above the current folder.
 */
async function hooksRequest(
  agent: string,
  opts: HooksOptions,
  deps: CliDeps,
): Promise<LocalHooksRequest> {
  const [
    { resolveHomePaths },
    { loadHomeConfig, resolveHome },
    { listKnownAgents },
  ] = await Promise.all([
    import('../home/paths.js'),
    import('./common.js'),
    import('../session/known-agents.js'),
  ]);
  const paths = resolveHomePaths(resolveHome(opts, deps.cwd, false));
  const { config } = await loadHomeConfig(paths, deps.env, {
    config: opts.config,
  });
  return {
    agent,
    preset: opts.preset,
    dir: opts.dir,
    cwd: deps.cwd,
    paths,
    config,
    known: await listKnownAgents(paths, config),
  };
}

/** `macs hooks install <agent>`: merge macs's hooks into the agent's local settings. */
export async function runHooksInstall(
  agent: string,
  opts: HooksOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const { installLocalHooks } = await import('../hooks/install-local.js');
  const request = await hooksRequest(agent, opts, deps);
  const done = await installLocalHooks(request);
  const say = deps.output.out;
  switch (done.type) {
    case 'unknown-agent':
      throw await unknownAgent(agent, request.paths, request.known);
    case 'codex':
      say(
        'Codex reads its notify program from ~/.codex/config.toml (one for all projects); macs does not edit it.',
      );
      say(
        `Add this line there (top level), or start codex with -c '${done.notify}':`,
      );
      say('');
      say(`  ${done.notify.replace('=', ' = ')}`);
      return 0;
    case 'unchanged':
      say(
        `macs hooks for ${agent} are already installed in ${done.file}; nothing changed`,
      );
      return 0;
    case 'installed':
      say(
        `installed macs hooks for ${agent} in ${done.file} (${done.events.join(', ')})`,
      );
      say(
        'Claude Code reads hooks when it starts: restart it in that folder (or review them in its /hooks menu).',
      );
      return 0;
    default:
      return assertNever(done);
  }
}

/** `macs hooks uninstall <agent>`: remove only macs's entries for that agent. */
export async function runHooksUninstall(
  agent: string,
  opts: HooksOptions,
  deps: CliDeps,
): Promise<number> {
  const { uninstallLocalHooks } = await import('../hooks/install-local.js');
  const request = await hooksRequest(agent, opts, deps);
  const done = await uninstallLocalHooks(request);
  if (done.type === 'unknown-agent') {
    const { file, others = [] } = done;
    const extra =
      file === undefined
        ? ''
        : ` and no macs hooks for it in ${file}${others.length > 0 ? ` (it has hooks for ${others.join(', ')})` : ''}`;
    throw await unknownAgent(agent, request.paths, request.known, extra);
  }
  if (done.type === 'codex')
    deps.output.out(
      'remove the `notify = [...]` line that runs `macs hook notify` from ~/.codex/config.toml',
    );
  else
    deps.output.out(
      done.removed > 0
        ? `removed ${done.removed} macs hook${done.removed === 1 ? '' : 's'} for ${agent} from ${done.file}; other hooks are untouched`
        : `no macs hooks for ${agent} in ${done.file}`,
    );
  return 0;
}

export function registerHooksCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  const hooks = program
    .command('hooks')
    .description("add or remove macs hooks in an agent's settings");
  const common = (command: Command) =>
    addCommonOptions(
      command
        .argument('<agent>', 'the agent name')
        .option(
          '--dir <dir>',
          "the agent's project folder (default: its cwd from the config, else the current folder)",
        )
        .addOption(
          new Option(
            '--preset <name>',
            "the agent's preset (default: from the config or its state, else claude)",
          ).env('MACS_PRESET'),
        ),
    );
  common(
    hooks
      .command('install')
      .description(
        'merge macs hooks into <dir>/.claude/settings.local.json (idempotent; your own hooks stay)',
      ),
  ).action((agent: string, opts: HooksOptions) =>
    run(runHooksInstall(agent, opts, deps)),
  );
  common(
    hooks
      .command('uninstall')
      .description(
        "remove macs's hooks for <agent> from <dir>/.claude/settings.local.json; other hooks stay",
      ),
  ).action((agent: string, opts: HooksOptions) =>
    run(runHooksUninstall(agent, opts, deps)),
  );
}
