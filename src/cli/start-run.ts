// `macs start`'s run: the options checked, the start (operations/
// start-fleet.ts, or session/resume-session.ts for --resume), and what it
// started printed; then attach, follow the demo, or say how to attach.
import path from 'node:path';
import type { BackendName } from '../config/schema.js';
import { ConfigError } from '../errors.js';
import { startFlags } from '../session/start-flags.js';
import { readFromHub, withHub } from '../session/from-hub.js';
import { startFleet } from '../operations/start-fleet.js';
import type { NewSession } from '../session/new-session.js';
import { SESSION_NAME } from '../session/record.js';
import { checkTmux } from '../session/tmux-check.js';
import {
  createAttachSession,
  type AttachSession,
} from '../tmux/attach-session.js';
import { followDemo } from './start-demo.js';
import { createContext, type CommandContext } from './common.js';
import { printHosts, printHubHints } from './host-lines.js';
import type { CliDeps, CommonOptions } from './options.js';
import { printStarted, reportExpiry } from './start-lines.js';
import {
  attachIfTerminal,
  runStartResume,
  type Attaching,
} from './start-resume.js';
import { hintCommand, invocation } from './session-common.js';

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
  /** On a host: the hub's workers for it and its policy, read as JSON from stdin (session/from-hub.ts). */
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
  if (opts.resume) {
    const code = await runStartResume(opts, deps, ctx, attach);
    if (code !== undefined) return code;
    // A demo whose server is gone: the demo again.
    return runStart({ ...opts, resume: false, demo: true }, deps, attach);
  }
  const s = await newSession(opts, deps, ctx);
  const since = new Date(Date.now() - 1000);
  const start = await startFleet(
    s,
    // Each host starts its own session (docs/remote.md); not for the demo.
    !opts.demo,
    {
      onExpiry: (report) => reportExpiry(report, opts, deps),
      onHosts: (outcome) => printHosts(outcome, deps),
    },
  );
  if (start.kind === 'hosts-only') {
    if (start.code === 0) printHubHints(opts, deps);
    return start.code;
  }
  const { session } = start;
  printStarted(session, s.config.backend, opts, deps, ctx.paths.home);
  const at = { opts, deps, attach, paths: ctx.paths, socket: session.socket };
  const code = await attachIfTerminal(at, session.record.id, true);
  if (code !== undefined) return code;
  if (!opts.detach) {
    deps.output.out(
      `not on a terminal, so the session was started detached; attach from a terminal with: ${hintCommand('attach', opts, deps)}`,
    );
  }
  if (s.demo && opts.wait !== false)
    return followDemo(opts, deps, ctx, s.demo, since);
  printHowTo(at);
  return 0;
}

/**
 * What the new session is: the flags checked, the config (the home's own
 * policy, or with --from-hub the hub's and its workers), the demo's run.
 */
async function newSession(
  opts: StartOptions,
  deps: CliDeps,
  ctx: CommandContext,
): Promise<NewSession> {
  if (opts.demo && (opts.worker?.length || opts.controller)) {
    throw new ConfigError(
      '--demo starts its own scripted agents; leave out --worker and --controller',
      { hint: 'macs start --demo, or macs start --worker "codex"' },
    );
  }
  const backend = opts.backend as BackendName | undefined;
  const { flags, demo } = startFlags({ ...opts, backend }, ctx.paths);
  // A new session's policy is the hub's or this home's own, never one a
  // hub left from an earlier session.
  const loaded = (await ctx.loadConfig(flags, { ownPolicy: true })).config;
  const hub = opts.fromHub ? await readFromHub(deps) : undefined;
  return {
    inv: invocation(opts, deps),
    home: ctx,
    runTmux: deps.runTmux,
    config: hub ? withHub(loaded, hub) : loaded,
    ...(opts.config ? { configFile: path.resolve(deps.cwd, opts.config) } : {}),
    ...(demo ? { demo } : {}),
    ...(hub ? { hub } : {}),
  };
}

/** How to attach, watch and stop a session started detached. */
function printHowTo({ opts, deps, socket }: Attaching): void {
  const hint = (sub: string) => hintCommand(sub, opts, deps);
  const out = deps.output.out;
  out(
    `  attach:  ${hint('attach')}   (or: tmux -L ${socket} attach -t ${SESSION_NAME})`,
  );
  out(
    `  watch:   ${hint('status --watch')} · ${hint('inbox')} · ${hint('events --follow')}`,
  );
  out(`  stop:    ${hint('stop')}`);
}
