/**
 * Installing macs's hooks into an agent (docs/hooks.md):
 *
 * - For agents that `macs start` launches (this module): a per-agent
 *   settings file under `.macs/settings/`, passed on the agent's command
 *   line (Claude Code `--settings <file>`; Codex: a CODEX_HOME of its own,
 *   codex-home.ts). The user's repository is not touched.
 *   `prepareAgentHooks` writes the file and returns the args.
 * - For agents already running: `macs hooks install <agent>` merges the same
 *   hooks into `<dir>/.claude/settings.local.json`; installing again changes
 *   nothing, and `uninstall` removes only macs's own entries
 *   (local-settings.ts, settings-merge.ts).
 *
 * The hook commands and the `hooks` section both use are built in
 * hook-command.ts. `buildAgentHookSetup` is pure; `prepareAgentHooks`
 * touches files.
 */
import { realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import { agentSettingsDir } from '../state/hook-files.js';
import { CODEX_HOOK_EVENTS } from './codex-hooks.js';
import {
  agentCodexHome,
  buildCodexConfig,
  buildCodexHooks,
  linkCodexHome,
  readCodexSource,
  userCodexHome,
} from './codex-home.js';
import { CODEX_NOTIFY_EVENT } from './codex-notify.js';
import {
  buildClaudeHooks,
  buildHookArgv,
  buildHookCommand,
  defaultMacsCommand,
  HOOK_TIMEOUT_SEC,
  type HookCommandOptions,
} from './hook-command.js';

export type HooksKind = 'claude' | 'codex' | 'none';

export interface AgentHookSetup {
  /** Arguments to add to the agent's command line. */
  args: string[];
  /** Environment for the agent's pane (hooks also find their agent by it). */
  env: Record<string, string>;
  /** Files to write before the agent starts. */
  files: { path: string; content: string }[];
  /** Codex: the user's Codex home to link sign-in and instructions from. */
  codexLinks?: { home: string; source: string };
}

export interface AgentHookOptions {
  agent: string;
  /** The preset's `hooks`. */
  hooks: HooksKind;
  paths: HomePaths;
  askTimeoutSec: number;
  macsCommand?: readonly string[];
  /** Codex: the user's Codex home (default: `$CODEX_HOME`, else `~/.codex`). */
  codexSourceHome?: string;
  /** Codex: the text of the user's config.toml (read by prepareAgentHooks). */
  codexSourceConfig?: string;
  /**
   * Codex: the agent's Codex home as Codex names it (symbolic links
   * resolved; prepareAgentHooks finds it), for the keys of its hook trust.
   */
  codexHomeResolved?: string;
}

/** The per-agent settings file for an agent macs starts. */
export function agentSettingsPath(paths: HomePaths, agent: string): string {
  return path.join(agentSettingsDir(paths), `${agent}.claude.json`);
}

/**
 * Pure: what an agent macs starts needs for its hooks. For Claude Code a
 * settings file and `--settings <file>`; for Codex a Codex home of its own
 * (`CODEX_HOME=.macs/codex/<agent>`) whose config.toml is the user's with
 * macs's `notify` (no command-line settings: those put Codex in embedded
 * mode) and a `hooks.json` of macs's lifecycle hooks, trusted there;
 * nothing for presets without hooks. Claude Code merges `--settings` with the
 * user's own settings, so the user's hooks keep running too.
 */
export function buildAgentHookSetup(options: AgentHookOptions): AgentHookSetup {
  const command: HookCommandOptions = {
    macsCommand: options.macsCommand ?? defaultMacsCommand(),
    agent: options.agent,
    home: options.paths.home,
  };
  const env = { MACS_AGENT: options.agent, MACS_HOME: options.paths.home };
  switch (options.hooks) {
    case 'claude': {
      const file = agentSettingsPath(options.paths, options.agent);
      const settings = {
        hooks: buildClaudeHooks({
          ...command,
          askTimeoutSec: options.askTimeoutSec,
        }),
      };
      return {
        args: ['--settings', file],
        env,
        files: [
          { path: file, content: `${JSON.stringify(settings, null, 2)}\n` },
        ],
      };
    }
    case 'codex': {
      const home = agentCodexHome(options.paths.runtime, options.agent);
      const source =
        options.codexSourceHome ?? userCodexHome(process.env, os.homedir());
      // Compaction and subagents: Codex's own hooks (codex-hooks.ts).
      const hooks = buildCodexHooks(
        CODEX_HOOK_EVENTS,
        (event) => buildHookCommand(event, command),
        path.join(options.codexHomeResolved ?? home, 'hooks.json'),
        HOOK_TIMEOUT_SEC,
      );
      return {
        args: [],
        env: { ...env, CODEX_HOME: home },
        files: [
          {
            path: path.join(home, 'config.toml'),
            content: buildCodexConfig(
              options.codexSourceConfig,
              buildHookArgv(CODEX_NOTIFY_EVENT, command),
              hooks.trust,
            ),
          },
          {
            path: path.join(home, 'hooks.json'),
            content: `${JSON.stringify(hooks.file, null, 2)}\n`,
          },
        ],
        codexLinks: { home, source },
      };
    }
    case 'none':
      return { args: [], env, files: [] };
    default: {
      const never: never = options.hooks;
      throw new Error(`unknown hooks kind ${String(never)}`);
    }
  }
}

/**
 * For `macs start`: write the agent's hook files (0600, in a 0700 folder)
 * and return the args and env to start it with. Call it for every agent;
 * presets without hooks get empty args.
 */
export async function prepareAgentHooks(
  options: AgentHookOptions,
): Promise<Pick<AgentHookSetup, 'args' | 'env'>> {
  let setup = buildAgentHookSetup(options);
  if (setup.codexLinks) {
    // Codex names its hooks file by its home's real path.
    await ensurePrivateDir(setup.codexLinks.home);
    const config =
      options.codexSourceConfig ??
      (await readCodexSource(setup.codexLinks.source));
    setup = buildAgentHookSetup({
      ...options,
      ...(config !== undefined ? { codexSourceConfig: config } : {}),
      codexHomeResolved: await realpath(setup.codexLinks.home),
    });
  }
  for (const file of setup.files) {
    await ensurePrivateDir(path.dirname(file.path));
    await writeFileAtomic(file.path, file.content);
  }
  if (setup.codexLinks)
    await linkCodexHome(setup.codexLinks.home, setup.codexLinks.source);
  return { args: setup.args, env: setup.env };
}
