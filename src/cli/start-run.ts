import { shortenCommandLine } from './shorten.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { BackendName, MacsConfig } from '../config/schema.js';
import { localWorkers } from '../config/workers.js';
import { ConfigError, MacsError } from '../errors.js';
import { createEventLog, readEvents } from '../events/log.js';
import type { MacsEvent } from '../events/types.js';
import {
  DEMO_BACKEND,
  DEMO_WAIT_MS,
  buildDemoAgents,
  demoResultFile,
  newDemoRunId,
} from '../session/demo/config.js';
import type { DemoResult } from '../session/demo/script.js';
import { agentsFromFlags, planAgents } from '../session/plan.js';
import {
  newSessionId,
  readSessionRecord,
  SESSION_NAME,
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
import { createContext } from './common.js';
import { reportExpiry, runStartResume } from './start-resume.js';
import type { CliDeps, CommonOptions } from './options.js';
import { printHubHints, startHostSessions } from './host-start.js';
import { mergeHubWorkers, readFromHub } from './from-hub.js';
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

const DEMO_POLL_MS = 250;

/** A data field as text (primitives only). */
function field(
  data: Record<string, unknown>,
  key: string,
  fallback = '',
): string {
  const value = data[key];
  return typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
    ? String(value)
    : fallback;
}

const DEMO_EVENT_LINES: Partial<
  Record<string, (event: MacsEvent, data: Record<string, unknown>) => string>
> = {
  'agent.prompted': (e) =>
    `  ${e.agent} got its first message: the worker protocol (prompts/worker.md)`,
  'request.detected': (e, d) =>
    `  ${e.agent} asked      ${e.requestId ?? ''} (${field(d, 'type', 'question')})`,
  'request.answered': (e, d) =>
    `  answered       ${e.requestId ?? ''} (${field(d, 'source')})`,
  'request.delivered': (e, d) =>
    `  delivered      ${e.requestId ?? ''} to ${e.agent} (${field(d, 'method')}, ${field(d, 'chars', '?')} chars)`,
  'agent.exited': (e, d) =>
    `  ${e.agent} exited${d.exitCode === undefined ? '' : ` with status ${field(d, 'exitCode')}`}`,
  'delivery.timeout': (e, d) =>
    `  ${e.type} (${e.agent}): ${JSON.stringify(d)}`,
  error: (e, d) => `  ${e.type} (${e.agent}): ${JSON.stringify(d)}`,
};

/** One line for a demo event worth showing; undefined for the rest. */
export function describeDemoEvent(event: MacsEvent): string | undefined {
  return DEMO_EVENT_LINES[event.type]?.(event, event.data ?? {});
}

async function readDemoResult(file: string): Promise<DemoResult | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as DemoResult;
  } catch {
    return undefined;
  }
}

/**
 * `macs start --demo --detach`: show the demo's progress from the event log
 * until the scripted worker says it has finished, then what happened and
 * what to try next. The session keeps running.
 */
async function followDemo(
  opts: StartOptions,
  deps: CliDeps,
  ctx: { paths: ReturnType<typeof createContext>['paths'] },
  demo: { runId: string; result: string },
  since: Date,
): Promise<number> {
  const out = deps.output.out;
  out('');
  out('The demo is running (about 20 seconds); its steps from the event log:');
  const seen = new Set<string>();
  const show = async () => {
    for (const event of await readEvents(ctx.paths, { since })) {
      const key = JSON.stringify(event);
      if (seen.has(key)) continue;
      seen.add(key);
      const line = describeDemoEvent(event);
      if (line) out(line);
    }
  };
  const started = Date.now();
  let result: DemoResult | undefined;
  let interrupted = false;
  void deps.interrupted.then(() => (interrupted = true));
  while (Date.now() - started < DEMO_WAIT_MS && !interrupted) {
    await show();
    result = await readDemoResult(demo.result);
    if (result) break;
    await delay(DEMO_POLL_MS);
  }
  await show();
  if (interrupted) return 130;
  const attach = hintCommand('attach', opts, deps);
  const stop = hintCommand('stop', opts, deps);
  if (!result) {
    throw new MacsError(
      `the demo did not finish within ${DEMO_WAIT_MS / 1000} s`,
      {
        hint: `look at its panes with \`${attach}\` and at \`${hintCommand('events', opts, deps)}\`; end it with \`${stop}\``,
      },
    );
  }
  const seconds = (
    (Date.parse(result.finishedAt) - Date.parse(result.startedAt)) /
    1000
  ).toFixed(1);
  out('');
  out(
    `The demo finished in ${seconds} s. ${result.agent} asked ${result.requests.length} requests; for each, the bridge`,
  );
  out(
    'detected it in the pane, the controller answered it, and the bridge typed the answer back:',
  );
  for (const r of result.requests) {
    out(`  ${r.type.padEnd(9)} ${r.asked}`);
    out(`  ${''.padEnd(9)} → ${r.answer.split('\n', 1)[0] ?? ''}`);
    for (const did of r.did) out(`  ${''.padEnd(9)}   ${result.agent}: ${did}`);
  }
  out(
    'The NOTES of each answer stayed out of the worker (they are in the archive).',
  );
  out('');
  out('The session is still running. Try next:');
  out(`  ${attach.padEnd(34)} look at the panes (detach: tmux prefix, then d)`);
  out(
    `  ${hintCommand(`events --agent ${result.agent}`, opts, deps).padEnd(34)} every step, with times`,
  );
  out(`  ${'ls archive/*/'.padEnd(34)} each request, answer and context`);
  out(`  ${stop.padEnd(34)} end the demo: agents, bridge, tmux server`);
  out(
    `  ${hintCommand('start --worker "codex"', opts, deps).padEnd(34)} then a real agent`,
  );
  return 0;
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
  if (opts.demo && (opts.worker?.length || opts.controller)) {
    throw new ConfigError(
      '--demo starts its own scripted agents; leave out --worker and --controller',
      { hint: 'macs start --demo, or macs start --worker "codex"' },
    );
  }
  const backend = opts.backend as BackendName | undefined;
  let flags: Partial<MacsConfig> = {
    ...(backend ? { backend } : {}),
    ...(opts.nonInteractive ? { nonInteractive: true } : {}),
  };
  let demo: { runId: string; result: string } | undefined;
  if (opts.demo) {
    const runId = newDemoRunId();
    demo = { runId, result: demoResultFile(ctx.paths.runtime, runId) };
    const demoBackend = backend ?? DEMO_BACKEND;
    const agents = buildDemoAgents({
      home: ctx.paths.home,
      runId,
      resultFile: demo.result,
      backend: demoBackend,
    });
    // The demo is predictable: its own agents and backend, no routes to other answerers.
    flags = {
      backend: demoBackend,
      routes: {},
      fallback: ['file'],
      controller: agents.controller,
      workers: agents.workers,
    };
  } else {
    flags = {
      ...flags,
      ...agentsFromFlags({
        ...(opts.worker ? { workers: opts.worker } : {}),
        ...(opts.controller ? { controller: opts.controller } : {}),
      }),
    };
  }
  // A new session's policy is the hub's (below) or this home's own, never
  // one a hub left from an earlier session.
  const loaded = (await ctx.loadConfig(flags, { ownPolicy: true })).config;
  const hub = opts.fromHub ? await readFromHub(deps) : undefined;
  const config = hub
    ? mergeHubWorkers({ ...loaded, policy: hub.policy }, hub.workers)
    : loaded;
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

    if (record) {
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
    // A new session: the given server, else the home's own (a stale record's is not reused).
    const socket =
      opts.tmuxSocket ?? (await defaultSessionSocket(ctx.paths, deps.env));
    const tmux = createTmuxClient(socket, deps.runTmux);
    const since = new Date(Date.now() - 1000);
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
    let started;
    try {
      started = await startSession({
        tmux,
        paths: ctx.paths,
        config,
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

    await reportHosts();
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
      `  windows: agents, bridge (macs bridge --all, ${config.backend} backend), status (macs status --watch)`,
    );
    for (const warning of started.warnings)
      deps.output.err(`warning: ${warning}`);

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
  } finally {
    // Also when this machine's start failed: what the hosts did is said.
    await reportHosts();
  }
}
