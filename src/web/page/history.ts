/** The request paths and recent events of the page: rebuilt on each change (no inputs in them). */
import type { EventSnapshot } from '../../state/snapshot-schema.js';
import type { RequestPath } from '../messages.js';
import { el, fill, formatClock } from './dom.js';

/** One request's path: its steps with their times, and the time between. */
function pathRow(p: RequestPath): HTMLElement {
  const start = new Date(p.steps[0]?.at ?? '').getTime();
  const steps = p.steps.map((s, i) => {
    const since = new Date(s.at).getTime() - start;
    return el(
      'li',
      { class: `step st-${s.stage}`, attrs: { title: s.at } },
      el('span', { class: 'stage', text: s.stage }),
      el('span', {
        class: 'when',
        text: i === 0 ? formatClock(s.at) : `+${(since / 1000).toFixed(1)} s`,
      }),
    );
  });
  return el(
    'div',
    { class: 'path', attrs: { 'data-request': p.id } },
    el(
      'div',
      { class: 'path-head' },
      el('strong', { class: 'agent-name', text: p.agent }),
      el('code', { class: 'rid', text: p.id }),
      el('span', { class: 'facts', text: p.firstLine }),
    ),
    el('ol', { class: 'steps' }, ...steps),
  );
}

export function renderPaths(
  section: HTMLElement,
  paths: readonly RequestPath[],
): void {
  fill(
    section,
    el('h2', { text: 'Request paths' }),
    paths.length === 0
      ? el('p', { class: 'empty', text: 'No requests yet.' })
      : null,
    ...paths.map(pathRow),
  );
}

function eventSummary(e: EventSnapshot): string {
  if (!e.data) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(e.data)) {
    if (parts.length >= 4) break;
    if (
      typeof value !== 'string' &&
      typeof value !== 'number' &&
      typeof value !== 'boolean'
    )
      continue;
    const text = String(value);
    parts.push(`${key}=${text.length > 60 ? `${text.slice(0, 59)}…` : text}`);
  }
  return parts.join(' ');
}

export function renderEvents(
  section: HTMLElement,
  events: readonly EventSnapshot[],
): void {
  const rows = events.slice(0, 30).map((e) => {
    const data = [e.requestId ?? '', eventSummary(e)].filter(Boolean).join(' ');
    return el(
      'li',
      { class: 'event' },
      el('span', { class: 'when', text: formatClock(e.ts) }),
      el('span', { class: 'agent-name', text: e.agent }),
      el('span', { class: 'etype', text: e.type }),
      data ? el('span', { class: 'edata', text: data }) : null,
    );
  });
  fill(
    section,
    el('h2', { text: 'Recent events' }),
    rows.length === 0
      ? el('p', { class: 'empty', text: 'No events yet.' })
      : el('ol', { class: 'events' }, ...rows),
  );
}
