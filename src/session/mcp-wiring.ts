/**
 * Part 2 of issue 13: a controller of a known preset is started with
 * `macs mcp` registered as its MCP server, through what each program reads
 * for one run, never through the user's own config (docs/mcp.md):
 *
 * - Claude Code: `--mcp-config <file>`, a JSON file with `mcpServers`, kept
 *   in `.macs/mcp/<agent>.claude.json`. Claude Code adds these servers to
 *   the user's own. `--allowedTools mcp__macs` lets it call the macs tools
 *   without asking: Claude Code asks a person before every MCP tool call
 *   not allowed, and that dialog would hold the controller's loop (each
 *   `wait_for_request`) until someone answers it in the controller's pane.
 * - Codex: `-c mcp_servers.macs.<key>=<TOML value>` overrides on its command
 *   line. Nothing is written: a CODEX_HOME of macs's own would also hide the
 *   user's sign-in (`auth.json`) and config from the controller, while `-c`
 *   adds one server to this run and changes nothing else.
 * - Gemini CLI: a settings file with `mcpServers` in
 *   `.macs/mcp/<agent>.gemini.json`, named by GEMINI_CLI_SYSTEM_SETTINGS_PATH
 *   (the system settings layer; Gemini merges `mcpServers` of every layer, so
 *   the user's servers stay). It replaces a system-wide
 *   /etc/gemini-cli/settings.json for this one process.
 *
 * Other presets get nothing here: they answer as the typed-text controller
 * (the interactive backend), which stays the fallback.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { MacsConfig } from '../config/schema.js';
import { defaultMacsCommand } from '../hooks/hook-command.js';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';

/** The name macs's server goes by in each agent (tools: `mcp__macs__…` in Claude Code). */
export const MCP_SERVER_NAME = 'macs';
/**
 * Claude Code's permission rule for every tool of one MCP server: the
 * server's name after `mcp__`, no tool name (its permissions docs).
 */
export const CLAUDE_MCP_ALLOW_RULE = `mcp__${MCP_SERVER_NAME}`;
/**
 * How long an agent lets one macs tool call run, in seconds: the longest
 * `wait_for_request` (600 s) and a margin.
 */
export const MCP_TOOL_TIMEOUT_SEC = 660;

export type McpWiringKind = 'claude' | 'codex' | 'gemini';

/** Which wiring a preset gets; undefined: none (a typed-text controller). */
export function mcpWiringKind(preset: string): McpWiringKind | undefined {
  return preset === 'claude' || preset === 'codex' || preset === 'gemini'
    ? preset
    : undefined;
}

/** Does any request go to a controller pane as typed text (the interactive backend)? */
export function usesInteractiveBackend(
  config: Pick<MacsConfig, 'backend' | 'routes' | 'fallback'>,
): boolean {
  return (
    config.backend === 'interactive' ||
    Object.values(config.routes).some((chain) =>
      chain.includes('interactive'),
    ) ||
    config.fallback.includes('interactive')
  );
}

/** The stdio server an agent starts: `<macs> mcp --home H --tmux-socket S`. */
export interface McpServerCommand {
  command: string;
  args: string[];
}

export function buildMcpServerCommand(options: {
  home: string;
  socket: string;
  config?: string;
  macsCommand?: readonly string[];
}): McpServerCommand {
  const [command = process.execPath, ...rest] =
    options.macsCommand ?? defaultMacsCommand();
  return {
    command,
    args: [
      ...rest,
      'mcp',
      '--home',
      options.home,
      '--tmux-socket',
      options.socket,
      ...(options.config ? ['--config', options.config] : []),
    ],
  };
}

/** What a controller is started with: extra args, env, and files to write first. */
export interface McpWiring {
  kind: McpWiringKind;
  args: string[];
  env: Record<string, string>;
  files: { path: string; content: string }[];
}

export function mcpConfigDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'mcp');
}

/** A TOML basic string (JSON's escapes are TOML's for these). */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** Pure: the wiring of one controller. */
export function buildMcpWiring(options: {
  kind: McpWiringKind;
  agent: string;
  paths: HomePaths;
  server: McpServerCommand;
}): McpWiring {
  const { kind, agent, paths, server } = options;
  switch (kind) {
    case 'claude': {
      const file = path.join(mcpConfigDir(paths), `${agent}.claude.json`);
      const config = {
        mcpServers: {
          [MCP_SERVER_NAME]: {
            type: 'stdio',
            command: server.command,
            args: server.args,
          },
        },
      };
      return {
        kind,
        // Both options take several values; each ends the other's list,
        // and --mcp-config stays last (docs/mcp.md).
        args: ['--allowedTools', CLAUDE_MCP_ALLOW_RULE, '--mcp-config', file],
        // Claude Code's limit on one MCP tool call, in ms.
        env: { MCP_TOOL_TIMEOUT: String(MCP_TOOL_TIMEOUT_SEC * 1000) },
        files: [
          { path: file, content: `${JSON.stringify(config, null, 2)}\n` },
        ],
      };
    }
    case 'codex': {
      const key = `mcp_servers.${MCP_SERVER_NAME}`;
      return {
        kind,
        args: [
          '-c',
          `${key}.command=${tomlString(server.command)}`,
          '-c',
          `${key}.args=[${server.args.map(tomlString).join(',')}]`,
          '-c',
          `${key}.tool_timeout_sec=${MCP_TOOL_TIMEOUT_SEC}`,
        ],
        env: {},
        files: [],
      };
    }
    case 'gemini': {
      const file = path.join(mcpConfigDir(paths), `${agent}.gemini.json`);
      const settings = {
        mcpServers: {
          [MCP_SERVER_NAME]: {
            command: server.command,
            args: server.args,
            // Gemini's limit on one MCP call, in ms.
            timeout: MCP_TOOL_TIMEOUT_SEC * 1000,
          },
        },
      };
      return {
        kind,
        args: [],
        env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: file },
        files: [
          { path: file, content: `${JSON.stringify(settings, null, 2)}\n` },
        ],
      };
    }
  }
}

/**
 * The nearest folder at or above `dir` that group or others may write to.
 * Gemini CLI (0.61) skips a system settings file under such a folder (it
 * says "Parent directory '/tmp' is insecure") and starts without the macs
 * server, so `macs start` warns about it.
 */
export async function insecureAncestor(
  dir: string,
): Promise<string | undefined> {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const info = await stat(at).catch(() => undefined);
    if (info && (info.mode & 0o022) !== 0) return at;
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * For `macs start`: the wiring of a controller of preset `preset`, its
 * files written (0600 in a 0700 folder); undefined for a preset without.
 * `warning`: why the agent may still not see the server.
 */
export async function prepareMcpWiring(options: {
  preset: string;
  agent: string;
  paths: HomePaths;
  socket: string;
  config?: string;
  macsCommand?: readonly string[];
}): Promise<(McpWiring & { warning?: string }) | undefined> {
  const kind = mcpWiringKind(options.preset);
  if (!kind) return undefined;
  const wiring = buildMcpWiring({
    kind,
    agent: options.agent,
    paths: options.paths,
    server: buildMcpServerCommand({
      home: options.paths.home,
      socket: options.socket,
      ...(options.config ? { config: options.config } : {}),
      ...(options.macsCommand ? { macsCommand: options.macsCommand } : {}),
    }),
  });
  for (const file of wiring.files) {
    await ensurePrivateDir(path.dirname(file.path));
    await writeFileAtomic(file.path, file.content);
  }
  if (kind === 'gemini') {
    const open = await insecureAncestor(mcpConfigDir(options.paths));
    if (open)
      return {
        ...wiring,
        warning: `${options.agent}: Gemini CLI ignores its settings file under ${open}, a folder others may write to, so it will not have the macs tools; use a home outside it (docs/mcp.md)`,
      };
  }
  return wiring;
}
