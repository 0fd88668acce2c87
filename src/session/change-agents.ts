import type { MacsConfig } from '../config/schema.js';
import { AgentError, ConfigError, MacsError, TmuxError } from '../errors.js';
import { emitSafely, type EventSink } from '../events/log.js';
import type { Logger } from '../log/logger.js';
import { isValidAgentName } from '../protocol/ids.js';
import type { HomePaths } from '../home/paths.js';
import type { TmuxClient } from '../tmux/client.js';
import {
  buildNewWindowArgs,
  buildSelectLayoutArgs,
  buildSetWindowOptionArgs,
  buildSplitWindowArgs,
} from '../tmux/session-args.js';
import { loadPrompt } from '../config/prompts.js';
import { planLaunch, preparePane, runInPane } from './launch.js';
import {
  AGENTS_WINDOW,
  PLACEHOLDER_COMMAND,
  describeCommand,
} from './session-layout.js';
import { planAgent, workerName } from './plan.js';
import {
  chooseLaunch,
  describeLaunchChoice,
  type LaunchChoice,
} from './resume-launch.js';
import {
  writeSessionRecord,
  type SessionAgentRecord,
  type SessionRecord,
} from './record.js';

/**
 * Changing the agents of a running session (`macs add`, `macs restart`).
 * The session's bridge (`bridge --all`) follows: it finds a newly tagged
 * pane, and ends the open requests of a program that was restarted (the new
 * program never asked them: docs/reliability.md).
 */

export interface SessionChange {
  tmux: TmuxClient;
  paths: HomePaths;
  record: SessionRecord;
  config: MacsConfig;
  events: EventSink;
  log: Logger;
  /** The environment macs runs in (where agent programs keep their records). */
  env?: NodeJS.ProcessEnv;
}

/** A pane id printed by a tmux command that makes one. */
function paneOf(output: string, command: string): string {
  const pane = output.trim();
  if (!/^%\d+$/.test(pane))
    throw new TmuxError(`tmux ${command} did not print a pane id: '${pane}'`);
  return pane;
}

/** A new placeholder pane in the session's agents window (made anew when closed). */
async function newAgentPane(
  change: SessionChange,
  cwd: string,
): Promise<string> {
  const { tmux, record } = change;
  const live = await tmux.listPanes();
  const beside = live.find(
    (p) =>
      p.sessionName === record.session &&
      p.windowName === AGENTS_WINDOW &&
      record.agents.some((a) => a.pane === p.id),
  );
  if (beside) {
    const pane = paneOf(
      await tmux.command(
        buildSplitWindowArgs({
          pane: beside.id,
          cwd,
          command: PLACEHOLDER_COMMAND,
        }),
      ),
      'split-window',
    );
    await tmux.command(buildSelectLayoutArgs(beside.id, 'tiled'));
    return pane;
  }
  const pane = paneOf(
    await tmux.command(
      buildNewWindowArgs({
        session: record.session,
        window: AGENTS_WINDOW,
        cwd,
        command: PLACEHOLDER_COMMAND,
      }),
    ),
    'new-window',
  );
  await tmux.command(buildSetWindowOptionArgs(pane, 'remain-on-exit', 'on'));
  return pane;
}

/**
 * `macs add <preset>`: a new worker in the running session, in a new pane
 * of the agents window, tagged and piped before its program starts.
 */
export async function addAgent(
  change: SessionChange,
  options: { preset: string; name?: string; command?: string; cwd?: string },
): Promise<{ entry: SessionAgentRecord; warnings: string[] }> {
  const { tmux, paths, record, config } = change;
  const taken = new Set(record.agents.map((a) => a.name));
  let name = options.name;
  if (name === undefined) {
    let i = 0;
    while (taken.has(workerName(i))) i += 1;
    name = workerName(i);
  }
  if (!isValidAgentName(name))
    throw new ConfigError(`agent name '${name}' is not valid`, {
      hint: 'use letters, digits, . _ - (at most 64), starting with a letter or digit',
    });
  if (taken.has(name))
    throw new ConfigError(`the session already has an agent '${name}'`, {
      hint:
        'give the new one another --name, or restart that one: macs restart ' +
        name,
    });
  const planned = planAgent(
    {
      name,
      preset: options.preset,
      ...(options.command ? { command: options.command } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env: {},
      worktree: false,
    },
    'worker',
    config,
    paths.home,
  );
  const warnings: string[] = [];
  const pane = await newAgentPane(change, planned.cwd);
  await preparePane(tmux, paths, pane, name);
  const { launch, warning } = await planLaunch({
    paths,
    agent: name,
    command: planned.command,
    hooks: planned.preset.hooks,
    cwd: planned.cwd,
    env: planned.env,
    socket: record.socket,
    askTimeoutSec: config.policy.askTimeoutSec,
  });
  if (warning) warnings.push(warning);
  const prompt = planned.prompt
    ? await loadPrompt('worker', { home: paths.home })
    : undefined;
  if (planned.prompt && !prompt)
    warnings.push(
      `${name}: prompts/worker.md was not found; no first message is sent`,
    );
  const entry: SessionAgentRecord = {
    name,
    role: 'worker',
    preset: planned.preset.name,
    pane,
    command: describeCommand(planned.command),
    cwd: planned.cwd,
    launch,
    ...(prompt ? { prompt: { file: prompt.file } } : {}),
  };
  // Recorded before the program runs: the bridge reads its preset from here.
  await writeSessionRecord(paths, {
    ...record,
    agents: [...record.agents, entry],
  });
  const run = await chooseLaunch({
    paths,
    agent: name,
    preset: entry.preset,
    launch,
    resume: false,
    env: change.env ?? process.env,
  });
  const pid = await runInPane(tmux, pane, run.launch);
  if (pid) entry.pid = pid;
  record.agents.push(entry);
  await writeSessionRecord(paths, record);
  await emitSafely(change.events, change.log, {
    agent: name,
    type: 'agent.added',
    data: { pane, preset: entry.preset, command: entry.command },
  });
  return { entry, warnings };
}

/**
 * `macs restart <agent>`: run the agent's program again in its pane, in the
 * same folder (its worktree) and with the same command, ending whatever ran
 * there; a pane that was closed is made anew. The new program is a new
 * agent: the open requests of the old one are ended by the bridge, never
 * answered into it.
 */
export async function restartAgent(
  change: SessionChange,
  agent: string,
  options: { fresh?: boolean } = {},
): Promise<{
  entry: SessionAgentRecord;
  newPane: boolean;
  wasRunning: boolean;
  choice: LaunchChoice;
}> {
  const { tmux, paths, record } = change;
  const entry = record.agents.find((a) => a.name === agent);
  if (!entry)
    throw new AgentError(`the session has no agent '${agent}'`, {
      hint: `its agents: ${record.agents.map((a) => a.name).join(', ')}`,
    });
  if (!entry.launch)
    throw new MacsError(
      `the session was started by an older macs, which did not record how '${agent}' was launched`,
      { hint: 'stop the session and start it again (macs stop; macs start)' },
    );
  const info = await tmux.paneInfo(entry.pane).catch(() => undefined);
  if (info && info.agentTag && info.agentTag !== agent)
    throw new AgentError(
      `pane ${entry.pane} now belongs to agent '${info.agentTag}', not '${agent}'`,
    );
  let newPane = false;
  if (!info) {
    entry.pane = await newAgentPane(change, entry.launch.cwd);
    await preparePane(tmux, paths, entry.pane, agent);
    newPane = true;
  }
  const wasRunning = Boolean(info && !info.dead);
  // Its conversation goes on unless asked otherwise (docs/session.md).
  const choice = await chooseLaunch({
    paths,
    agent,
    preset: entry.preset,
    launch: entry.launch,
    resume: !options.fresh,
    env: change.env ?? process.env,
  });
  // A new conversation has not been told the worker protocol yet; one that
  // goes on has. The bridge reads this when it sees the new program: it
  // waits while `restarting` is set, then keeps the message only for the
  // pid recorded here.
  if (entry.prompt) {
    entry.prompt.restarting = true;
    if (choice.type === 'fresh') delete entry.prompt.promptedAt;
    await writeSessionRecord(paths, record);
  }
  let pid: number | undefined;
  try {
    pid = await runInPane(tmux, entry.pane, choice.launch);
  } finally {
    if (pid) entry.pid = pid;
    else delete entry.pid;
    if (entry.prompt) delete entry.prompt.restarting;
    await writeSessionRecord(paths, record);
  }
  await emitSafely(change.events, change.log, {
    agent,
    type: 'agent.restarted',
    data: {
      pane: entry.pane,
      ...(pid ? { pid } : {}),
      newPane,
      killedRunning: wasRunning,
      ...(choice.type === 'resumed'
        ? { conversation: choice.conversation, resumed: true }
        : {
            resumed: false,
            ...(choice.conversation
              ? { conversation: choice.conversation }
              : {}),
            ...(choice.why ? { fresh: choice.why } : {}),
          }),
    },
  });
  change.log.info(
    { agent, resumed: choice.type === 'resumed' },
    describeLaunchChoice(choice),
  );
  return { entry, newPane, wasRunning, choice };
}
