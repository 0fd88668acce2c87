/**
 * The status snapshot as plain text, for `macs status` without a terminal
 * (once, or as it changes): one pure function per section, beside the
 * live view's own formatting (view-format.ts, view-model.ts).
 */
import { assertNever } from '../errors.js';
import type {
  AgentSnapshot,
  DecisionSnapshot,
  Snapshot,
} from '../state/snapshot-schema.js';
import {
  describeEventData,
  formatAgeAt,
  formatClock,
  formatRoundTrip,
  truncate,
} from './view-format.js';
import { INCOMPLETE_FIX } from '../state/incomplete-requests.js';
import { requestStatus } from './view-model.js';

function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, [...cell].length);
    });
  return rows.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd(),
  );
}

/** How a dead agent ended: its status and its last line. */
export function describeExit(exit: NonNullable<AgentSnapshot['exit']>): string {
  const how =
    exit.signal !== null
      ? `killed by signal ${exit.signal}`
      : exit.code !== null
        ? `exited ${exit.code}`
        : 'ended';
  const last = exit.lastLines.at(-1);
  return last ? `${how}: ${truncate(last, 60)}` : how;
}

/** Who decided an approval: `rule tests`, `controller (mcp:decide_approval)`, `person`. */
export function describeDecider(
  decision: Pick<DecisionSnapshot, 'decidedBy' | 'via'>,
): string {
  switch (decision.decidedBy) {
    case 'rule':
      return `rule ${decision.via}`;
    case 'controller':
      return `controller (${decision.via})`;
    case 'person':
      return decision.via === 'outbox' ? 'person' : `person (${decision.via})`;
    default:
      return assertNever(decision.decidedBy);
  }
}

/** `; resumed from X: worker-1 continues its conversation, …` for a session brought back. */
function describeResumed(session: Snapshot['session']): string {
  if (!session.resumed) return '';
  const told = session.resumed.agents.map((a) =>
    a.outcome === 'resumed'
      ? `${a.name} continues its conversation`
      : a.outcome === 'fresh'
        ? `${a.name} started fresh${a.why ? ` (${a.why})` : ''}`
        : `${a.name} NOT back (${a.why ?? 'unknown'})`,
  );
  return `; resumed${session.resumed.from ? ` from ${session.resumed.from}` : ''}: ${told.join('; ')}`;
}

/** One line on the session of `macs start`, when there is or was one. */
export function describeSession(
  snapshot: Snapshot,
  now: number,
): string | undefined {
  const { session, totals } = snapshot;
  if (session.status === 'none') return undefined;
  const id = session.id ? ` ${session.id}` : '';
  if (session.status === 'running')
    return `session${id} running${session.since ? ` for ${formatAgeAt(session.since, now)}` : ''}${describeResumed(session)}`;
  if (session.status === 'server-gone')
    return `session${id} NOT running: its tmux server is gone (killed, or a reboot), and its agents with it; bring it back with: macs start --resume`;
  const since = session.since ? ` ${formatAgeAt(session.since, now)} ago` : '';
  const open =
    totals.pending > 0
      ? `; ${totals.pending === 1 ? 'its open request expires' : `its ${totals.pending} open requests expire`} at the next macs start (or: macs dismiss <id>)`
      : '';
  return `session${id} stopped${since}: its agents are not running${open}`;
}

/** The table of agents, or `no agents`. */
function agentLines(snapshot: Snapshot, now: number): string[] {
  if (snapshot.agents.length === 0) return ['no agents'];
  return table([
    [
      'AGENT',
      'PRESET',
      'STATE',
      'SOURCE',
      'FOR',
      'PANE',
      'PEND',
      'DELIV',
      'LAST RT',
      '',
    ],
    ...snapshot.agents.map((a) => [
      // A teammate shows as `<lead>/<teammate>`, under its lead.
      a.teammate ? `  ${a.teammate.shownAs}` : a.name,
      a.preset,
      a.state,
      a.stateSource,
      formatAgeAt(a.stateSince, now),
      a.pane ?? '-',
      String(a.counts.pending),
      String(a.counts.delivered),
      formatRoundTrip(a.lastRoundTripMs),
      [
        a.exit ? describeExit(a.exit) : '',
        a.paused ? 'paused' : '',
        a.bridge.running ? '' : 'no bridge',
        a.hooks?.status === 'inactive' ? 'hooks not active' : '',
      ]
        .filter(Boolean)
        .join(', '),
    ]),
  ]);
}

/** The table of pending requests, what holds each, and how to answer. */
function requestLines(
  snapshot: Snapshot,
  now: number,
  width: number,
): string[] {
  if (snapshot.requests.length === 0) return ['no pending requests'];
  const rows = table([
    ['', 'AGE', 'AGENT', 'TYPE', 'STATUS', 'ID', 'REQUEST'],
    ...snapshot.requests.map((r) => [
      r.waitingForPerson ? '*' : '',
      formatAgeAt(r.detectedAt, now),
      r.agent,
      r.type,
      requestStatus(r),
      r.id,
      r.firstLine,
    ]),
  ]);
  return [
    ...rows.map((row) => truncate(row, width)),
    ...snapshot.requests.flatMap((r) =>
      r.waits
        ? [
            truncate(
              `  ${r.id} waits: ${r.waits.reason} (for ${formatAgeAt(r.waits.since, now)})`,
              width,
            ),
          ]
        : [],
    ),
    ...(snapshot.requests.some((r) => r.waitingForPerson)
      ? ['* waiting for you: macs respond <id> "text" answers']
      : []),
  ];
}

/** Blocks without their end marker, not raised yet. */
function incompleteLines(snapshot: Snapshot, now: number, width: number) {
  const incomplete = snapshot.incomplete ?? [];
  if (incomplete.length === 0) return [];
  return [
    '',
    `incomplete, not raised yet (no end marker; ${INCOMPLETE_FIX}):`,
    ...incomplete.map((r) =>
      truncate(
        [
          formatAgeAt(r.since, now),
          r.agent,
          'incomplete',
          r.requestId ? `will be ${r.requestId}` : '',
          r.head[0] ?? r.firstLine,
        ]
          .filter(Boolean)
          .join('  '),
        width,
      ),
    ),
  ];
}

/** Requests refused for their size: never raised. */
function refusedLines(snapshot: Snapshot, now: number, width: number) {
  const refused = snapshot.refused ?? [];
  if (refused.length === 0) return [];
  return [
    '',
    'refused, never raised (the worker gets no answer; tell it with macs send):',
    ...refused.map((r) =>
      truncate(
        [
          formatAgeAt(r.at, now),
          r.agent,
          r.reason === 'max-bytes' ? 'too many bytes' : 'too many lines',
          r.firstLine,
        ].join('  '),
        width,
      ),
    ),
  ];
}

/** The five newest decided approvals, and who decided each. */
function approvalLines(snapshot: Snapshot, width: number): string[] {
  if (snapshot.approvals.length === 0) return [];
  return [
    '',
    'recent approvals:',
    ...snapshot.approvals
      .slice(0, 5)
      .map((a) =>
        truncate(
          [
            formatClock(a.at),
            a.agent,
            a.id,
            `${a.decision ?? 'answered'} by ${describeDecider(a)}`,
            a.firstLine,
          ].join('  '),
          width,
        ),
      ),
  ];
}

/** The last `count` events. */
function eventLines(snapshot: Snapshot, count: number, width: number) {
  const events = snapshot.events.slice(-count);
  if (events.length === 0) return [];
  return [
    '',
    'recent events:',
    ...events.map((e) =>
      truncate(
        [
          formatClock(e.ts),
          e.agent,
          e.type,
          e.requestId ?? '',
          describeEventData(e.type, e.data),
        ]
          .filter(Boolean)
          .join('  '),
        width,
      ),
    ),
  ];
}

/**
 * The status as plain text, for `macs status` without a terminal (a pipe, a
 * log): agents, pending requests and the last few events. Pure.
 */
export function formatStatusText(
  snapshot: Snapshot,
  now: number,
  options: { events?: number; width?: number } = {},
): string[] {
  const width = options.width ?? 100;
  const t = snapshot.totals;
  const session = describeSession(snapshot, now);
  return [
    `macs status · ${snapshot.home} · ${t.agents} agent${t.agents === 1 ? '' : 's'} · ${t.pending} pending (${t.waitingForPerson} waiting for you) · ${t.paused} paused`,
    ...(session ? [session] : []),
    '',
    ...agentLines(snapshot, now),
    '',
    ...requestLines(snapshot, now, width),
    ...incompleteLines(snapshot, now, width),
    ...refusedLines(snapshot, now, width),
    ...approvalLines(snapshot, width),
    ...eventLines(snapshot, options.events ?? 10, width),
  ];
}
