import { rename } from 'node:fs/promises';
import { prepareAgentHooks, type HooksKind } from '../hooks/install.js';
import { ensurePrivateFileSync, fileExists } from '../home/fs.js';
import { paneLogPath, type HomePaths } from '../home/paths.js';
import { quoteShellArg } from '../tmux/args.js';
import type { TmuxClient } from '../tmux/client.js';
import {
  buildDisplayArgs,
  buildPipePaneArgs,
  buildSetPaneOptionArgs,
} from '../tmux/args.js';
import {
  buildRespawnPaneArgs,
  buildSetPaneTitleArgs,
} from '../tmux/session-args.js';
import {
  buildAgentEnv,
  buildLaunchArgv,
  withExtraArgs,
  type LaunchCommand,
} from './session-layout.js';
import type { AgentLaunch } from './record.js';

/**
 * Putting an agent's program into a pane, shared by `macs start`, `macs add`
 * and `macs restart`: the pane is tagged and piped into its log before the
 * program prints its first byte; the program gets its hook settings on its
 * command line and macs's environment (SPEC §7).
 */

/** A new pane log per program run: the previous one is kept as `<agent>.log.prev`. */
export async function rotatePaneLog(
  paths: HomePaths,
  agent: string,
): Promise<string> {
  const file = paneLogPath(paths, agent);
  if (await fileExists(file)) await rename(file, `${file}.prev`);
  // tmux's `cat >>` follows links: the log must be a file of ours first.
  ensurePrivateFileSync(file);
  return file;
}

/** The tmux commands that tag a pane for an agent, title it and pipe it into `logFile`. */
function buildPreparePaneCommands(
  pane: string,
  agent: string,
  logFile: string,
): string[][] {
  return [
    buildSetPaneOptionArgs(pane, '@macs_agent', agent),
    buildSetPaneTitleArgs(pane, agent),
    buildPipePaneArgs(pane, `exec cat >> ${quoteShellArg(logFile)}`),
    buildSetPaneOptionArgs(pane, '@macs_pipe', logFile),
  ];
}

/** Tag a pane for an agent, title it and pipe it into a fresh log, in one tmux call. */
export async function preparePane(
  tmux: TmuxClient,
  paths: HomePaths,
  pane: string,
  agent: string,
): Promise<void> {
  const logFile = await rotatePaneLog(paths, agent);
  await tmux.chain(buildPreparePaneCommands(pane, agent, logFile), pane);
}

/**
 * How an agent is launched: its command with its hook settings added, the
 * exact argv, folder and environment. `warning` when the hook settings
 * could not be added (a command that is not one simple command).
 */
export async function planLaunch(options: {
  paths: HomePaths;
  agent: string;
  command: LaunchCommand;
  hooks: HooksKind;
  cwd: string;
  env: Readonly<Record<string, string>>;
  socket: string;
  askTimeoutSec: number;
  /** `controller`: MACS_ROLE=controller in its environment (buildAgentEnv). */
  role?: 'worker' | 'controller';
  /** A controller's MCP wiring (session/mcp-wiring.ts): args after the hooks', env. */
  mcp?: { args: readonly string[]; env: Readonly<Record<string, string>> };
}): Promise<{ launch: AgentLaunch; warning?: string }> {
  const hooks = await prepareAgentHooks({
    agent: options.agent,
    hooks: options.hooks,
    paths: options.paths,
    askTimeoutSec: options.askTimeoutSec,
    // An agent configured with a Codex home of its own: its config is the
    // source of the one macs writes.
    ...(options.env.CODEX_HOME
      ? { codexSourceHome: options.env.CODEX_HOME }
      : {}),
  });
  const extraArgs = [...hooks.args, ...(options.mcp?.args ?? [])];
  const withHooks = withExtraArgs(options.command, extraArgs);
  const launch: AgentLaunch = {
    argv: buildLaunchArgv(withHooks ?? options.command),
    cwd: options.cwd,
    env: buildAgentEnv({
      agent: options.agent,
      home: options.paths.home,
      socket: options.socket,
      ...(options.role ? { role: options.role } : {}),
      // The hooks' environment (Codex: CODEX_HOME) wins over the agent's.
      extra: { ...options.mcp?.env, ...options.env, ...hooks.env },
    }),
  };
  return withHooks
    ? { launch }
    : {
        launch,
        warning: `${options.agent}: its command is not one simple command, so macs could not add its ${options.mcp?.args.length ? 'hook and MCP settings' : 'hook settings'} (${extraArgs.join(' ')}); add them yourself`,
      };
}

/** The pane's pid, printed after the program is started. */
const PANE_PID_FORMAT = '#{pane_pid}';

/** The commands that start the program and print its pid. */
function buildRunCommands(pane: string, launch: AgentLaunch): string[][] {
  return [
    buildRespawnPaneArgs({
      pane,
      cwd: launch.cwd,
      env: launch.env,
      command: launch.argv,
    }),
    buildDisplayArgs(pane, PANE_PID_FORMAT),
  ];
}

/** The pid printed by buildRunCommands, when it is one. */
function readPanePid(output: string): number | undefined {
  const last = output.trim().split('\n').at(-1) ?? '';
  const pid = /^\d+$/.test(last) ? Number(last) : 0;
  return pid > 0 ? pid : undefined;
}

/**
 * Run the agent's program in its pane (`respawn-pane -k`: whatever ran
 * there is ended), in one tmux call with the reading of its pid. Resolves
 * to the pid of the new program, when tmux says.
 */
export async function runInPane(
  tmux: TmuxClient,
  pane: string,
  launch: AgentLaunch,
): Promise<number | undefined> {
  return readPanePid(await tmux.chain(buildRunCommands(pane, launch)));
}

/**
 * preparePane then runInPane in one tmux call (`macs start`): the pane is
 * tagged and piped into its fresh log before its program starts, as tmux
 * runs the commands in order and stops at the first that fails.
 */
export async function prepareAndRunInPane(
  tmux: TmuxClient,
  paths: HomePaths,
  pane: string,
  agent: string,
  launch: AgentLaunch,
): Promise<number | undefined> {
  const logFile = await rotatePaneLog(paths, agent);
  return readPanePid(
    await tmux.chain(
      [
        ...buildPreparePaneCommands(pane, agent, logFile),
        ...buildRunCommands(pane, launch),
      ],
      pane,
    ),
  );
}
