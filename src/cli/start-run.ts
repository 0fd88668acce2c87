import { shortenCommandLine } from './shorten.js';
import path from 'node:path';
import type { BackendName, MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import { ConfigError, MacsError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import { planAgents } from '../session/plan.js';
import { startFlags, type DemoRun } from '../session/start-flags.js';
import {
  newSessionId,
  readSessionRecord,
  SESSION_NAME,
  type SessionRecord,
} from '../session/record.js';
import { expireEarlierRequests } from '../session/session-requests.js';
import { startSession } from '../session/start-session.js';
import { checkTmux, isSessionRunning } from '../session/tmux-check.js';
import {
  createAttachSession,
  type AttachSession,
} from '../tmux/attach-session.js';
import { createTmuxClient } from '../tmux/client.js';
import { endOfAttach } from './attach-end.js';
import { followDemo } from './start-demo.js';
import { createContext, type CommandContext } from './common.js';
import { reportExpiry, runStartResume } from './start-resume.js';
import type { CliDeps, CommonOptions } from './options.js';
import { printHubHints, startHostSessions } from './host-start.js';
import { mergeHubWorkers, readFromHub, type FromHub } from './from-hub.js';
import { removeHubPolicy, writeHubPolicy } from '../home/hub-policy.js';
import {
  defaultSessionSocket,
  hintCommand,
  isOnTerminal,
  resolveMacsArgv,
} from './session-common.js';

/** How much of an agent's command line `macs start`'s summary shows. */
const SUMMARY_COMMAND_CHARS = 80;

export interface StartOptions extends CommonOptions {
  demo?: boolean;
  detach?: boolean;
  backend?: string;
  worker?: string[];
  controller?: string;
  /** `--no-wait`: with --demo --detach, return at once. */
  wait?: boolean;
  /** A running session: start its bridge and status windows again, keep its requests. */
  resume?: boolean;
  /** `--non-interactive`: run unattended (docs/unattended.md). */
  nonInteractive?: boolean;
  /** On a host: the hub's workers for it and its policy, read as JSON from stdin (from-hub.ts). */
  fromHub?: boolean;
}

/**
 * `macs start`: create the session (agents, bridge, status) on the home's
 * private tmux server, then attach, or print how to attach when detached or
 * not on a terminal. With `--demo`, the built-in scripted agents.
 */
export async function runStart(
  opts: StartOptions,
  deps: CliDeps,
  attach: AttachSession = createAttachSession(deps.env),
): Promise<number> {
  const ctx = createContext(opts, deps, { create: true });
  await checkTmux(deps.runTmux);
  const record = await readSessionRecord(ctx.paths);
  if (opts.resume) {
    const code = await runStartResume(opts, deps, ctx, record, attach);
    if (code !== undefined) return code;
    // A demo whose server is gone: the demo again.
    return runStart({ ...opts, resume: false, demo: true }, deps, attach);
  }
  refuseDemoWithAgents(opts);
  const { flags, demo } = startFlags(
    { ...opts, backend: opts.backend as BackendName | undefined },
    ctx.paths,
  );
  const { config, hub } = await loadStartConfig(opts, deps, ctx, flags);
  // Each host starts its own session (docs/remote.md) while this one starts;
  // a hub may have none. Their lines come before this machine's.
  const hosts = opts.demo ? undefined : startHostSessions(config, deps);
  if (hosts && localWorkers(config).length === 0) {
    const code = await hosts.finish();
    if (code === 0) printHubHints(opts, deps);
    return code;
  }
  let hostsReported = false;
  const reportHosts = async () => {
    if (!hosts || hostsReported) return;
    hostsReported = true;
    await hosts.finish();
  };
  try {
    const agents = planAgents(config, ctx.paths.home);
    if (record) await refuseRunningSession(record, opts, deps, ctx);
    // A new session: the given server, else the home's own (a stale record's is not reused).
    const socket =
      opts.tmuxSocket ?? (await defaultSessionSocket(ctx.paths, deps.env));
    const since = new Date(Date.now() - 1000);
    const launch = { opts, deps, ctx, config, socket, demo, hub };
    const started = await launchSession(launch, agents);
    await reportHosts();
    printStarted(launch, started);
    return await afterStart(launch, started, attach, since);
  } finally {
    // Also when this machine's start failed: what the hosts did is said.
    await reportHosts();
  }
}

function refuseDemoWithAgents(opts: StartOptions): void {
  if (opts.demo && (opts.worker?.length || opts.controller)) {
    throw new ConfigError(
      '--demo starts its own scripted agents; leave out --worker and --controller',
      { hint: 'macs start --demo, or macs start --worker "codex"' },
    );
  }
}

/** The config of a new session: the home's own policy, or the hub's. */
async function loadStartConfig(
  opts: StartOptions,
  deps: CliDeps,
  ctx: CommandContext,
  flags: Partial<MacsConfig>,
): Promise<{ config: MacsConfig; hub?: FromHub }> {
  // A new session's policy is the hub's (below) or this home's own, never
  // one a hub left from an earlier session.
  const loaded = (await ctx.loadConfig(flags, { ownPolicy: true })).config;
  if (!opts.fromHub) return { config: loaded };
  const hub = await readFromHub(deps);
  return {
    config: mergeHubWorkers({ ...loaded, policy: hub.policy }, hub.workers),
    hub,
  };
}

/** A session of this home that runs already is refused, saying what to do. */
async function refuseRunningSession(
  record: SessionRecord,
  opts: StartOptions,
  deps: CliDeps,
  ctx: CommandContext,
): Promise<void> {
  const other = createTmuxClient(record.socket, deps.runTmux);
  if (await isSessionRunning(other, record.session)) {
    throw new MacsError(
      `a macs session is already running for ${ctx.paths.home} (tmux -L ${record.socket})`,
      {
        hint: `attach to it with \`${hintCommand('attach', opts, deps)}\`, start its bridge and status again with \`${hintCommand('start --resume', opts, deps)}\`, or end it with \`${hintCommand('stop', opts, deps)}\``,
      },
    );
  }
}

/** What starting this machine's session needs. */
interface Launch {
  opts: StartOptions;
  deps: CliDeps;
  ctx: CommandContext;
  config: MacsConfig;
  socket: string;
  demo: DemoRun | undefined;
  hub: FromHub | undefined;
}

type Started = Awaited<ReturnType<typeof startSession>>;

/**
 * The session started: earlier requests expired, the approvals' policy
 * written, then the agents, bridge and status windows.
 */
async function launchSession(
  launch: Launch,
  agents: ReturnType<typeof planAgents>,
): Promise<Started> {
  const { opts, deps, ctx, socket, demo, hub } = launch;
  const events = createEventLog(ctx.paths);
  // Requests still open from an earlier session: its agents are gone, and
  // the new ones never asked them. Expired (archived), never delivered.
  const sessionId = newSessionId();
  const expiry = await expireEarlierRequests({
    paths: ctx.paths,
    events,
    log: ctx.log.child({ component: 'start' }),
    session: sessionId,
  });
  reportExpiry(expiry, opts, deps);
  // The hub's rules for this session's approvals, or this home's own
  // again (home/hub-policy.ts).
  if (hub) await writeHubPolicy(ctx.paths.runtime, hub.policy);
  else await removeHubPolicy(ctx.paths.runtime);
  try {
    return await startSession({
      tmux: createTmuxClient(socket, deps.runTmux),
      paths: ctx.paths,
      config: launch.config,
      agents,
      socket,
      macsArgv: resolveMacsArgv(),
      ...(opts.config
        ? { configFile: path.resolve(deps.cwd, opts.config) }
        : {}),
      ...(demo ? { demo } : {}),
      events,
      log: ctx.log.child({ component: 'start' }),
      env: deps.env,
      sessionId,
    });
  } catch (error) {
    if (error instanceof MacsError && /already running/.test(error.message)) {
      throw new MacsError(error.message, {
        hint: `attach to it with \`${hintCommand('attach', opts, deps)}\`, or end it with \`${hintCommand('stop', opts, deps)}\``,
        cause: error,
      });
    }
    throw error;
  }
}

/** The session's summary: its server, each agent, its windows, warnings. */
function printStarted(launch: Launch, started: Started): void {
  const { opts, deps, ctx, socket } = launch;
  const out = deps.output.out;
  out(
    `macs: started ${opts.demo ? 'the demo' : 'a session'} in ${ctx.paths.home} on the private tmux server ${socket} (tmux -L ${socket})`,
  );
  for (const agent of started.record.agents) {
    const where = agent.worktree
      ? `  [worktree ${path.relative(ctx.paths.home, agent.worktree.path)} on ${agent.worktree.branch}]`
      : '';
    out(
      `  ${agent.role === 'controller' ? 'controller' : 'worker    '}  ${agent.name.padEnd(12)} ${agent.pane.padEnd(4)} ${agent.preset.padEnd(8)} ${shortenCommandLine(agent.command, SUMMARY_COMMAND_CHARS)}${where}`,
    );
  }
  out(
    `  windows: agents, bridge (macs bridge --all, ${launch.config.backend} backend), status (macs status --watch)`,
  );
  for (const warning of started.warnings)
    deps.output.err(`warning: ${warning}`);
}

/**
 * Attach on a terminal; else follow the demo (`--demo --detach`), or print
 * how to attach, watch and stop.
 */
async function afterStart(
  launch: Launch,
  started: Started,
  attach: AttachSession,
  since: Date,
): Promise<number> {
  const { opts, deps, ctx, socket, demo } = launch;
  const out = deps.output.out;
  const attachCmd = hintCommand('attach', opts, deps);
  if (!opts.detach && isOnTerminal(deps)) {
    const code = await attach({ socket, session: SESSION_NAME });
    return await endOfAttach({
      code,
      opts,
      deps,
      paths: ctx.paths,
      socket,
      sessionId: started.record.id,
      detached:
        code === 0
          ? `detached; the session keeps running (${attachCmd} to return, ${hintCommand('stop', opts, deps)} to end it)`
          : `tmux attach ended with exit code ${code}; the session keeps running (${attachCmd}, ${hintCommand('stop', opts, deps)})`,
    });
  }
  if (!opts.detach) {
    out(
      `not on a terminal, so the session was started detached; attach from a terminal with: ${attachCmd}`,
    );
  }
  if (demo && opts.wait !== false)
    return followDemo(opts, deps, ctx, demo, since);
  out(
    `  attach:  ${attachCmd}   (or: tmux -L ${socket} attach -t ${SESSION_NAME})`,
  );
  out(
    `  watch:   ${hintCommand('status --watch', opts, deps)} · ${hintCommand('inbox', opts, deps)} · ${hintCommand('events --follow', opts, deps)}`,
  );
  out(`  stop:    ${hintCommand('stop', opts, deps)}`);
  return 0;
}
