/**
 * `macs start --resume` (docs/session.md): with the session running, its
 * bridge and status windows start again; after a reboot (the session's tmux
 * server gone, its agents with it), the recorded session comes back, each
 * agent continuing its conversation where its program can. Also the list
 * of expired requests that every new start prints.
 */
import { ConfigError, MacsError } from '../errors.js';
import { createEventLog } from '../events/log.js';
import {
  newSessionId,
  SESSION_NAME,
  type SessionRecord,
} from '../session/record.js';
import {
  expireEarlierRequests,
  type ExpiryReport,
} from '../session/session-requests.js';
import { restartSessionWindows } from '../session/restart-windows.js';
import { reviveSession, type RevivedAgent } from '../session/revive.js';
import { isSessionRunning } from '../session/tmux-check.js';
import type { AttachSession } from '../tmux/attach-session.js';
import { createTmuxClient } from '../tmux/client.js';
import { endOfAttach } from './attach-end.js';
import type { createContext } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';
import {
  hintCommand,
  isOnTerminal,
  resolveMacsArgv,
} from './session-common.js';

type Context = ReturnType<typeof createContext>;

/** How many expired requests `macs start` lists by name. */
const EXPIRY_LINES = 10;

/** Tell the person which earlier requests expired (and which were left alone). */
export function reportExpiry(
  report: ExpiryReport,
  opts: CommonOptions,
  deps: CliDeps,
): void {
  const err = deps.output.err;
  const { expired, busy } = report;
  if (expired.length > 0) {
    err(
      `macs: ${expired.length} request(s) of an earlier session expired; the new agents never asked them (kept in archive/, never sent):`,
    );
    for (const r of expired.slice(0, EXPIRY_LINES))
      err(`  ${r.id}  (${r.agent}, ${r.type}) ${r.firstLine}`);
    if (expired.length > EXPIRY_LINES)
      err(
        `  … and ${expired.length - EXPIRY_LINES} more: ${hintCommand('events --type request.expired', opts, deps)}`,
      );
  }
  for (const b of busy)
    err(
      `warning: ${b.agent}: its open requests were left alone (${b.message})`,
    );
}

export interface ResumeStartOptions extends CommonOptions {
  detach?: boolean;
  worker?: string[];
  controller?: string;
  demo?: boolean;
}

/**
 * `macs start --resume`. Returns undefined for a demo whose server is gone:
 * its scripted agents have no conversation, so the caller runs the demo
 * anew.
 */
export async function runStartResume(
  opts: ResumeStartOptions,
  deps: CliDeps,
  ctx: Context,
  record: SessionRecord | undefined,
  attach: AttachSession,
): Promise<number | undefined> {
  if (opts.worker?.length || opts.controller || opts.demo)
    throw new ConfigError(
      '--resume brings back the agents the session recorded; leave out --worker, --controller and --demo',
      {
        hint: `${hintCommand('start --resume', opts, deps)}, or a new session: ${hintCommand('start --worker "codex"', opts, deps)}`,
      },
    );
  if (!record)
    throw new MacsError(
      `there is no session to resume in ${ctx.paths.home} (no .macs/session.json: \`macs stop\` ends a session for good)`,
      { hint: `start a new one: ${hintCommand('start', opts, deps)}` },
    );
  const running = createTmuxClient(record.socket, deps.runTmux);
  if (await isSessionRunning(running, record.session))
    return resumeRunning(opts, deps, ctx, running, record, attach);
  if (record.demo) {
    deps.output.err(
      "macs: the demo's scripted agents have no conversation to continue; the demo starts again",
    );
    return undefined;
  }
  return resumeAfterReboot(opts, deps, ctx, record, attach);
}

/**
 * The session is running: its agents keep running (and keep their open
 * requests); the bridge and status windows start again.
 */
async function resumeRunning(
  opts: ResumeStartOptions,
  deps: CliDeps,
  ctx: Context,
  tmux: ReturnType<typeof createTmuxClient>,
  record: SessionRecord,
  attach: AttachSession,
): Promise<number> {
  await restartSessionWindows({
    tmux,
    paths: ctx.paths,
    record,
    macsArgv: resolveMacsArgv(),
    ...(record.config ? { configFile: record.config } : {}),
  });
  const out = deps.output.out;
  out(
    `macs: resumed the running session${record.id ? ` ${record.id}` : ''} in ${ctx.paths.home} (tmux -L ${record.socket}): bridge and status started again; agents and their open requests kept`,
  );
  const attachCmd = hintCommand('attach', opts, deps);
  if (!opts.detach && isOnTerminal(deps)) {
    const code = await attach({ socket: record.socket, session: SESSION_NAME });
    return endOfAttach({
      code,
      opts,
      deps,
      paths: ctx.paths,
      socket: record.socket,
      sessionId: record.id,
    });
  }
  out(`  attach:  ${attachCmd}`);
  return 0;
}

function describeRevived(agent: RevivedAgent): string {
  switch (agent.outcome) {
    case 'resumed':
      return `continues its conversation ${agent.conversation}`;
    case 'fresh':
      return agent.why ? `started fresh: ${agent.why}` : 'started fresh';
    case 'failed':
      return `NOT back: ${agent.why}`;
  }
}

/**
 * After a reboot: the recorded session on a new tmux server (the same
 * socket name), every agent as it was launched, continuing its
 * conversation where it can. Requests that were open are expired and
 * listed first, as at any new start: the resumed agents are never typed an
 * answer to a question asked before the reboot.
 */
async function resumeAfterReboot(
  opts: ResumeStartOptions,
  deps: CliDeps,
  ctx: Context,
  previous: SessionRecord,
  attach: AttachSession,
): Promise<number> {
  const socket = opts.tmuxSocket ?? previous.socket;
  const tmux = createTmuxClient(socket, deps.runTmux);
  const events = createEventLog(ctx.paths);
  const log = ctx.log.child({ component: 'start' });
  const sessionId = newSessionId();
  reportExpiry(
    await expireEarlierRequests({
      paths: ctx.paths,
      events,
      log,
      session: sessionId,
    }),
    opts,
    deps,
  );
  const { record, agents } = await reviveSession({
    tmux,
    paths: ctx.paths,
    previous,
    socket,
    macsArgv: resolveMacsArgv(),
    ...(previous.config ? { configFile: previous.config } : {}),
    sessionId,
    events,
    log,
    env: deps.env,
  });
  const out = deps.output.out;
  out(
    `macs: resumed session ${previous.id ?? '(no id)'} as ${record.id ?? ''} in ${ctx.paths.home} on the private tmux server ${socket} (tmux -L ${socket})`,
  );
  for (const agent of agents) {
    const entry = record.agents.find((a) => a.name === agent.name);
    out(
      `  ${(entry?.role ?? 'worker').padEnd(10)}  ${agent.name.padEnd(12)} ${agent.pane.padEnd(4)} ${(entry?.preset ?? '').padEnd(8)} ${describeRevived(agent)}`,
    );
  }
  const failed = agents.filter((a) => a.outcome === 'failed');
  if (failed.length > 0)
    deps.output.err(
      `warning: ${failed.length} agent(s) could not come back (${failed.map((a) => a.name).join(', ')}); their panes say why; ${hintCommand('restart <agent>', opts, deps)} once fixed`,
    );
  const attachCmd = hintCommand('attach', opts, deps);
  if (!opts.detach && isOnTerminal(deps)) {
    const code = await attach({ socket, session: SESSION_NAME });
    return endOfAttach({
      code,
      opts,
      deps,
      paths: ctx.paths,
      socket,
      sessionId: record.id,
    });
  }
  out(
    `  attach:  ${attachCmd}   (or: tmux -L ${socket} attach -t ${SESSION_NAME})`,
  );
  out(
    `  status:  ${hintCommand('status', opts, deps)} · ${hintCommand('events --type agent.resumed', opts, deps)}`,
  );
  return 0;
}
