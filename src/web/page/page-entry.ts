/**
 * The page of `macs web`. It drops the secret from the address bar at once
 * (the server traded it for a cookie), opens one socket, and draws each
 * fleet and screen the server pushes; it never polls. Everything an agent
 * wrote is put in as text.
 */
import type { FleetView, ServerMessage } from '../messages.js';
import { createAgentCards } from './agents.js';
import { el, fill } from './dom.js';
import { renderEvents, renderPaths } from './history.js';
import { createRequestCards } from './requests.js';

// The secret must not stay in the address bar or the history.
if (location.search) history.replaceState(null, '', location.pathname);

/** Longest wait between two tries to reconnect. */
const RECONNECT_MAX_MS = 10_000;

const toasts = el('div', { class: 'toasts', attrs: { 'aria-live': 'polite' } });
function toast(ok: boolean, message: string): void {
  const t = el('div', { class: ok ? 'toast ok' : 'toast bad', text: message });
  toasts.append(t);
  setTimeout(() => t.remove(), ok ? 4000 : 8000);
}

const conn = el('span', { class: 'conn', text: 'connecting' });
const homeLine = el('span', { class: 'home' });
const counts = el('span', { class: 'counts' });
/** The hub's hosts (docs/remote.md), their agents among the others. */
const hostsLine = el('div', { class: 'hosts' });
hostsLine.hidden = true;
const banner = el('div', { class: 'banner', attrs: { role: 'alert' } });
banner.hidden = true;
const requests = createRequestCards(toast);
const agents = createAgentCards(toast);
const paths = el('section', { class: 'panel', attrs: { id: 'paths' } });
const events = el('section', { class: 'panel', attrs: { id: 'events' } });

const top = el(
  'header',
  { class: 'top' },
  el('h1', { text: 'macs' }),
  homeLine,
  counts,
  conn,
);
// The header sticks to the top of the window: a card a link jumps to is
// put below it (html's scroll-padding-top in style.css), whatever its
// height (it wraps to more lines on a phone).
new ResizeObserver(() => {
  document.documentElement.style.setProperty(
    '--top-height',
    `${Math.ceil(top.getBoundingClientRect().height)}px`,
  );
}).observe(top);

const app = document.getElementById('app') as HTMLElement;
fill(
  app,
  top,
  hostsLine,
  banner,
  el(
    'main',
    {},
    el('div', { class: 'col-main' }, requests.element, agents.element),
    el('div', { class: 'col-side' }, paths, events),
  ),
  toasts,
);

let watched = '';
let socket: WebSocket | undefined;

function watchScreens(): void {
  const names = agents.names();
  const key = names.join('\n');
  if (key === watched || !socket || socket.readyState !== WebSocket.OPEN)
    return;
  watched = key;
  socket.send(JSON.stringify({ type: 'screens', agents: names }));
}

function showFleet(fleet: FleetView): void {
  const waiting = fleet.requests.filter((r) => r.waitingForPerson);
  document.title = `${waiting.length > 0 ? `(${waiting.length}) ` : ''}macs · ${fleet.home.split('/').pop() ?? fleet.home}`;
  homeLine.textContent =
    fleet.session.status === 'server-gone'
      ? `${fleet.home} · session NOT running: its tmux server is gone; bring it back with macs start --resume`
      : `${fleet.home} · session ${fleet.session.status}`;
  counts.textContent = `${fleet.totals.agents} agents · ${fleet.totals.pending} pending · ${fleet.totals.paused} paused`;
  hostsLine.hidden = fleet.hosts.length === 0;
  fill(
    hostsLine,
    ...fleet.hosts.map((h) =>
      // The server's words for the link, those of every door.
      el('span', { class: `host ${h.link}`, text: h.line }),
    ),
  );
  const first = waiting[0];
  banner.hidden = !first;
  if (first) {
    const link = el('a', {
      attrs: { href: `#request-${first.id}` },
      text: 'answer',
    });
    fill(
      banner,
      el('strong', {
        text:
          waiting.length === 1
            ? `${first.agent} needs you`
            : `${waiting.length} requests need you`,
      }),
      el('span', {
        class: 'banner-line',
        text: `${first.agent}: ${first.firstLine}`,
      }),
      link,
    );
  }
  requests.update(fleet.requests);
  agents.update(fleet.agents, fleet.allowSend);
  renderPaths(paths, fleet.paths);
  renderEvents(events, fleet.events);
  watchScreens();
}

function connect(attempt: number): void {
  const ws = new WebSocket(
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`,
  );
  socket = ws;
  ws.addEventListener('open', () => {
    conn.textContent = 'live';
    conn.className = 'conn live';
    watched = '';
    attempt = 0;
    watchScreens();
  });
  ws.addEventListener('message', (event) => {
    let message: ServerMessage;
    try {
      message = JSON.parse(String(event.data)) as ServerMessage;
    } catch {
      return;
    }
    if (message.type === 'fleet') showFleet(message.fleet);
    else if (message.type === 'screen') agents.showScreen(message.screen);
  });
  ws.addEventListener('close', () => {
    conn.textContent = 'disconnected: reconnecting';
    conn.className = 'conn down';
    socket = undefined;
    const wait = Math.min(RECONNECT_MAX_MS, 500 * 2 ** attempt);
    setTimeout(() => connect(attempt + 1), wait);
  });
}

connect(0);
