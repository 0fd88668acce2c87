// `macs inbox`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  addCommonOptions,
  type CliDeps,
  type CommonOptions,
} from './options.js';
import type { Command } from 'commander';
import type { RefusedSnapshot } from '../state/snapshot-schema.js';
import type { CommandContext } from './common.js';

export interface InboxOptions extends CommonOptions {
  json?: boolean;
  agent?: string;
}

/** Refused requests are looked for among this many newest events. */
const REFUSED_EVENTS = 500;

/**
 * Requests refused for their size (state/refused.ts) since the session
 * began, or in the last day when no session runs.
 */
async function readRefused(
  opts: InboxOptions,
  ctx: CommandContext,
): Promise<RefusedSnapshot[]> {
  const [
    { readSessionRecord },
    { refusedSince, selectRefused },
    { createRecentEventsReader },
  ] = await Promise.all([
    import('../session/record.js'),
    import('../state/refused.js'),
    import('../state/snapshot-events.js'),
  ]);
  const session = await readSessionRecord(ctx.paths).catch(() => undefined);
  const events = await createRecentEventsReader(
    ctx.paths.events,
    REFUSED_EVENTS,
  )();
  return selectRefused(
    events,
    refusedSince(session?.createdAt, Date.now()),
    opts.agent,
  );
}

/** List pending requests (every agent's, from their state files). */
export async function runInbox(
  opts: InboxOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { readPausedAgents },
    { INCOMPLETE_FIX, selectIncomplete },
    { listOpenRequests, readAllAgentStates },
    { describeWaiting },
    { createContext, formatAge, loadConfigOrDefaults },
  ] = await Promise.all([
    import('../state/person-controls.js'),
    import('../state/incomplete-requests.js'),
    import('../state/pending.js'),
    import('../state/snapshot-records.js'),
    import('./common.js'),
  ]);
  const ctx = createContext(opts, deps);
  const { config } = await loadConfigOrDefaults(ctx, opts, deps);
  const open = (await listOpenRequests(ctx.paths)).filter(
    (r) => !opts.agent || r.agent === opts.agent,
  );
  // The hosts' open requests (docs/remote.md), `<host>/<id>` from `<host>/<agent>`.
  const remote =
    Object.keys(config.hosts).length === 0
      ? undefined
      : await import('./inbox-remote.js').then((m) =>
          m.readRemoteInbox(ctx, config, deps, opts.agent),
        );
  const refused = await readRefused(opts, ctx);
  // Blocks shown without their end marker (state/incomplete-requests.ts).
  const incomplete = selectIncomplete(
    await readAllAgentStates(ctx.paths),
    opts.agent,
  );
  if (opts.json) {
    // An array of the open requests, as it always was, then the incomplete
    // blocks (`stage: "incomplete"`, no id: not raised yet) and the refused
    // ones (`stage: "refused"`, no id: never raised), so scripts reading
    // requests by id keep working and can still see them.
    deps.output.json([
      ...open.map((r) => ({
        id: r.id,
        agent: r.agent,
        type: r.type,
        priority: r.priority,
        stage: r.stage,
        backend: r.backend ?? null,
        detectedAt: r.detectedAt,
        body: r.body,
        attributes: r.attributes,
      })),
      ...(remote?.json ?? []),
      ...incomplete.map((r) => ({
        id: null,
        agent: r.agent,
        stage: 'incomplete',
        reason: r.reason,
        detectedAt: r.since,
        firstLine: r.firstLine,
        head: r.head,
        lines: r.lines,
        willBe: r.requestId,
        message: r.message,
      })),
      ...refused.map((r) => ({
        id: null,
        agent: r.agent,
        stage: 'refused',
        reason: r.reason,
        detectedAt: r.at,
        firstLine: r.firstLine,
        lines: r.lines,
        bytes: r.bytes,
        message: r.message,
      })),
    ]);
    return 0;
  }
  const paused = await readPausedAgents(ctx.paths);
  for (const line of remote?.problems ?? []) deps.output.err(line);
  const remoteLines = remote?.lines ?? [];
  if (
    open.length === 0 &&
    refused.length === 0 &&
    incomplete.length === 0 &&
    remoteLines.length === 0
  ) {
    deps.output.out('no pending requests');
    return 0;
  }
  let forPerson = 0;
  for (const r of open) {
    const first = r.body.split('\n', 1)[0] ?? '';
    const waiting = describeWaiting(r, {
      paused: paused.has(r.agent),
      inInbox: existsSync(path.join(ctx.paths.inbox, `${r.id}.txt`)),
    });
    if (waiting.forPerson) forPerson += 1;
    deps.output.out(
      `${r.id}  ${r.agent}  ${r.type}  ${r.stage}  ${formatAge(r.detectedAt)}  ${first.slice(0, 72)}`,
    );
    if (!waiting.forPerson) deps.output.out(`    ${waiting.text}`);
  }
  for (const line of remoteLines) deps.output.out(line);
  if (open.length === 0 && remoteLines.length === 0)
    deps.output.out('no pending requests');
  if (forPerson > 0 || remoteLines.length > 0) deps.output.out('');
  if (forPerson > 0)
    deps.output.out(
      'answer with: macs respond <id> "text"   (full text: inbox/<id>.txt)',
    );
  // A host's request has no file at the hub: its whole text is shown above.
  if (remoteLines.length > 0)
    deps.output.out('a host\'s request: macs respond <host>/<id> "text"');
  if (incomplete.length > 0) {
    deps.output.out('');
    deps.output.out(
      `incomplete, not raised yet (no end marker; ${INCOMPLETE_FIX}):`,
    );
    for (const r of incomplete) {
      const id = r.requestId ? `  (will be ${r.requestId})` : '';
      deps.output.out(
        `${r.agent}  incomplete  ${formatAge(r.since)} ago  ${r.firstLine.slice(0, 72)}${id}`,
      );
      for (const line of r.head.slice(0, 3))
        deps.output.out(`    ${line.slice(0, 76)}`);
    }
    // Never the marker itself: typed into the pane, it would end the block
    // with the composer's text in its body.
    deps.output.out(
      'tell it: macs send <agent> "your request lacks its end marker line; print it"',
    );
  }
  if (refused.length > 0) {
    deps.output.out('');
    deps.output.out(
      'refused, never raised (the worker gets no answer; tell it with macs send):',
    );
    for (const r of refused) {
      const why =
        r.reason === 'max-bytes' ? 'too many bytes' : 'too many lines';
      deps.output.out(
        `${r.agent}  ${why}  ${formatAge(r.at)} ago  ${r.firstLine.slice(0, 72)}`,
      );
    }
  }
  return 0;
}

export function registerInboxCommand(
  program: Command,
  deps: CliDeps,
  run: (p: Promise<number>) => void,
): void {
  addCommonOptions(
    program
      .command('inbox')
      .description(
        'list pending requests: id, agent, type, stage, age, first line',
      )
      .option('--json', 'print the requests as JSON')
      .option('--agent <name>', 'only this agent'),
  ).action((opts: InboxOptions) => run(runInbox(opts, deps)));
}
