/**
 * A request's context packet (SPEC §3, protocol/context.ts) as a person
 * reads it: its facts as labelled fields, the last lines of the worker's
 * screen as a block, its earlier requests as a short list. The packet comes
 * from a file of the home, so every field is read as unknown and put in as
 * text; a context of another shape shows its plain fields the same way.
 */
import { el, formatClock } from './dom.js';

type Fields = Record<string, unknown>;

const isObject = (v: unknown): v is Fields =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const text = (v: unknown): string | undefined =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
    ? String(v)
    : undefined;

/** `k=v k=v` of an object's plain values; a list's plain items, comma-separated. */
function flat(v: unknown): string | undefined {
  if (Array.isArray(v)) {
    const items = v.map(text).filter((s): s is string => s !== undefined);
    return items.length > 0 ? items.join(', ') : undefined;
  }
  if (isObject(v)) {
    const pairs = Object.entries(v)
      .map(([k, x]) => (text(x) === undefined ? '' : `${k}=${text(x)}`))
      .filter(Boolean);
    return pairs.length > 0 ? pairs.join(' ') : undefined;
  }
  return text(v);
}

function fieldList(rows: [string, string | undefined][]): HTMLElement {
  return el(
    'dl',
    { class: 'context-fields' },
    ...rows.flatMap(([name, value]) =>
      value === undefined || value === ''
        ? []
        : [el('dt', { text: name }), el('dd', { text: value })],
    ),
  );
}

function pausedText(p: unknown): string | undefined {
  if (!isObject(p)) return undefined;
  if (p.by !== 'budget') return 'by a person: an answer is kept until resumed';
  const whose = p.scope === 'session' ? "the session's" : 'its';
  const percent = typeof p.percent === 'number' ? ` (${p.percent}%)` : '';
  return `by ${whose} budget${percent}: an answer is kept until resumed`;
}

function recentList(recent: unknown[]): HTMLElement {
  return el(
    'ul',
    { class: 'context-recent' },
    ...recent.filter(isObject).map((r) => {
      const when = text(r.detectedAt);
      const facts = [text(r.type), text(r.stage), when && formatClock(when)]
        .filter(Boolean)
        .join(' · ');
      const answer = text(r.answer);
      return el(
        'li',
        {},
        el('code', { class: 'rid', text: text(r.id) ?? '?' }),
        ' ',
        el('span', { class: 'facts', text: facts }),
        el('div', { class: 'question', text: text(r.question) ?? '' }),
        answer
          ? el('div', { class: 'earlier-answer', text: `answer: ${answer}` })
          : null,
      );
    }),
  );
}

/** The packet of a request; null when there is none. */
export function contextView(context: unknown): HTMLElement | null {
  if (context === null || context === undefined || context === '') return null;
  if (!isObject(context))
    return el('pre', { class: 'context-text', text: flat(context) ?? '' });
  if (typeof context.agent !== 'string') {
    // Not a packet macs wrote: its plain fields, as they are.
    return fieldList(
      Object.entries(context).map(([k, v]) => [k, flat(v)] as const),
    );
  }
  const preset = text(context.preset);
  const screen = Array.isArray(context.screen)
    ? context.screen.map((l) => text(l) ?? '')
    : [];
  const recent = Array.isArray(context.recent) ? context.recent : [];
  const asked = text(context.detectedAt);
  return el(
    'div',
    { class: 'context-packet' },
    context.concealed === true
      ? el('p', {
          class: 'context-warning',
          text: 'The worker hid text on its screen when it asked: a person watching did not see all of it.',
        })
      : null,
    context.invisible === true
      ? el('p', {
          class: 'context-warning',
          text: 'It holds characters a person does not see, shown as <U+…>.',
        })
      : null,
    fieldList([
      ['agent', context.agent],
      ['preset', preset],
      ['folder', text(context.cwd) ?? 'unknown'],
      ['branch', text(context.branch) ?? 'none'],
      ['attributes', flat(context.attributes)],
      ['asked at', asked && formatClock(asked)],
      ['paused', pausedText(context.paused)],
    ]),
    screen.length > 0
      ? el('h4', {
          text: `the last ${screen.length} lines of its screen`,
        })
      : null,
    screen.length > 0
      ? el('pre', { class: 'context-screen', text: screen.join('\n') })
      : null,
    el('h4', { text: 'earlier requests' }),
    recent.length > 0
      ? recentList(recent)
      : el('p', { class: 'empty', text: 'none' }),
  );
}
