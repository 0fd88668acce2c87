// `macs hooks`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import path from 'node:path';
import { Option, type Command } from 'commander';
import { ConfigError, MacsError } from '../errors.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { MacsConfig } from '../config/schema.js';
import type { HooksKind } from '../hooks/install.js';
import type { HomePaths } from '../home/paths.js';

export interface HooksOptions extends CommonOptions {
  dir?: string;
  preset?: string;
}

interface Target {
  agent: string;
  preset: string;
  hooks: HooksKind;
  dir: string;
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

/** Which agent, preset and folder `macs hooks install|uninstall` works on. */
async function resolveTarget(
  agent: string,
  opts: HooksOptions,
  deps: CliDeps,
  paths: HomePaths,
  config: MacsConfig,
  known: readonly string[] | 'any',
): Promise<Target> {
  const [
    { getPreset, listPresetNames },
    { localWorkers },
    { isValidAgentName },
    { readAgentState },
  ] = await Promise.all([
    import('../config/presets/index.js'),
    import('../config/workers.js'),
    import('../protocol/ids.js'),
    import('../state/store.js'),
  ]);
  if (!isValidAgentName(agent))
    throw new ConfigError(`agent name '${agent}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
  const configured = [
    ...localWorkers(config),
    ...(config.controller ? [config.controller] : []),
  ].find((w) => w.name === agent);
  const state = await readAgentState(paths, agent);
  if (known !== 'any' && !known.includes(agent))
    throw await unknownAgent(agent, paths, known);
  const presetName =
    opts.preset ?? configured?.preset ?? state?.preset ?? 'claude';
  let hooks: HooksKind;
  try {
    hooks = getPreset(presetName, config.presets).hooks;
  } catch (error) {
    throw new ConfigError(`unknown preset '${presetName}'`, {
      hint: `known presets: ${listPresetNames(config.presets).join(', ')}`,
      cause: error,
    });
  }
  const dir = opts.dir
    ? path.resolve(deps.cwd, opts.dir)
    : configured?.cwd
      ? path.resolve(paths.home, configured.cwd)
      : deps.cwd;
  return { agent, preset: presetName, hooks, dir };
}

/**
 * Home, config and the agents it knows (no logger: these commands only edit
 * a settings file). The home is found as for every command: the nearest one
 * at or above the current folder.
 */
async function loadHome(opts: HooksOptions, deps: CliDeps) {
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
  return { paths, config, known: await listKnownAgents(paths, config) };
}

/** `macs hooks install <agent>`: merge macs's hooks into the agent's local settings. */
export async function runHooksInstall(
  agent: string,
  opts: HooksOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { buildCodexNotifyArgs, defaultMacsCommand },
    { installClaudeHooks, localSettingsPath },
  ] = await Promise.all([
    import('../hooks/hook-command.js'),
    import('../hooks/local-settings.js'),
  ]);
  const ctx = await loadHome(opts, deps);
  const { config } = ctx;
  const target = await resolveTarget(
    agent,
    opts,
    deps,
    ctx.paths,
    config,
    ctx.known,
  );
  const command = {
    macsCommand: defaultMacsCommand(),
    agent,
    home: ctx.paths.home,
  };
  switch (target.hooks) {
    case 'none':
      throw new MacsError(
        `preset '${target.preset}' has no hooks macs can install`,
        {
          hint: 'macs reads this agent from its screen; --preset claude or codex if that is what runs',
        },
      );
    case 'codex': {
      const [, value = ''] = buildCodexNotifyArgs(command);
      deps.output.out(
        'Codex reads its notify program from ~/.codex/config.toml (one for all projects); macs does not edit it.',
      );
      deps.output.out(
        `Add this line there (top level), or start codex with -c '${value}':`,
      );
      deps.output.out('');
      deps.output.out(`  ${value.replace('=', ' = ')}`);
      return 0;
    }
    case 'claude': {
      const file = localSettingsPath(target.dir);
      const result = await installClaudeHooks(file, {
        ...command,
        askTimeoutSec: config.policy.askTimeoutSec,
      });
      switch (result.type) {
        case 'conflict':
          throw new MacsError(
            `${file} already has macs hooks for ${result.agents.join(', ')}; two agents in one folder would each report as the other`,
            {
              hint: 'give each agent its own folder (a git worktree), or remove the other with `macs hooks uninstall <agent>`',
            },
          );
        case 'unchanged':
          deps.output.out(
            `macs hooks for ${agent} are already installed in ${file}; nothing changed`,
          );
          return 0;
        case 'installed':
          deps.output.out(
            `installed macs hooks for ${agent} in ${file} (${result.events.join(', ')})`,
          );
          deps.output.out(
            'Claude Code reads hooks when it starts: restart it in that folder (or review them in its /hooks menu).',
          );
          return 0;
        default: {
          const never: never = result;
          throw new Error(`unexpected result ${JSON.stringify(never)}`);
        }
      }
    }
    default: {
      const never: never = target.hooks;
      throw new Error(`unexpected hooks kind ${String(never)}`);
    }
  }
}

/** `macs hooks uninstall <agent>`: remove only macs's entries for that agent. */
export async function runHooksUninstall(
  agent: string,
  opts: HooksOptions,
  deps: CliDeps,
): Promise<number> {
  const { localSettingsPath, uninstallClaudeHooks } =
    await import('../hooks/local-settings.js');
  const ctx = await loadHome(opts, deps);
  // An agent the home forgot may still have hooks to remove.
  const target = await resolveTarget(
    agent,
    opts,
    deps,
    ctx.paths,
    ctx.config,
    'any',
  );
  const known = ctx.known.includes(agent);
  if (target.hooks === 'codex') {
    if (!known) throw await unknownAgent(agent, ctx.paths, ctx.known);
    deps.output.out(
      'remove the `notify = [...]` line that runs `macs hook notify` from ~/.codex/config.toml',
    );
    return 0;
  }
  const { file, removed, others } = await uninstallClaudeHooks(
    localSettingsPath(target.dir),
    agent,
  );
  if (removed === 0 && !known)
    throw await unknownAgent(
      agent,
      ctx.paths,
      ctx.known,
      ` and no macs hooks for it in ${file}${others.length > 0 ? ` (it has hooks for ${others.join(', ')})` : ''}`,
    );
  deps.output.out(
    removed > 0
      ? `removed ${removed} macs hook${removed === 1 ? '' : 's'} for ${agent} from ${file}; other hooks are untouched`
      : `no macs hooks for ${agent} in ${file}`,
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
