// What `macs start` prints: the session it started or brought back, and
// the earlier requests that expired.
import path from 'node:path';
import type { LaunchedSession } from '../session/new-session.js';
import type { ExpiryReport } from '../session/session-requests.js';
import type { Resumed } from '../session/resume-session.js';
import type { RevivedAgent } from '../session/revive.js';
import type { CliDeps, CommonOptions } from './options.js';
import { hintCommand } from './session-common.js';
import { shortenCommandLine } from './shorten.js';

/** How many expired requests `macs start` lists by name. */
const EXPIRY_LINES = 10;
/** How much of an agent's command line `macs start`'s summary shows. */
const SUMMARY_COMMAND_CHARS = 80;

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

/** The session's summary: its server, each agent, its windows, warnings. */
export function printStarted(
  session: LaunchedSession,
  backend: string,
  opts: CommonOptions & { demo?: boolean },
  deps: CliDeps,
  home: string,
): void {
  const { socket } = session;
  const out = deps.output.out;
  out(
    `macs: started ${opts.demo ? 'the demo' : 'a session'} in ${home} on the private tmux server ${socket} (tmux -L ${socket})`,
  );
  for (const agent of session.record.agents) {
    const where = agent.worktree
      ? `  [worktree ${path.relative(home, agent.worktree.path)} on ${agent.worktree.branch}]`
      : '';
    out(
      `  ${agent.role === 'controller' ? 'controller' : 'worker    '}  ${agent.name.padEnd(12)} ${agent.pane.padEnd(4)} ${agent.preset.padEnd(8)} ${shortenCommandLine(agent.command, SUMMARY_COMMAND_CHARS)}${where}`,
    );
  }
  out(
    `  windows: agents, bridge (macs bridge --all, ${backend} backend), status (macs status --watch)`,
  );
  for (const warning of session.warnings)
    deps.output.err(`warning: ${warning}`);
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

/** A session brought back after a reboot: each agent, and which did not come back. */
export function printRevived(
  revived: Extract<Resumed, { kind: 'revived' }>,
  opts: CommonOptions,
  deps: CliDeps,
  home: string,
): void {
  const { previous, record, agents, socket } = revived;
  const out = deps.output.out;
  out(
    `macs: resumed session ${previous.id ?? '(no id)'} as ${record.id ?? ''} in ${home} on the private tmux server ${socket} (tmux -L ${socket})`,
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
}
