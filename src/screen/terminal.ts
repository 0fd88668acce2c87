/**
 * The one home of terminal emulation: pane bytes -> rendered lines. Wraps
 * @xterm/headless so nothing else imports it, and translates its buffer into
 * our own RenderedLine.
 *
 * @xterm/headless is a CommonJS bundle whose named exports Node cannot see
 * from ESM, so it is imported as a default and destructured.
 */
import xtermHeadless from '@xterm/headless';

const { Terminal } = xtermHeadless;

/** One screen row; `wrapped` means it continues the row before it. */
export interface RenderedLine {
  text: string;
  wrapped: boolean;
}

export interface Screen {
  /** Feed output; resolves once the emulator has parsed it. */
  write(data: string | Uint8Array): Promise<void>;
  /**
   * Queue output without waiting. `onParsed` runs once this piece has been
   * parsed and before the next queued piece is, so a caller can look at the
   * screen between pieces without a timer hop per piece.
   */
  feed(data: string | Uint8Array, onParsed?: () => void): void;
  resize(cols: number, rows: number): void;
  /** Scrollback then visible rows, oldest first. */
  lines(): RenderedLine[];
  /** The visible rows, right-trimmed, joined by newlines (like `capture-pane -p`). */
  visibleText(): string;
  /** One row of the active buffer (as `lines()` gives it), undefined past the end. */
  row(y: number): RenderedLine | undefined;
  /** Rows `from` to `to` (exclusive) of the active buffer, as `row` gives them. */
  rowRange(from: number, to: number): RenderedLine[];
  /** Whether row `y` continues the row above it (cheaper than `row(y).wrapped`). */
  isWrapped(y: number): boolean;
  /** Follow a row of the active buffer while rows are added, trimmed or reflowed. */
  trackRow(y: number): TrackedRow;
  readonly cols: number;
  readonly rows: number;
  /** Which buffer is shown: full-screen programs switch to `alternate`. */
  readonly buffer: 'normal' | 'alternate';
  /** Rows in the active buffer, scrollback included. */
  readonly length: number;
  /** Index of the first visible row (the number of scrollback rows above it). */
  readonly baseY: number;
  /** Row index of the cursor in the active buffer. */
  readonly cursorRow: number;
  dispose(): void;
}

/** A row followed through scrolling: `line` is -1 once the row is gone. */
export interface TrackedRow {
  readonly line: number;
  dispose(): void;
}

export interface ScreenOptions {
  cols: number;
  rows: number;
  /** Rows kept above the visible area; default 10000. */
  scrollback?: number;
}

const DEFAULT_SCROLLBACK_ROWS = 10_000;

/**
 * C1 control characters written as UTF-8 (U+0080 to U+009F: U+009B is a
 * CSI, U+009D an OSC…). xterm acts on them; tmux (3.x, UTF-8 mode) drops
 * them and shows what follows as text. What the bridge reads must be what
 * the person sees in the pane, so they are dropped here too (SPEC §9).
 */
const C1_CONTROLS = /[\u0080-\u009f]/g;

/** Output as tmux draws it: C1 controls removed. */
export function dropC1(data: string): string {
  return data.replace(C1_CONTROLS, '');
}

export function createScreen(options: ScreenOptions): Screen {
  const terminal = new Terminal({
    cols: options.cols,
    rows: options.rows,
    scrollback: options.scrollback ?? DEFAULT_SCROLLBACK_ROWS,
    allowProposedApi: true,
  });

  const buffer = () => terminal.buffer.active;

  function row(y: number): RenderedLine | undefined {
    const active = buffer();
    const line = active.getLine(y);
    if (!line) return undefined;
    // A row that the next row continues keeps its trailing spaces: they
    // are real text at the wrap point. (xterm's own trimRight only drops
    // cells never written, so trim here.)
    const continued = active.getLine(y + 1)?.isWrapped ?? false;
    // Bounded by the width: after a narrowing resize a row may still hold
    // cells past the new right edge.
    const text = line.translateToString(false, 0, terminal.cols);
    return { text: continued ? text : text.trimEnd(), wrapped: line.isWrapped };
  }

  return {
    write(data) {
      return new Promise<void>((resolve) => {
        terminal.write(typeof data === 'string' ? dropC1(data) : data, resolve);
      });
    },
    feed(data, onParsed) {
      // xterm parses a write after a timer tick unless user input came just
      // before it, which it answers at once. An empty "user input" (nothing
      // is sent anywhere: no one listens to onData) buys the synchronous
      // path; without it this still works, one tick later.
      terminal.input('', true);
      terminal.write(typeof data === 'string' ? dropC1(data) : data, onParsed);
    },
    resize(cols, rows) {
      terminal.resize(cols, rows);
    },
    lines() {
      const out: RenderedLine[] = [];
      for (let y = 0; y < buffer().length; y += 1) {
        const line = row(y);
        if (line) out.push(line);
      }
      return out;
    },
    visibleText() {
      const active = buffer();
      const rows: string[] = [];
      for (let y = 0; y < terminal.rows; y += 1) {
        const line = active.getLine(active.baseY + y);
        rows.push(
          line ? line.translateToString(false, 0, terminal.cols).trimEnd() : '',
        );
      }
      return rows.join('\n');
    },
    row,
    rowRange(from, to) {
      const active = buffer();
      const cols = terminal.cols;
      const end = Math.min(to, active.length);
      const out: RenderedLine[] = [];
      let line = from < end ? active.getLine(from) : undefined;
      for (let y = from; y < end && line; y += 1) {
        const next = active.getLine(y + 1);
        const continued = next?.isWrapped ?? false;
        out.push({
          // See row(): a continued row keeps its trailing spaces.
          text: continued
            ? line.translateToString(false, 0, cols)
            : line.translateToString(false, 0, cols).trimEnd(),
          wrapped: line.isWrapped,
        });
        line = next;
      }
      return out;
    },
    isWrapped(y) {
      return buffer().getLine(y)?.isWrapped ?? false;
    },
    trackRow(y) {
      const active = buffer();
      const marker = terminal.registerMarker(y - active.baseY - active.cursorY);
      return {
        get line() {
          return marker && !marker.isDisposed ? marker.line : -1;
        },
        dispose() {
          marker?.dispose();
        },
      };
    },
    get cols() {
      return terminal.cols;
    },
    get rows() {
      return terminal.rows;
    },
    get buffer() {
      return buffer().type;
    },
    get length() {
      return buffer().length;
    },
    get baseY() {
      return buffer().baseY;
    },
    get cursorRow() {
      const active = buffer();
      return active.baseY + active.cursorY;
    },
    dispose() {
      terminal.dispose();
    },
  };
}
