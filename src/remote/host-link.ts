/**
 * Pure: a host's link as every door of the hub says it (`macs hosts`,
 * `macs status`, the live view's header, the page of `macs web`, `macs
 * inbox`, the MCP tools' `hostsDown`): one value built from the hub's model
 * of the host (fleet-model.ts), and one line of words for it, so no door
 * says a link its own way. The doors add only what is theirs around the
 * line (`macs hosts` its ssh target and agents, `macs inbox` its `macs:`).
 */
import { withHint } from '../errors.js';
import { downLabel, sinceLabel, type HostView } from './fleet-model.js';

/** One host's link, as every door shows it. */
export interface HostLink {
  name: string;
  /** `connecting`: not read yet (the live view, before its first read). */
  link: 'up' | 'down' | 'connecting';
  /** Since when the link is so (ISO), when known. */
  since: string | null;
  /** The macs version on the host, when read. */
  version: string | null;
  rttMs: number | null;
  /** Why it is down, one line: `message (hint: …)`. */
  error: string | null;
  agents: number;
  /** Its open requests, and of those the ones waiting for a person. */
  requests: number;
  waiting: number;
  /** Answers given at the hub, kept until the host is back. */
  heldAnswers: number;
}

/** An error and what to do, in one line: `message (hint: …)`. */
export function errorLine(
  error: { message: string; hint?: string } | null,
): string | null {
  return error ? withHint(error) : null;
}

/** A host's link from the hub's model of it (up or down). */
export function hostLink(view: HostView): HostLink {
  return {
    name: view.name,
    link: view.link,
    since: view.since,
    version: view.version,
    rttMs: view.rttMs,
    error: view.link === 'down' ? errorLine(view.error) : null,
    agents: view.agents.length,
    requests: view.requests.length,
    waiting: view.requests.filter((r) => r.waitingForAnswer).length,
    heldAnswers: view.heldAnswers,
  };
}

/** A host's link before its first read. */
export function connectingLink(name: string): HostLink {
  return {
    name,
    link: 'connecting',
    since: null,
    version: null,
    rttMs: null,
    error: null,
    agents: 0,
    requests: 0,
    waiting: 0,
    heldAnswers: 0,
  };
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The link in words. `short` (the live view's header, a line shared by
 * every host): `h1 up 12 ms`, `h2 down since 2026-11-29T10:02:03Z`,
 * `h3 connecting`. `full` (every other door): the same first words, then
 * what else is known, joined by ` · `:
 *
 *   h1 up since 2026-11-29T10:00:00Z · 12 ms · macs 0.1.0 · 2 agents · 1 open (1 waiting)
 *   h2 down since 2026-11-29T10:02:03Z · 1 answer kept · host h2: … (hint: …)
 */
export function hostLinkLine(
  link: HostLink,
  form: 'full' | 'short' = 'full',
): string {
  if (link.link === 'connecting') return `${link.name} connecting`;
  if (form === 'short')
    return link.link === 'down'
      ? downLabel(link.name, link.since)
      : `${link.name} up${link.rttMs !== null ? ` ${link.rttMs} ms` : ''}`;
  const kept = link.heldAnswers
    ? [count(link.heldAnswers, 'answer kept', 'answers kept')]
    : [];
  if (link.link === 'down')
    return [
      downLabel(link.name, link.since),
      ...kept,
      ...(link.error ? [link.error] : []),
    ].join(' · ');
  return [
    `${link.name} up${link.since ? ` ${sinceLabel(link.since)}` : ''}`,
    ...(link.rttMs !== null ? [`${link.rttMs} ms`] : []),
    ...(link.version ? [`macs ${link.version}`] : []),
    count(link.agents, 'agent', 'agents'),
    `${link.requests} open${link.waiting ? ` (${link.waiting} waiting)` : ''}`,
    ...kept,
  ].join(' · ');
}

/**
 * A host as the `--json` of `macs hosts` and `macs status` has it: the
 * hub's model of it, with its link in words (`line`, the full form).
 */
export function withLinkLine(view: HostView): HostView & { line: string } {
  return { ...view, line: hostLinkLine(hostLink(view)) };
}
