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
  resize(cols: number, rows: number): void;
  /** Scrollback then visible rows, oldest first. */
  lines(): RenderedLine[];
  /** The visible rows, right-trimmed, joined by newlines (like `capture-pane -p`). */
  visibleText(): string;
  readonly cols: number;
  readonly rows: number;
  dispose(): void;
}

export interface ScreenOptions {
  cols: number;
  rows: number;
  /** Rows kept above the visible area; default 10000. */
  scrollback?: number;
}

const DEFAULT_SCROLLBACK_ROWS = 10_000;

export function createScreen(options: ScreenOptions): Screen {
  const terminal = new Terminal({
    cols: options.cols,
    rows: options.rows,
    scrollback: options.scrollback ?? DEFAULT_SCROLLBACK_ROWS,
    allowProposedApi: true,
  });

  const buffer = () => terminal.buffer.active;

  return {
    write(data) {
      return new Promise<void>((resolve) => {
        terminal.write(data, resolve);
      });
    },
    resize(cols, rows) {
      terminal.resize(cols, rows);
    },
    lines() {
      const active = buffer();
      const out: RenderedLine[] = [];
      for (let y = 0; y < active.length; y += 1) {
        const line = active.getLine(y);
        if (!line) continue;
        // A row that the next row continues keeps its trailing spaces: they
        // are real text at the wrap point. (xterm's own trimRight only drops
        // cells never written, so trim here.)
        const continued = active.getLine(y + 1)?.isWrapped ?? false;
        const text = line.translateToString(false);
        out.push({
          text: continued ? text : text.trimEnd(),
          wrapped: line.isWrapped,
        });
      }
      return out;
    },
    visibleText() {
      const active = buffer();
      const rows: string[] = [];
      for (let y = 0; y < terminal.rows; y += 1) {
        const line = active.getLine(active.baseY + y);
        rows.push(line ? line.translateToString(false).trimEnd() : '');
      }
      return rows.join('\n');
    },
    get cols() {
      return terminal.cols;
    },
    get rows() {
      return terminal.rows;
    },
    dispose() {
      terminal.dispose();
    },
  };
}
