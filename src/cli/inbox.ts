import { existsSync } from 'node:fs';
import path from 'node:path';
import { readSessionRecord } from '../session/record.js';
import { readPausedAgents } from '../state/person-controls.js';
import {
  INCOMPLETE_FIX,
  selectIncomplete,
} from '../state/incomplete-requests.js';
import { listOpenRequests, readAllAgentStates } from '../state/pending.js';
import { refusedSince, selectRefused } from '../state/refused.js';
import { createRecentEventsReader } from '../state/snapshot-events.js';
import type { RefusedSnapshot } from '../state/snapshot-schema.js';
import { isWaitingForPerson } from '../state/snapshot-records.js';
import { isFinalStage, type RequestRecord } from '../state/types.js';
import { createContext, formatAge, loadConfigOrDefaults } from './common.js';
import type { CliDeps, CommonOptions } from './options.js';

export interface InboxOptions extends CommonOptions {
  json?: boolean;
  agent?: string;
}

/** Refused requests are looked for among this many newest events. */
const REFUSED_EVENTS = 500;

/**
 * What an open request waits for, for people: `you` when a person is to
 * answer it; else who or what holds it (the answerer, the delivery, a
 * pause), so an answered request is never offered for answering again.
 */
export function describeWaiting(
  record: Pick<RequestRecord, 'agent' | 'stage' | 'backend'>,
  facts: { paused: boolean; inInbox: boolean },
): { forPerson: boolean; text: string } {
  if (isWaitingForPerson(record, facts.inInbox))
    return { forPerson: true, text: 'waits for you' };
  if (isFinalStage(record.stage))
    return { forPerson: false, text: record.stage };
  switch (record.stage) {
    case 'detected':
      return { forPerson: false, text: 'being routed' };
    case 'routed':
      return {
        forPerson: false,
        text: `with the ${record.backend ?? 'answering'} backend`,
      };
    case 'answered':
    case 'delivering':
    case 'pasted':
      return {
        forPerson: false,
        text: facts.paused
          ? `answered; held while delivery to ${record.agent} is paused (macs resume ${record.agent})`
          : `answered; waiting to be typed into ${record.agent}`,
      };
    default: {
      const never: never = record.stage;
      return { forPerson: false, text: String(never) };
    }
  }
}

/**
 * Requests refused for their size (state/refused.ts) since the session
 * began, or in the last day when no session runs.
 */
async function readRefused(
  opts: InboxOptions,
  ctx: ReturnType<typeof createContext>,
): Promise<RefusedSnapshot[]> {
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
