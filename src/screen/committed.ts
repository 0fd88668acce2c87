/**
 * The committed layer of the screen reader (see reader.ts): rows that have
 * scrolled off the top of the visible screen into scrollback. A program can
 * no longer redraw them, so each is read once, in order: it is kept as text
 * (the reader's own scrollback, `historyLines` logical lines, far cheaper
 * than the emulator's cells) and streamed through one long-lived request
 * parser. Malformed blocks are reported only from this layer, where they
 * cannot be a redraw in progress.
 *
 * A block still open at the last committed row is handed to the live layer
 * (`openText()`), so a block that starts in scrollback and ends on screen is
 * whole. The copies of each request committed are counted (`copies()`):
 * one copy more than were ever seen at once is a block printed again. The
 * count starts over when the scrollback is cleared (ED3, a reset), since a
 * program that clears it reprints what it wants kept. Only the normal buffer has scrollback; on the alternate screen
 * nothing is committed.
 */
import {
  createBridgeParser,
  type BridgeParser,
  type ParserOptions,
} from '../protocol/request-parser.js';
import { REQUEST_START } from '../protocol/request-markers.js';
import {
  createCopyCounts,
  firstSightings,
  type ReaderEvent,
  type SeenPrints,
} from './fingerprint.js';
import type { Screen, TrackedRow } from './terminal.js';

export interface CommittedLayerOptions {
  screen: Screen;
  parserOptions: ParserOptions;
  /** Logical lines of text kept. */
  historyLines: number;
  /** Blocks already reported: found again, they are not reported. */
  seen: SeenPrints;
}

export interface CommittedLayer {
  /**
   * Read the rows that left the screen since the last look, once each.
   * Returns the events of blocks not seen before and of blocks printed
   * again, each preceded by its `attribute-dropped` warnings.
   */
  commit(): ReaderEvent[];
  /** How many copies of a request (by fingerprint) the committed rows hold. */
  copies(print: string): number;
  /** First row of the normal buffer not yet committed. */
  end(): number;
  /** The raw text of a block still open in the committed rows, or ''. */
  openText(): string;
  /** The last `count` committed logical lines, oldest first. */
  history(count: number): string[];
  /** Drop the text kept (the program cleared the scrollback). */
  clearHistory(): void;
  dispose(): void;
}

const MARKER_TEXT = REQUEST_START;

/** A ring of the last `max` strings. */
function createHistory(max: number) {
  let lines: string[] = [];
  return {
    push(line: string): void {
      lines.push(line);
      // Trim in batches so a push stays O(1) amortised.
      if (lines.length > max + Math.max(64, max >> 3))
        lines = lines.slice(-max);
    },
    tail(count: number): string[] {
      return count <= 0 ? [] : lines.slice(-Math.min(count, max));
    },
    clear(): void {
      lines = [];
    },
  };
}

export function createCommittedLayer(
  options: CommittedLayerOptions,
): CommittedLayer {
  const { screen, parserOptions, seen } = options;
  const history = createHistory(options.historyLines);
  let committed: BridgeParser = createBridgeParser(parserOptions);
  let committedOpen = false;
  const counts = createCopyCounts();
  // The last committed row of the normal buffer, followed through scrolling.
  let anchor: TrackedRow | undefined;

  function resetCommitted(): void {
    committed = createBridgeParser(parserOptions);
    committedOpen = false;
    counts.clear();
  }

  /** First row not yet committed (normal buffer). */
  function committedEnd(): number {
    if (anchor === undefined) return 0;
    const line = anchor.line;
    if (line < 0) {
      // The anchor was trimmed away: the scrollback was cleared (ED3, as
      // programs do before reprinting everything) or overflowed. What was
      // open there is gone from the screen.
      anchor.dispose();
      anchor = undefined;
      resetCommitted();
      return 0;
    }
    return line + 1;
  }

  /** The first row of the logical line that row `y` belongs to. */
  function logicalStart(y: number, floor: number): number {
    let row = y;
    while (row > floor && screen.isWrapped(row)) row -= 1;
    return row;
  }

  function commitLine(out: ReaderEvent[], line: string): void {
    history.push(line);
    const hasMarker = line.includes(MARKER_TEXT);
    if (!committedOpen && !hasMarker) return;
    const events = committed.push(`${line}\n`);
    if (hasMarker || events.length > 0)
      committedOpen = committed.retained() !== '';
    if (events.length > 0) out.push(...firstSightings(events, seen, counts));
  }

  return {
    commit() {
      const out: ReaderEvent[] = [];
      if (screen.buffer !== 'normal') return out;
      const from = committedEnd();
      const limit = logicalStart(screen.baseY, from);
      if (limit <= from) return out;
      let current: string | undefined;
      for (const row of screen.rowRange(from, limit)) {
        if (row.wrapped && current !== undefined) current += row.text;
        else {
          if (current !== undefined) commitLine(out, current);
          current = row.text;
        }
      }
      if (current !== undefined) commitLine(out, current);
      anchor?.dispose();
      anchor = screen.trackRow(limit - 1);
      return out;
    },
    copies: (print) => counts.get(print),
    end: committedEnd,
    openText: () => (committedOpen ? committed.retained() : ''),
    history: (count) => history.tail(count),
    clearHistory() {
      history.clear();
      counts.clear();
    },
    dispose() {
      anchor?.dispose();
    },
  };
}
