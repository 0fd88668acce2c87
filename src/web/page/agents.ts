/**
 * The agents in the page: one card each with its state (in colour), age,
 * pane, open requests, last round trip, delivery pause, and its live
 * screen; the agent that waits for a person is marked and comes first; a
 * Claude Code teammate is `<lead>/<teammate>`, after its lead (agent-order.ts).
 */
import type { AgentSnapshot } from '../../state/snapshot-schema.js';
import type { ScreenView } from '../messages.js';
import { cardName, orderAgentCards } from './agent-order.js';
import { postAction } from './api.js';
import { el, formatAge, formatDuration } from './dom.js';
import { createScreenPanel, type ScreenPanel } from './screen.js';

interface Card {
  card: HTMLElement;
  state: HTMLElement;
  facts: HTMLElement;
  pause: HTMLButtonElement;
  screen: ScreenPanel;
  paused: boolean;
  sendBox: HTMLElement | null;
}

export interface AgentCards {
  element: HTMLElement;
  update(agents: readonly AgentSnapshot[], allowSend: boolean): void;
  showScreen(screen: ScreenView): void;
  names(): string[];
}

function factsOf(a: AgentSnapshot): string {
  const parts = [
    `${formatAge(a.stateAgeMs)} ${a.stateSource}`,
    `pane ${a.pane ?? '–'}`,
    `${a.counts.pending} open`,
    `round trip ${formatDuration(a.lastRoundTripMs)}`,
  ];
  if (!a.bridge.running) parts.push('no bridge');
  return parts.join(' · ');
}

function sendBox(
  agent: string,
  toast: (ok: boolean, message: string) => void,
): HTMLElement {
  const input = el('input', {
    attrs: {
      type: 'text',
      placeholder: `message to ${agent} (typed once it is idle)`,
      'aria-label': `message to ${agent}`,
    },
  });
  const button = el('button', {
    text: 'Send',
    attrs: { type: 'button' },
    on: {
      click: () => {
        if (!input.value.trim()) return;
        button.disabled = true;
        void postAction('send', { agent, text: input.value }).then((reply) => {
          button.disabled = false;
          if (reply.ok) input.value = '';
          toast(reply.ok, reply.message);
        });
      },
    },
  });
  return el('div', { class: 'send' }, input, button);
}

/** The section of agents. */
export function createAgentCards(
  toast: (ok: boolean, message: string) => void,
): AgentCards {
  const grid = el('div', { class: 'agents' });
  const empty = el('p', {
    class: 'empty',
    text: 'No agents yet: start a session (macs start) or a bridge.',
  });
  const element = el(
    'section',
    { class: 'panel', attrs: { id: 'agents' } },
    el('h2', { text: 'Agents' }),
    empty,
    grid,
  );
  const cards = new Map<string, Card>();

  function create(a: AgentSnapshot): Card {
    const state = el('span', { class: 'state' });
    const facts = el('span', { class: 'facts' });
    const entry: Card = {
      card: el('article', { class: 'agent', attrs: { 'data-agent': a.name } }),
      state,
      facts,
      pause: el('button', { class: 'quiet', attrs: { type: 'button' } }),
      screen: createScreenPanel(a.name),
      paused: a.paused,
      sendBox: null,
    };
    entry.pause.addEventListener('click', () => {
      entry.pause.disabled = true;
      void postAction(entry.paused ? 'resume' : 'pause', {
        agent: a.name,
      }).then((reply) => {
        entry.pause.disabled = false;
        toast(reply.ok, reply.message);
      });
    });
    entry.card.append(
      el(
        'header',
        {},
        el('strong', { class: 'agent-name', text: cardName(a) }),
        state,
        entry.pause,
      ),
      facts,
      entry.screen.element,
    );
    return entry;
  }

  return {
    element,
    update(agents, allowSend) {
      const names = new Set(agents.map((a) => a.name));
      for (const [name, entry] of cards)
        if (!names.has(name)) {
          entry.screen.dispose();
          entry.card.remove();
          cards.delete(name);
        }
      // Those waiting for you first, then by name; teammates under their lead.
      const ordered = orderAgentCards(agents);
      ordered.forEach((a, i) => {
        let entry = cards.get(a.name);
        if (!entry) {
          entry = create(a);
          cards.set(a.name, entry);
        }
        entry.paused = a.paused;
        entry.state.textContent = a.paused ? `${a.state} · paused` : a.state;
        entry.state.className = `state s-${a.state}`;
        entry.facts.textContent = factsOf(a);
        entry.pause.textContent = a.paused ? 'Resume' : 'Pause';
        entry.pause.title = a.paused
          ? 'deliver answers to it again'
          : 'hold answers to it (kept) until resumed';
        const waiting = a.counts.waitingForPerson > 0;
        entry.card.className = `agent s-${a.state}${waiting ? ' needs-you' : ''}${a.paused ? ' paused' : ''}${a.teammate ? ' teammate' : ''}`;
        if (allowSend && !entry.sendBox) {
          entry.sendBox = sendBox(a.name, toast);
          entry.card.append(entry.sendBox);
        } else if (!allowSend && entry.sendBox) {
          entry.sendBox.remove();
          entry.sendBox = null;
        }
        if (grid.children[i] !== entry.card)
          grid.insertBefore(entry.card, grid.children[i] ?? null);
      });
      empty.hidden = agents.length > 0;
    },
    showScreen(screen) {
      cards.get(screen.agent)?.screen.show(screen);
    },
    names: () => [...cards.keys()].sort(),
  };
}
