/**
 * The pending requests in the page, those waiting for a person first: body,
 * context (as fields, context.ts) and the controller's notes as text, and
 * the actions (answer, allow or deny an approval, dismiss). A card is made once per request and
 * only its line of facts is updated, so an answer being typed is kept.
 */
import type { RequestSnapshot } from '../../state/snapshot-schema.js';
import { postAction } from './api.js';
import { contextView } from './context.js';
import { el, formatAge } from './dom.js';

export interface RequestCards {
  element: HTMLElement;
  update(requests: readonly RequestSnapshot[]): void;
}

function facts(r: RequestSnapshot): string {
  const who = r.waitingForPerson
    ? 'waiting for you'
    : `with ${r.backend ?? 'the router'}`;
  const waits = r.waits ? ` · waits: ${r.waits.reason}` : '';
  return `${r.type} · ${r.priority} · ${r.stage} · ${formatAge(r.ageMs)} · ${who}${waits}`;
}

function createCard(
  r: RequestSnapshot,
  toast: (ok: boolean, message: string) => void,
): { card: HTMLElement; factsLine: HTMLElement } {
  const factsLine = el('span', { class: 'facts', text: facts(r) });
  const status = el('p', { class: 'reply', attrs: { role: 'status' } });
  const run = async (
    action: string,
    body: Record<string, unknown>,
    buttons: HTMLButtonElement[],
  ) => {
    for (const b of buttons) b.disabled = true;
    const reply = await postAction(action, body);
    status.textContent = reply.message;
    status.className = reply.ok ? 'reply ok' : 'reply bad';
    toast(reply.ok, reply.message);
    for (const b of buttons) b.disabled = reply.ok;
  };
  const text = el('textarea', {
    attrs: {
      rows: '3',
      placeholder:
        r.type === 'approval'
          ? 'why (the worker is told)'
          : 'your answer (typed into the worker once it is idle)',
      'aria-label': `answer to ${r.id}`,
    },
  });
  const buttons: HTMLButtonElement[] = [];
  const button = (label: string, cls: string, onClick: () => void) => {
    const b = el('button', {
      class: cls,
      text: label,
      attrs: { type: 'button' },
      on: { click: onClick },
    });
    buttons.push(b);
    return b;
  };
  const need = (what: string) => {
    if (text.value.trim()) return true;
    status.textContent = `write ${what} first`;
    status.className = 'reply bad';
    text.focus();
    return false;
  };
  const actions =
    r.type === 'approval'
      ? [
          button('Allow', 'allow', () => {
            if (need('a reason'))
              void run(
                'decide',
                { id: r.id, decision: 'allow', reason: text.value },
                buttons,
              );
          }),
          button('Deny', 'deny', () => {
            if (need('a reason'))
              void run(
                'decide',
                { id: r.id, decision: 'deny', reason: text.value },
                buttons,
              );
          }),
        ]
      : [
          button('Answer', 'primary', () => {
            if (need('an answer'))
              void run('answer', { id: r.id, text: text.value }, buttons);
          }),
        ];
  actions.push(
    button('Dismiss', 'quiet', () => {
      void run(
        'dismiss',
        { id: r.id, ...(text.value.trim() ? { reason: text.value } : {}) },
        buttons,
      );
    }),
  );
  const context = contextView(r.context);
  const notes = r.answer?.notes ?? '';
  const card = el(
    'article',
    {
      class: `request${r.waitingForPerson ? ' needs-you' : ''}${r.type === 'approval' ? ' approval' : ''}`,
      attrs: { id: `request-${r.id}`, 'data-request': r.id },
    },
    el(
      'header',
      {},
      el('strong', { class: 'agent-name', text: r.agent }),
      el('code', { class: 'rid', text: r.id }),
      factsLine,
    ),
    el('pre', { class: 'body', text: r.body }),
    notes
      ? el(
          'div',
          { class: 'notes' },
          el('h4', { text: "controller's notes" }),
          el('pre', { text: notes }),
        )
      : null,
    context
      ? el(
          'details',
          { class: 'context' },
          el('summary', { text: 'context' }),
          context,
        )
      : null,
    r.waitingForPerson
      ? el(
          'div',
          { class: 'answer' },
          text,
          el('div', { class: 'buttons' }, ...actions),
        )
      : null,
    status,
  );
  return { card, factsLine };
}

/** The section of pending requests. */
export function createRequestCards(
  toast: (ok: boolean, message: string) => void,
): RequestCards {
  const list = el('div', { class: 'requests' });
  const empty = el('p', { class: 'empty', text: 'No pending requests.' });
  const element = el(
    'section',
    { class: 'panel', attrs: { id: 'requests' } },
    el('h2', { text: 'Requests' }),
    empty,
    list,
  );
  const cards = new Map<
    string,
    { card: HTMLElement; factsLine: HTMLElement; waiting: boolean }
  >();
  return {
    element,
    update(requests) {
      const ids = new Set(requests.map((r) => r.id));
      for (const [id, entry] of cards)
        if (!ids.has(id)) {
          entry.card.remove();
          cards.delete(id);
        }
      const ordered: HTMLElement[] = [];
      for (const r of requests) {
        let entry = cards.get(r.id);
        // A request that came to wait for a person gets its answer box.
        if (entry && entry.waiting !== r.waitingForPerson) {
          entry.card.remove();
          cards.delete(r.id);
          entry = undefined;
        }
        if (!entry) {
          entry = { ...createCard(r, toast), waiting: r.waitingForPerson };
          cards.set(r.id, entry);
        }
        entry.factsLine.textContent = facts(r);
        ordered.push(entry.card);
      }
      // Reorder without re-creating (a focused textarea keeps its text).
      ordered.forEach((card, i) => {
        if (list.children[i] !== card)
          list.insertBefore(card, list.children[i] ?? null);
      });
      empty.hidden = requests.length > 0;
    },
  };
}
