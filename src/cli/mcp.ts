// `macs mcp`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { existsSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { ConfigError } from '../errors.js';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { HomePaths } from '../home/paths.js';

export interface McpOptions extends CommonOptions {
  /** Run by a hub over ssh (docs/remote.md): serve only a macs home. */
  fromHub?: boolean;
}

/**
 * A hub reaches a host's home only where macs already is (a config, or a
 * session that ran there): a mistyped `home` is an error naming it, and
 * nothing is created on the host (before, it showed up with 0 agents and
 * got a `.macs/`). `macs start` at the hub still makes the home.
 */
export function assertHubHome(paths: HomePaths): void {
  if (
    existsSync(paths.config) ||
    existsSync(paths.sessionFile) ||
    existsSync(paths.stoppedSessionFile)
  )
    return;
  throw new ConfigError(
    `${paths.home} is not a macs home (no macs.config.json, no .macs/session.json)`,
    {
      hint: 'check the host\'s "home" in the hub\'s macs.config.json, or start macs there (macs start at the hub)',
    },
  );
}

/**
 * `macs mcp`: serve the controller's tools over MCP on stdin/stdout until
 * the client closes stdin or the process is interrupted. Nothing else is
 * written to stdout (it carries the protocol); the developer log goes to
 * `.macs/macs.log`.
 */
export async function runMcp(
  opts: McpOptions,
  deps: CliDeps,
  streams: {
    stdin: NodeJS.ReadableStream;
    stdout: NodeJS.WritableStream;
  } = { stdin: process.stdin, stdout: process.stdout },
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [{ VERSION }, { createContext }] = await Promise.all([
    import('../version.js'),
    import('./common.js'),
  ]);
  const ctx = createContext(opts, deps);
  if (opts.fromHub) assertHubHome(ctx.paths);
  const { config } = await ctx.loadConfig();
  const [{ createMacsMcpServer }, { StdioServerTransport }] = await Promise.all(
    [
      import('../mcp/mcp-server.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
    ],
  );
  // At a hub, the links to its hosts live as long as the server (docs/remote.md).
  const fleet =
    Object.keys(config.hosts).length === 0
      ? undefined
      : await import('../remote/remote-fleet.js').then((m) =>
          m.createRemoteFleet(
            {
              config,
              env: deps.env,
              paths: ctx.paths,
              version: VERSION,
              log: ctx.log,
            },
            { live: true },
          ),
        );
  const { server, recording } = createMacsMcpServer({
    ...(fleet ? { fleet } : {}),
    paths: ctx.paths,
    log: ctx.log,
    config,
    runTmux: deps.runTmux,
    ...(opts.tmuxSocket ? { socket: opts.tmuxSocket } : {}),
    version: VERSION,
    ...(opts.fromHub ? { forHub: true } : {}),
  });
  const transport = new StdioServerTransport(
    streams.stdin as never,
    streams.stdout as never,
  );
  const closed = new Promise<'closed'>((resolve) => {
    transport.onclose = () => resolve('closed');
    streams.stdin.once('end', () => resolve('closed'));
    streams.stdin.once('close', () => resolve('closed'));
  });
  await server.connect(recording(transport));
  ctx.log.info({ home: ctx.paths.home }, 'mcp server started');
  const how = await Promise.race([closed, deps.interrupted]);
  await server.close().catch(() => undefined);
  await fleet?.close();
  ctx.log.info({ how }, 'mcp server stopped');
  return how === 'SIGINT' ? 130 : 0;
}

export function registerMcpCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('mcp')
      .description(
        "serve the controller's tools over MCP on stdin/stdout (list_agents, list_requests, get_request, read_screen, answer_request, decide_approval, send_message, wait_for_request)",
      )
      .addOption(
        new Option(
          '--from-hub',
          '(run by a hub) serve only a macs home; the hub reads are no events',
        ).hideHelp(),
      )
      .addHelpText(
        'after',
        `
An MCP client (Claude Code, Codex, Gemini CLI) starts it as a stdio server;
it serves one macs home, found as every command finds it (--home, MACS_HOME,
or the nearest folder holding .macs/). Every tool call is recorded as an
mcp.call event. See docs/mcp.md.

Examples:
  claude mcp add macs -- macs mcp --home ~/project
  macs mcp --home ~/project     # speaks JSON-RPC on stdin/stdout`,
      ),
  ).action((opts: McpOptions) => run(runMcp(opts, deps)));
}
