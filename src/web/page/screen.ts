/**
 * An agent's screen in the page: a read-only xterm.js terminal drawn from
 * the text lines the server read of the pane (never the pane's raw bytes:
 * no escape sequence reaches it, see plainLine).
 */
import { Terminal } from '@xterm/xterm';
import type { ScreenView } from '../messages.js';
import { el, plainLine } from './dom.js';

export interface ScreenPanel {
  element: HTMLElement;
  show(screen: ScreenView): void;
  dispose(): void;
}

function themeOf(dark: boolean) {
  return dark
    ? { background: '#0d1117', foreground: '#d1d7e0', cursor: '#0d1117' }
    : { background: '#f6f8fa', foreground: '#1f2328', cursor: '#f6f8fa' };
}

const DARK = window.matchMedia('(prefers-color-scheme: dark)');

/** A terminal panel for one agent. */
export function createScreenPanel(agent: string): ScreenPanel {
  const host = el('div', { class: 'term', attrs: { 'data-agent': agent } });
  const note = el('p', { class: 'term-note', text: 'reading the screen…' });
  const element = el('div', { class: 'screen' }, note, host);
  const term = new Terminal({
    disableStdin: true,
    cursorBlink: false,
    cursorInactiveStyle: 'none',
    convertEol: false,
    scrollback: 0,
    cols: 80,
    rows: 12,
    fontSize: 12,
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
    theme: themeOf(DARK.matches),
  });
  term.open(host);
  const onScheme = () => {
    term.options.theme = themeOf(DARK.matches);
  };
  DARK.addEventListener('change', onScheme);
  let lastText = '';
  return {
    element,
    show(screen) {
      if ('error' in screen) {
        note.textContent = screen.error;
        note.hidden = false;
        return;
      }
      note.hidden = !screen.dead;
      note.textContent = screen.dead ? 'its program has exited' : '';
      const rows = Math.max(1, Math.min(screen.height, 200));
      const cols = Math.max(20, Math.min(screen.width, 400));
      if (term.cols !== cols || term.rows !== rows) term.resize(cols, rows);
      const lines = screen.lines.slice(-rows).map(plainLine);
      // The text, for tests and for copying (the terminal draws it).
      host.dataset.text = lines.join('\n');
      const text = lines.join('\r\n');
      if (text === lastText) return;
      lastText = text;
      term.reset();
      term.write(text);
    },
    dispose() {
      DARK.removeEventListener('change', onScheme);
      term.dispose();
    },
  };
}
