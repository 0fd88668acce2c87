/**
 * `macs start --resume` (docs/session.md) at the door: the options
 * checked, the session brought back (session/resume-session.ts), what came
 * back printed, then attach or say how.
 */
import { ConfigError } from '../errors.js';
import type { HomePaths } from '../home/paths.js';
import { SESSION_NAME } from '../session/record.js';
import { resumeSession } from '../session/resume-session.js';
import type { AttachSession } from '../tmux/attach-session.js';
import { endOfAttach } from './attach-end.js';
import type { CommandContext } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';
import { printRevived, reportExpiry } from './start-lines.js';
import { hintCommand, invocation, isOnTerminal } from './session-common.js';

export interface ResumeStartOptions extends CommonOptions {
  detach?: boolean;
  worker?: string[];
  controller?: string;
  demo?: boolean;
}

/** What attaching to a session needs. */
export interface Attaching {
  opts: CommonOptions & { detach?: boolean };
  deps: CliDeps;
  attach: AttachSession;
  paths: HomePaths;
  socket: string;
}

/**
 * Attach to the session when on a terminal and not `--detach`: the exit
 * code once the person leaves it (`sayDetached`: with a line saying the
 * session keeps running); undefined when not attaching.
 */
export async function attachIfTerminal(
  a: Attaching,
  sessionId: string | undefined,
  sayDetached = false,
): Promise<number | undefined> {
  const { opts, deps, socket } = a;
  if (opts.detach || !isOnTerminal(deps)) return undefined;
  const code = await a.attach({ socket, session: SESSION_NAME });
  const hint = (sub: string) => hintCommand(sub, opts, deps);
  const detached =
    code === 0
      ? `detached; the session keeps running (${hint('attach')} to return, ${hint('stop')} to end it)`
      : `tmux attach ended with exit code ${code}; the session keeps running (${hint('attach')}, ${hint('stop')})`;
  return endOfAttach({
    ...{ code, opts, deps, paths: a.paths, socket, sessionId },
    ...(sayDetached ? { detached } : {}),
  });
}

/**
 * `macs start --resume`. Returns undefined for a demo whose server is gone:
 * its scripted agents have no conversation, so the caller runs the demo
 * anew.
 */
export async function runStartResume(
  opts: ResumeStartOptions,
  deps: CliDeps,
  ctx: CommandContext,
  attach: AttachSession,
): Promise<number | undefined> {
  const hint = (sub: string) => hintCommand(sub, opts, deps);
  if (opts.worker?.length || opts.controller || opts.demo)
    throw new ConfigError(
      '--resume brings back the agents the session recorded; leave out --worker, --controller and --demo',
      {
        hint: `${hint('start --resume')}, or a new session: ${hint('start --worker "codex"')}`,
      },
    );
  const resumed = await resumeSession(
    { inv: invocation(opts, deps), home: ctx, runTmux: deps.runTmux },
    (report) => reportExpiry(report, opts, deps),
  );
  const out = deps.output.out;
  const home = ctx.paths.home;
  if (resumed.kind === 'demo-gone') {
    deps.output.err(
      "macs: the demo's scripted agents have no conversation to continue; the demo starts again",
    );
    return undefined;
  }
  const socket =
    resumed.kind === 'running' ? resumed.record.socket : resumed.socket;
  if (resumed.kind === 'running')
    out(
      `macs: resumed the running session${resumed.record.id ? ` ${resumed.record.id}` : ''} in ${home} (tmux -L ${socket}): bridge and status started again; agents and their open requests kept`,
    );
  else printRevived(resumed, opts, deps, home);
  const at = { opts, deps, attach, paths: ctx.paths, socket };
  const code = await attachIfTerminal(at, resumed.record.id);
  if (code !== undefined) return code;
  if (resumed.kind === 'running') out(`  attach:  ${hint('attach')}`);
  else {
    out(
      `  attach:  ${hint('attach')}   (or: tmux -L ${socket} attach -t ${SESSION_NAME})`,
    );
    out(
      `  status:  ${hint('status')} · ${hint('events --type agent.resumed')}`,
    );
  }
  return 0;
}
