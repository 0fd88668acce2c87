import { constants } from 'node:fs';
import { access, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { MacsConfig } from '../config/schema.js';
import { MacsError, TmuxError, errorMessage } from '../errors.js';
import type { EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import {
  ensureHomeDirs,
  ensurePrivateDir,
  fileExists,
  FILE_MODE,
} from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import type { TmuxClient } from '../tmux/client.js';
import { TMUX_INSTALL_HINT, type RunTmux } from '../tmux/run.js';
import {
  buildHasSessionArgs,
  buildKillSessionArgs,
  buildNewSessionArgs,
  buildNewWindowArgs,
  buildRespawnPaneArgs,
  buildSelectLayoutArgs,
  buildSetWindowOptionArgs,
  buildSplitWindowArgs,
  parseTmuxVersion,
} from '../tmux/session-args.js';
import { loadPrompt } from '../config/prompts.js';
import {
  AGENTS_WINDOW,
  BRIDGE_WINDOW,
  PANE_BORDER_FORMAT,
  PLACEHOLDER_COMMAND,
  SESSION_HEIGHT,
  SESSION_WIDTH,
  STATUS_WINDOW,
  buildBridgeCommand,
  buildStatusCommand,
  describeCommand,
  programOf,
} from './layout.js';
import type { PlannedAgent } from './plan.js';
import {
  SESSION_NAME,
  newSessionId,
  removeSessionRecord,
  writeSessionRecord,
  type SessionAgentRecord,
  type SessionRecord,
} from './record.js';
import { createRunGit, type RunGit } from '../backends/git.js';
import { ensureWorktree } from './worktree.js';
import { planLaunch, preparePane, runInPane } from './launch.js';
import {
  mcpWiringKind,
  prepareMcpWiring,
  usesInteractiveBackend,
} from './mcp-wiring.js';

/** The oldest tmux with `respawn-pane -e/-c` and direct argv execution. */
export const MIN_TMUX_VERSION: readonly [number, number] = [3, 0];

/**
 * tmux must be installed and recent enough. A missing binary is a TmuxError
 * (exit 3) from the runner, with how to install it.
 */
export async function checkTmux(run: RunTmux): Promise<string> {
  const result = await run(['-V']);
  const text = `${result.stdout}${result.stderr}`.trim();
  if (result.exitCode !== 0)
    throw new TmuxError(`could not run tmux -V: ${text}`, {
      hint: TMUX_INSTALL_HINT,
    });
  const version = parseTmuxVersion(text);
  const [major, minor] = MIN_TMUX_VERSION;
  if (
    version &&
    (version[0] < major || (version[0] === major && version[1] < minor))
  ) {
    throw new TmuxError(
      `${text} is too old; macs start needs tmux ${major}.${minor} or newer`,
      {
        hint: TMUX_INSTALL_HINT,
      },
    );
  }
  return text;
}

/** Is the macs session up on this server? */
export async function isSessionRunning(
  tmux: TmuxClient,
  session = SESSION_NAME,
): Promise<boolean> {
  try {
    await tmux.command(buildHasSessionArgs(session));
    return true;
  } catch {
    return false;
  }
}

/** Is the program runnable (an executable path, or a name on PATH)? */
export async function isProgramOnPath(
  program: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<boolean> {
  const executable = (file: string) =>
    access(file, constants.X_OK).then(
      () => true,
      () => false,
    );
  if (program.includes('/')) return executable(path.resolve(cwd, program));
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean))
    if (await executable(path.join(dir, program))) return true;
  return false;
}

/** The variables among `keys` that `env` sets to exactly `true`. */
export function headlessEnvOf(
  keys: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  return keys.filter((key) => env[key] === 'true');
}

export interface StartSessionOptions {
  tmux: TmuxClient;
  paths: HomePaths;
  config: MacsConfig;
  agents: readonly PlannedAgent[];
  socket: string;
  /** How to run macs itself (for the bridge and status windows). */
  macsArgv: readonly string[];
  /** An explicit config file, passed on to the bridge. */
  configFile?: string;
  demo?: { runId: string; result: string };
  events: EventSink;
  log: Logger;
  env: NodeJS.ProcessEnv;
  runGit?: RunGit;
  /** The new session's id (default: a fresh one). */
  sessionId?: string;
}

export interface StartedSession {
  record: SessionRecord;
  /** Things the person should know (a program not on PATH, ...). */
  warnings: string[];
}

async function paneOutput(tmux: TmuxClient, args: string[]): Promise<string> {
  const pane = (await tmux.command(args)).trim();
  if (!/^%\d+$/.test(pane))
    throw new TmuxError(
      `tmux ${args[0] ?? ''} did not print a pane id: '${pane}'`,
      { args },
    );
  return pane;
}

/**
 * Create the session of `macs start` (see layout.ts) on the private server
 * and record it in `.macs/session.json`. Every pane is created running a
 * placeholder, tagged and piped into its log, and only then given its real
 * program with respawn-pane, so capture sees the program's first byte. Any
 * failure removes what was created, so no half session is left behind.
 */
export async function startSession(
  options: StartSessionOptions,
): Promise<StartedSession> {
  const { tmux, paths, agents, socket, events, log } = options;
  const warnings: string[] = [];
  if (agents.length === 0) throw new MacsError('no agents to start');
  if (await isSessionRunning(tmux)) {
    throw new MacsError(
      `a macs session is already running for ${paths.home} (tmux -L ${socket})`,
      { hint: 'attach to it with `macs attach`, or end it with `macs stop`' },
    );
  }
  const serverWasRunning = await tmux.isServerRunning();

  await ensureHomeDirs(paths);
  await ensurePrivateDir(paths.panes);
  const ignore = path.join(paths.runtime, '.gitignore');
  if (!(await fileExists(ignore)))
    await writeFile(ignore, '# macs runtime files\n*\n', { mode: FILE_MODE });

  // Folders first: a bad cwd or worktree fails before tmux is touched.
  const runGit = options.runGit ?? createRunGit(options.env);
  const prepared: (PlannedAgent & {
    tree?: { path: string; branch: string };
  })[] = [];
  for (const agent of agents) {
    let cwd = agent.cwd;
    let worktree: { path: string; branch: string } | undefined;
    if (agent.worktree) {
      const tree = await ensureWorktree({
        runGit,
        agent: agent.name,
        cwd,
        worktreesDir: path.join(paths.runtime, 'worktrees'),
      });
      worktree = { path: tree.path, branch: tree.branch };
      cwd = (await stat(tree.cwd).then(
        (s) => s.isDirectory(),
        () => false,
      ))
        ? tree.cwd
        : tree.path;
    } else if (
      !(await stat(cwd).then(
        (s) => s.isDirectory(),
        () => false,
      ))
    ) {
      throw new MacsError(
        `agent '${agent.name}': folder ${cwd} does not exist`,
        {
          hint: 'fix its "cwd" in macs.config.json',
        },
      );
    }
    const program = programOf(agent.command);
    if (program && !(await isProgramOnPath(program, options.env, cwd)))
      warnings.push(
        `${agent.name}: '${program}' was not found on PATH; its pane will say so and the agent will show as dead`,
      );
    const headless = headlessEnvOf(agent.preset.headlessEnv ?? [], {
      ...options.env,
      ...agent.env,
    });
    if (headless.length > 0)
      warnings.push(
        `${agent.name}: ${headless.map((key) => `${key}=true`).join(' and ')} in the environment makes ${agent.preset.description || agent.preset.name} start without its screen and exit; unset ${headless.join(' and ')} before macs start (or set it in the agent's "env" to false)`,
      );
    prepared.push({ ...agent, cwd, ...(worktree ? { tree: worktree } : {}) });
  }

  // The first message of workers without hooks: <home>/prompts/worker.md, else the packaged one.
  const prompt = agents.some((a) => a.prompt)
    ? await loadPrompt('worker', { home: paths.home })
    : undefined;
  // A controller wired to `macs mcp` learns its tools from its first
  // message, unless requests are typed into it (the interactive backend):
  // then each envelope says what to do.
  const mcpPrompt = agents.some(
    (a) => a.role === 'controller' && mcpWiringKind(a.preset.name),
  )
    ? usesInteractiveBackend(options.config)
      ? undefined
      : await loadPrompt('controller-mcp', { home: paths.home })
    : undefined;
  let created = false;
  try {
    // 1. Panes with placeholders; ids captured as they are made.
    const [first, ...rest] = prepared;
    if (!first) throw new MacsError('no agents to start');
    const firstPane = await paneOutput(
      tmux,
      buildNewSessionArgs({
        session: SESSION_NAME,
        window: AGENTS_WINDOW,
        width: SESSION_WIDTH,
        height: SESSION_HEIGHT,
        cwd: first.cwd,
        command: PLACEHOLDER_COMMAND,
      }),
    );
    created = true;
    const panes = [firstPane];
    for (const agent of rest) {
      panes.push(
        await paneOutput(
          tmux,
          buildSplitWindowArgs({
            pane: firstPane,
            cwd: agent.cwd,
            command: PLACEHOLDER_COMMAND,
          }),
        ),
      );
      await tmux.command(buildSelectLayoutArgs(firstPane, 'tiled'));
    }
    const bridgePane = await paneOutput(
      tmux,
      buildNewWindowArgs({
        session: SESSION_NAME,
        window: BRIDGE_WINDOW,
        cwd: paths.home,
        command: PLACEHOLDER_COMMAND,
      }),
    );
    const statusPane = await paneOutput(
      tmux,
      buildNewWindowArgs({
        session: SESSION_NAME,
        window: STATUS_WINDOW,
        cwd: paths.home,
        command: PLACEHOLDER_COMMAND,
      }),
    );
    for (const pane of [firstPane, bridgePane, statusPane])
      await tmux.command(
        buildSetWindowOptionArgs(pane, 'remain-on-exit', 'on'),
      );
    await tmux.command(
      buildSetWindowOptionArgs(firstPane, 'pane-border-status', 'top'),
    );
    await tmux.command(
      buildSetWindowOptionArgs(
        firstPane,
        'pane-border-format',
        PANE_BORDER_FORMAT,
      ),
    );

    // 2. Tags, titles and capture, before any agent prints a byte.
    const entries: SessionAgentRecord[] = [];
    for (const [index, agent] of prepared.entries()) {
      const pane = panes[index] ?? firstPane;
      await preparePane(tmux, paths, pane, agent.name);
      if (agent.prompt && !prompt)
        warnings.push(
          `${agent.name}: prompts/worker.md was not found; no first message is sent`,
        );
      entries.push({
        name: agent.name,
        role: agent.role,
        preset: agent.preset.name,
        pane,
        command: describeCommand(agent.command),
        cwd: agent.cwd,
        ...(agent.tree ? { worktree: agent.tree } : {}),
        ...(agent.prompt && prompt ? { prompt: { file: prompt.file } } : {}),
        ...(agent.role === 'controller' &&
        mcpWiringKind(agent.preset.name) &&
        mcpPrompt
          ? { prompt: { file: mcpPrompt.file } }
          : {}),
      });
    }

    // 3. The agents' programs, each with its own hook settings (Claude Code:
    // `--settings <per-agent file>`; Codex: a CODEX_HOME of its own), so the user's
    // repository is never touched.
    for (const [index, agent] of prepared.entries()) {
      const entry = entries[index];
      if (!entry) continue;
      // A controller of a known preset gets `macs mcp` as its MCP server
      // (session/mcp-wiring.ts); others answer as typed-text controllers.
      const mcp =
        agent.role === 'controller'
          ? await prepareMcpWiring({
              preset: agent.preset.name,
              agent: agent.name,
              paths,
              socket,
              macsCommand: options.macsArgv,
              ...(options.configFile ? { config: options.configFile } : {}),
            })
          : undefined;
      const { launch, warning } = await planLaunch({
        paths,
        agent: agent.name,
        command: agent.command,
        hooks: agent.preset.hooks,
        cwd: agent.cwd,
        env: agent.env,
        socket,
        askTimeoutSec: options.config.policy.askTimeoutSec,
        role: agent.role,
        ...(mcp ? { mcp } : {}),
      });
      if (mcp) entry.mcp = mcp.kind;
      if (mcp?.warning) warnings.push(mcp.warning);
      if (warning) warnings.push(warning);
      entry.launch = launch;
      const pid = await runInPane(tmux, entry.pane, launch);
      if (pid) entry.pid = pid;
    }

    // 4. The record, then the bridge (which reads it) and the status view.
    const record: SessionRecord = {
      version: 1,
      id: options.sessionId ?? newSessionId(),
      home: paths.home,
      socket,
      session: SESSION_NAME,
      createdAt: new Date().toISOString(),
      backend: options.config.backend,
      ...(options.configFile ? { config: options.configFile } : {}),
      ...(options.demo ? { demo: options.demo } : {}),
      panes: { bridge: bridgePane, status: statusPane },
      agents: entries,
    };
    await writeSessionRecord(paths, record);
    const sessionEnv = { MACS_HOME: paths.home, MACS_TMUX_SOCKET: socket };
    await tmux.command(
      buildRespawnPaneArgs({
        pane: bridgePane,
        cwd: paths.home,
        env: sessionEnv,
        command: buildBridgeCommand({
          macsArgv: options.macsArgv,
          home: paths.home,
          socket,
          ...(options.configFile ? { config: options.configFile } : {}),
        }),
      }),
    );
    await tmux.command(
      buildRespawnPaneArgs({
        pane: statusPane,
        cwd: paths.home,
        env: sessionEnv,
        command: buildStatusCommand({
          macsArgv: options.macsArgv,
          home: paths.home,
          socket,
        }),
      }),
    );
    await events
      .emit({
        agent: 'session',
        type: 'session.started',
        data: {
          session: record.id,
          socket,
          agents: entries.map((e) => ({
            name: e.name,
            role: e.role,
            preset: e.preset,
            pane: e.pane,
          })),
          ...(options.demo ? { demo: options.demo.runId } : {}),
        },
      })
      .catch((error: unknown) =>
        log.warn({ err: error }, 'could not record session.started'),
      );
    log.info({ socket, agents: entries.length }, 'session started');
    return { record, warnings };
  } catch (error) {
    if (created) {
      log.error(
        { err: error },
        'session start failed; removing what was created',
      );
      await tmux
        .command(
          serverWasRunning
            ? buildKillSessionArgs(SESSION_NAME)
            : ['kill-server'],
        )
        .catch(() => undefined);
      await removeSessionRecord(paths).catch(() => undefined);
    }
    if (error instanceof MacsError) throw error;
    throw new MacsError(`could not start the session: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}
