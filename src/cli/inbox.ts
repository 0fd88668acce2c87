// `macs inbox`: its flags and its run. Only the flags load with the program
// (`macs --help` starts at once); what the run needs is imported when it
// runs.
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
import type { HostsInbox, InboxRequest } from '../operations/list-inbox.js';

export interface InboxOptions extends CommonOptions {
  json?: boolean;
  agent?: string;
}

/** List pending requests (every agent's, from their state files). */
export async function runInbox(
  opts: InboxOptions,
  deps: CliDeps,
): Promise<number> {
  // Loaded when the command runs: `macs --help` and the other commands
  // load only this file's flags (program.ts).
  const [
    { readInbox },
    { inboxEntries },
    { createContext, loadConfigOrDefaults },
  ] = await Promise.all([
    import('../operations/list-inbox.js'),
    import('../operations/inbox-entries.js'),
    import('./common.js'),
  ]);
  const ctx = createContext(opts, deps);
  const { config } = await loadConfigOrDefaults(ctx, opts, deps);
  // The logger is made only for a hub's links (ctx.log, on first use).
  const hub = {
    config,
    env: deps.env,
    paths: ctx.paths,
    get log() {
      return ctx.log;
    },
  };
  const inbox = await readInbox(hub, opts.agent);
  if (opts.json) {
    deps.output.json(inboxEntries(inbox));
    return 0;
  }
  for (const line of await hostProblems(inbox.hosts)) deps.output.err(line);
  const remoteLines = await formatHostRequests(inbox.hosts);
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
  await printOpen(open, remoteLines, deps);
  await printIncomplete(incomplete, deps);
  await printRefused(refused, deps);
  return 0;
}

/** A line per open request (and the hosts'), and how to answer them. */
async function printOpen(
  open: readonly InboxRequest[],
  remoteLines: readonly string[],
  deps: CliDeps,
): Promise<void> {
  const { formatAge } = await import('./common.js');
  let forPerson = 0;
  for (const { request: r, waiting } of open) {
    const first = r.body.split('\n', 1)[0] ?? '';
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

/** A host's request body in `macs inbox`: this many lines at most. */
const BODY_LINES = 20;

/** The hosts' requests whole, as lines (a host that cannot be reached: marked). */
async function formatHostRequests(
  hosts: HostsInbox | undefined,
): Promise<string[]> {
  const requests = hosts?.requests ?? [];
  if (requests.length === 0) return [];
  const [{ formatAge }, { downLabel }] = await Promise.all([
    import('./common.js'),
    import('../remote/fleet-model.js'),
  ]);
  const now = Date.now();
  return requests.flatMap((r) => {
    const age = r.detectedAt
      ? formatAge(r.detectedAt, now)
      : `${Math.round(r.ageSec ?? 0)}s`;
    const body = (r.body ?? r.firstLine).split('\n');
    return [
      `${r.id}  ${r.agent}  ${r.type}  ${r.stage}  ${age}  ${(body[0] ?? '').slice(0, 72)}`,
      ...body.slice(1, BODY_LINES).map((l) => `    ${l}`),
      ...(body.length > BODY_LINES
        ? [
            `    … ${body.length - BODY_LINES} more lines (macs mcp get_request ${r.id})`,
          ]
        : []),
      ...(r.hostDownSince !== undefined
        ? [
            `    ${downLabel(r.host, r.hostDownSince)}: an answer is kept and delivered once when it is back`,
          ]
        : []),
    ];
  });
}

/**
 * A line per host that cannot be reached (for stderr): its link in the
 * words of every door (remote/host-link.ts).
 */
async function hostProblems(hosts: HostsInbox | undefined): Promise<string[]> {
  const down = hosts?.down ?? [];
  if (down.length === 0) return [];
  const { hostLink, hostLinkLine } = await import('../remote/host-link.js');
  return down.map((v) => `macs: ${hostLinkLine(hostLink(v))}`);
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
