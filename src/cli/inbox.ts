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
import type {
  IncompleteSnapshot,
  RefusedSnapshot,
} from '../state/snapshot-schema.js';
import type { RequestRecord } from '../state/types.js';
import type { CommandContext } from './common.js';
import type { readRemoteInbox } from './inbox-remote.js';

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

/** What `macs inbox` lists: this home's requests and its hosts'. */
interface Inbox {
  ctx: CommandContext;
  open: RequestRecord[];
  /** The hosts' open requests (undefined: no hosts in the config). */
  remote: RemoteInbox | undefined;
  refused: RefusedSnapshot[];
  incomplete: IncompleteSnapshot[];
}

type RemoteInbox = Awaited<ReturnType<typeof readRemoteInbox>>;

/** List pending requests (every agent's, from their state files). */
export async function runInbox(
  opts: InboxOptions,
  deps: CliDeps,
): Promise<number> {
  const inbox = await readInbox(opts, deps);
  if (opts.json) {
    printInboxJson(inbox, deps);
    return 0;
  }
  for (const line of inbox.remote?.problems ?? []) deps.output.err(line);
  const remoteLines = inbox.remote?.lines ?? [];
  const { open, refused, incomplete } = inbox;
  if (
    open.length === 0 &&
    refused.length === 0 &&
    incomplete.length === 0 &&
    remoteLines.length === 0
  ) {
    deps.output.out('no pending requests');
    return 0;
  }
  await printOpen(inbox, deps);
  await printIncomplete(incomplete, deps);
  await printRefused(refused, deps);
  return 0;
}

/** The open, incomplete and refused requests of the home and its hosts. */
async function readInbox(opts: InboxOptions, deps: CliDeps): Promise<Inbox> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { selectIncomplete },
    { listOpenRequests, readAllAgentStates },
    { createContext, loadConfigOrDefaults },
  ] = await Promise.all([
    import('../state/incomplete-requests.js'),
    import('../state/pending.js'),
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
  return { ctx, open, remote, refused, incomplete };
}

/**
 * An array of the open requests, as it always was, then the incomplete
 * blocks (`stage: "incomplete"`, no id: not raised yet) and the refused
 * ones (`stage: "refused"`, no id: never raised), so scripts reading
 * requests by id keep working and can still see them.
 */
function printInboxJson(inbox: Inbox, deps: CliDeps): void {
  deps.output.json([
    ...inbox.open.map((r) => ({
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
    ...(inbox.remote?.json ?? []),
    ...inbox.incomplete.map((r) => ({
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
    ...inbox.refused.map((r) => ({
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
}

/** A line per open request (and the hosts'), and how to answer them. */
async function printOpen(inbox: Inbox, deps: CliDeps): Promise<void> {
  const [{ readPausedAgents }, { describeWaiting }, { formatAge }] =
    await Promise.all([
      import('../state/person-controls.js'),
      import('../state/snapshot-records.js'),
      import('./common.js'),
    ]);
  const { ctx, open } = inbox;
  const remoteLines = inbox.remote?.lines ?? [];
  const paused = await readPausedAgents(ctx.paths);
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
}

/** Blocks without their end marker, and how to tell the worker. */
async function printIncomplete(
  incomplete: readonly IncompleteSnapshot[],
  deps: CliDeps,
): Promise<void> {
  if (incomplete.length === 0) return;
  const [{ INCOMPLETE_FIX }, { formatAge }] = await Promise.all([
    import('../state/incomplete-requests.js'),
    import('./common.js'),
  ]);
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

/** Requests refused for their size: never raised, the worker not told. */
async function printRefused(
  refused: readonly RefusedSnapshot[],
  deps: CliDeps,
): Promise<void> {
  if (refused.length === 0) return;
  const { formatAge } = await import('./common.js');
  deps.output.out('');
  deps.output.out(
    'refused, never raised (the worker gets no answer; tell it with macs send):',
  );
  for (const r of refused) {
    const why = r.reason === 'max-bytes' ? 'too many bytes' : 'too many lines';
    deps.output.out(
      `${r.agent}  ${why}  ${formatAge(r.at)} ago  ${r.firstLine.slice(0, 72)}`,
    );
  }
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
