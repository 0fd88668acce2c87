/**
 * An agent's screen in the page: a read-only xterm.js terminal drawn from
 * the text lines the server read of the pane (never the pane's raw bytes:
 * no escape sequence reaches it, see plainLine).
 *
 * The terminal is fitted to its box, not to the pane: as many columns as
 * the box holds (a longer line wraps, so a phone shows it whole: a touch
 * on the terminal cannot scroll a box sideways, xterm.js takes the swipe),
 * and as many rows as the text fills once wrapped, up to VISIBLE_ROWS (the
 * rest, above, scrolls inside it). The blank rows under a quiet agent's
 * prompt are not drawn.
 */
import { Terminal } from '@xterm/xterm';
import type { ScreenView } from '../messages.js';
import { el, plainLine } from './dom.js';

export interface ScreenPanel {
  element: HTMLElement;
  show(screen: ScreenView): void;
  dispose(): void;
}

/** The most rows a box shows at once; the older wrapped rows scroll. */
const VISIBLE_ROWS = 40;
/** Wrapped rows kept above those shown. */
const SCROLLBACK_ROWS = 400;
/** A terminal never gets narrower than this (a box too narrow scrolls). */
const MIN_COLS = 20;
const FONT_SIZE = 12;
const FONT_FAMILY = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
/** The .term box's padding, left plus right (style.css). */
const TERM_PADDING_PX = 8;

function themeOf(dark: boolean) {
  return dark
    ? { background: '#0d1117', foreground: '#d1d7e0', cursor: '#0d1117' }
    : { background: '#f6f8fa', foreground: '#1f2328', cursor: '#f6f8fa' };
}

const DARK = window.matchMedia('(prefers-color-scheme: dark)');

let measuredCell = 0;
/** The width of one cell of the terminal's font, in CSS pixels. */
function cellWidth(): number {
  if (measuredCell > 0) return measuredCell;
  const probe = el('span', { text: 'W'.repeat(100) });
  probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;font-size:${FONT_SIZE}px;font-family:${FONT_FAMILY}`;
  document.body.append(probe);
  const width = probe.getBoundingClientRect().width / 100;
  probe.remove();
  if (width > 0) measuredCell = width;
  return width || FONT_SIZE * 0.6;
}

let measuredBar = -1;
/**
 * The width of a scroll bar that takes room (a desktop's; 0 where they are
 * drawn over the content, as on a phone): the box keeps it free, so the
 * bar of a screen taller than VISIBLE_ROWS covers no text.
 */
function scrollBarWidth(): number {
  if (measuredBar >= 0) return measuredBar;
  const probe = el('div');
  probe.style.cssText =
    'position:absolute;visibility:hidden;width:100px;height:50px;overflow-y:scroll';
  document.body.append(probe);
  measuredBar = Math.max(0, probe.offsetWidth - probe.clientWidth);
  probe.remove();
  return measuredBar;
}

/** The screen's lines without the blank ones under the last text. */
function trimmed(lines: readonly string[]): string[] {
  const out = lines.map(plainLine);
  while (out.length > 1 && out[out.length - 1]?.trim() === '') out.pop();
  return out;
}

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
    scrollback: SCROLLBACK_ROWS,
    cols: 80,
    rows: 1,
    fontSize: FONT_SIZE,
    fontFamily: FONT_FAMILY,
    theme: themeOf(DARK.matches),
  });
  term.open(host);
  const onScheme = () => {
    term.options.theme = themeOf(DARK.matches);
  };
  DARK.addEventListener('change', onScheme);

  let lines: string[] | undefined;
  let paneWidth = 80;
  let drawn = '';
  let generation = 0;

  /** The columns the box holds, at most the pane's. */
  function fitCols(): number {
    const room = element.clientWidth - TERM_PADDING_PX - scrollBarWidth();
    if (room <= 0) return Math.max(MIN_COLS, Math.min(paneWidth, 80));
    const fit = Math.floor((room - 1) / cellWidth());
    return Math.max(MIN_COLS, Math.min(paneWidth, fit));
  }

  function draw(): void {
    if (!lines) return;
    const cols = fitCols();
    const text = lines.join('\r\n');
    const key = `${cols}\n${text}`;
    if (key === drawn) return;
    drawn = key;
    if (term.cols !== cols) term.resize(cols, term.rows);
    const mine = ++generation;
    // A full reset (RIS) goes in the same queue as the text, so a draw
    // still being parsed is never mixed with the next one. The lines hold
    // no ESC of their own (plainLine).
    term.write(`\x1bc${text}`, () => {
      if (mine !== generation) return;
      const buffer = term.buffer.active;
      const used = buffer.baseY + buffer.cursorY + 1;
      const rows = Math.max(1, Math.min(VISIBLE_ROWS, used));
      if (term.rows !== rows) term.resize(term.cols, rows);
      term.scrollToBottom();
    });
  }

  // A box that changes width (a phone turned, the layout's columns) is
  // fitted again.
  let boxWidth = -1;
  const resized = new ResizeObserver(() => {
    if (element.clientWidth === boxWidth) return;
    boxWidth = element.clientWidth;
    draw();
  });
  resized.observe(element);

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
      paneWidth = Math.max(MIN_COLS, Math.min(screen.width, 400));
      lines = trimmed(screen.lines.slice(-Math.max(1, screen.height)));
      // The text, for tests and for copying (the terminal draws it).
      host.dataset.text = lines.join('\n');
      draw();
    },
    dispose() {
      resized.disconnect();
      DARK.removeEventListener('change', onScheme);
      term.dispose();
    },
  };
}
