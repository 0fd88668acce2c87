/**
 * `macs start`: the session of agents, from the planned agents to a running
 * tmux session with its record in `.macs/session.json`. The steps live next
 * to it: prepare-agents.ts checks folders and programs, session-panes.ts
 * makes the panes and windows, launch.ts and mcp-wiring.ts put each agent's
 * program into its pane; this module runs them in order and removes what it
 * made when a step fails.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { MacsConfig } from '../config/schema.js';
import { MacsError, errorMessage } from '../errors.js';
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
import { buildKillSessionArgs } from '../tmux/session-args.js';
import { loadPrompt } from '../config/prompts.js';
import type { RunGit } from '../backends/git.js';
import { describeCommand } from './session-layout.js';
import type { PlannedAgent } from './plan.js';
import {
  SESSION_NAME,
  newSessionId,
  recordNewSession,
  removeSessionRecord,
  type SessionAgentRecord,
  type SessionRecord,
} from './record.js';
import { planLaunch, prepareAndRunInPane } from './launch.js';
import {
  mcpWiringKind,
  prepareMcpWiring,
  usesInteractiveBackend,
} from './mcp-wiring.js';
import { prepareAgents } from './prepare-agents.js';
import { chooseLaunch } from './resume-launch.js';
import {
  addSessionPanes,
  newAgentsSession,
  startSessionWindows,
} from './session-panes.js';
import { isSessionRunning } from './tmux-check.js';

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

/**
 * Create the session of `macs start` (see session-layout.ts) on the private
 * server and record it in `.macs/session.json`. Every pane is created running a
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
  const ready = await prepareAgents({
    agents,
    worktreesDir: path.join(paths.runtime, 'worktrees'),
    env: options.env,
    ...(options.runGit ? { runGit: options.runGit } : {}),
  });
  const prepared = ready.agents;
  warnings.push(...ready.warnings);

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
    const firstPane = await newAgentsSession(tmux, first.cwd);
    created = true;
    const {
      agents: panes,
      bridge: bridgePane,
      status: statusPane,
    } = await addSessionPanes(
      tmux,
      paths,
      firstPane,
      rest.map((agent) => agent.cwd),
    );

    // 2. The record of each agent.
    const entries: SessionAgentRecord[] = [];
    for (const [index, agent] of prepared.entries()) {
      const pane = panes[index] ?? firstPane;
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
    // repository is never touched. Each pane is tagged, titled and piped
    // into its log before its program prints a byte, in one tmux call.
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
      // A new conversation: Gemini CLI gets the id macs names it by.
      const run = await chooseLaunch({
        paths,
        agent: agent.name,
        preset: agent.preset.name,
        launch,
        resume: false,
        env: options.env,
      });
      const pid = await prepareAndRunInPane(
        tmux,
        paths,
        entry.pane,
        agent.name,
        run.launch,
      );
      if (pid) entry.pid = pid;
    }

    // 4. The record, then the bridge (which reads it) and the status view.
    const record = await recordNewSession(paths, {
      version: 1,
      id: options.sessionId ?? newSessionId(),
      home: paths.home,
      socket,
      backend: options.config.backend,
      ...(options.configFile ? { config: options.configFile } : {}),
      ...(options.demo ? { demo: options.demo } : {}),
      ...(options.config.nonInteractive ? { nonInteractive: true } : {}),
      panes: { bridge: bridgePane, status: statusPane },
      agents: entries,
    });
    await startSessionWindows(tmux, {
      paths,
      socket,
      macsArgv: options.macsArgv,
      ...(options.configFile ? { configFile: options.configFile } : {}),
      ...(options.config.nonInteractive ? { nonInteractive: true } : {}),
      bridge: bridgePane,
      status: statusPane,
    });
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
      await removeHalfSession(tmux, serverWasRunning);
      await removeSessionRecord(paths).catch(() => undefined);
    }
    throw asSessionError(error, 'start');
  }
}

/**
 * After a failed start or resume: the macs session goes, and the whole tmux
 * server when this command started it, so no half session is left behind.
 */
export async function removeHalfSession(
  tmux: TmuxClient,
  serverWasRunning: boolean,
): Promise<void> {
  await tmux
    .command(
      serverWasRunning ? buildKillSessionArgs(SESSION_NAME) : ['kill-server'],
    )
    .catch(() => undefined);
}

/** A failure of `what` (start, resume) as the MacsError the command shows. */
export function asSessionError(error: unknown, what: string): MacsError {
  if (error instanceof MacsError) return error;
  return new MacsError(
    `could not ${what} the session: ${errorMessage(error)}`,
    { cause: error },
  );
}
