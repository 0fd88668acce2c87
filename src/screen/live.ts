/**
 * The live layer of the screen reader (see reader.ts): the visible screen,
 * plus the head of a wrapped line that starts just above it, the rows a
 * program can still redraw. They are re-read after output that could have
 * completed a marker, with a fresh parser that first gets the committed
 * layer's open block, so a block that starts in scrollback and ends on
 * screen is whole.
 *
 * A program that redraws by writing over old rows can be caught half way:
 * its new start marker above, its old end marker still below. And a
 * full-screen program may show a block before its body is drawn (Codex
 * reveals a message line by line with the end marker already below). So a
 * block is reported at once only when the cursor is right after its end
 * (the program wrote it in order, as a stream); any other block is held
 * until it has stayed the same for LIVE_STABLE_MS, on a later scan or when
 * output settles. Right after a resize a block must be seen twice, since
 * frames drawn for the old size come out garbled at the new one.
 *
 * A block already reported is a redraw while there are no more copies of it
 * (here and in the committed rows) than were ever seen at once; one copy
 * more was printed again and is reported as `request-again`, under the same
 * rules as a new block.
 */
import {
  createBridgeParser,
  type OpenBlockInfo,
  type ParserOptions,
} from '../protocol/request-parser.js';
import { REQUEST_START } from '../protocol/request-markers.js';
import type { CommittedLayer } from './committed.js';
import {
  againEvent,
  fingerprintMalformed,
  fingerprintRequest,
  type DroppedEvent,
  type ReaderEvent,
  type SeenPrints,
} from './fingerprint.js';
import type { Screen } from './terminal.js';

/**
 * How long a block drawn anywhere but right above the cursor must stay the
 * same before it is reported (a full-screen program may be mid-redraw).
 */
export const LIVE_STABLE_MS = 300;

export interface LiveLayerOptions {
  screen: Screen;
  committed: CommittedLayer;
  parserOptions: ParserOptions;
  /** Blocks already reported: found again, they are not reported. */
  seen: SeenPrints;
  /** The clock (ms). */
  now: () => number;
}

/** A logical line of the live rows: wrapped rows joined. */
export interface LiveLine {
  text: string;
  /** Last row of the logical line. */
  lastRow: number;
}

export interface LiveLayer {
  /** The logical lines not yet committed, oldest first. */
  lines(): LiveLine[];
  /**
   * Re-read the screen; returns the events of blocks to report now, each
   * preceded by its `attribute-dropped` warnings. `settle`: output has
   * stopped, so a held block still the same is reported wherever it is.
   * `resized`: the pane changed size since output last settled.
   */
  scan(options: { settle: boolean; resized: boolean }): ReaderEvent[];
  /** Forget the held blocks (the screen was switched or resized). */
  clearHeld(): void;
  /** True while a block waits for the program to finish drawing. */
  hasHeld(): boolean;
  /**
   * True when the last scan ended inside a block: later output may take it
   * past its limits without a `>` of its own.
   */
  hasOpen(): boolean;
  /** The block the last scan ended inside (from scrollback or screen). */
  openBlock(): OpenBlockInfo | undefined;
}

const MARKER_TEXT = REQUEST_START;

export function createLiveLayer(options: LiveLayerOptions): LiveLayer {
  const { screen, committed, parserOptions, seen, now } = options;
  // Held blocks: fingerprint → when it was first seen as it is now.
  let held = new Map<string, number>();
  let open = false;
  let openInfo: OpenBlockInfo | undefined;

  function liveLines(): LiveLine[] {
    const start = screen.buffer === 'normal' ? committed.end() : 0;
    const lines: LiveLine[] = [];
    let y = start - 1;
    for (const row of screen.rowRange(start, screen.length)) {
      y += 1;
      const last = lines[lines.length - 1];
      if (row.wrapped && last !== undefined) {
        last.text += row.text;
        last.lastRow = y;
      } else lines.push({ text: row.text, lastRow: y });
    }
    return lines;
  }

  /**
   * A new block is reported when the cursor is right after its end;
   * otherwise once it has stayed the same for LIVE_STABLE_MS with the
   * cursor past its end, or on any such sighting when `settle` (output has
   * stopped); until then it is held.
   */
  function scan(settle: boolean, resized: boolean): ReaderEvent[] {
    const out: ReaderEvent[] = [];
    const lines = liveLines();
    const prefix = screen.buffer === 'normal' ? committed.openText() : '';
    let first = 0;
    if (prefix === '') {
      first = lines.findIndex((line) => line.text.includes(MARKER_TEXT));
      if (first < 0) {
        held = new Map();
        open = false;
        openInfo = undefined;
        return out;
      }
    }
    const parser = createBridgeParser(parserOptions);
    if (prefix !== '') parser.push(prefix);
    const cursor = screen.cursorRow;
    const nowMs = now();
    const nextHeld = new Map<string, number>();
    const copies = new Map<string, number>();
    let dropped: DroppedEvent[] = [];
    for (let i = first; i < lines.length; i += 1) {
      const line = lines[i];
      if (line === undefined) break;
      for (const event of parser.push(`${line.text}\n`)) {
        if (event.type === 'attribute-dropped') {
          dropped.push(event);
          continue;
        }
        if (event.type === 'request') {
          const print = fingerprintRequest(event.attributes, event.body);
          // Which copy this is, counting those committed (issue 25: one
          // copy more than were ever seen at once was printed again).
          const copy = (copies.get(print) ?? 0) + 1;
          copies.set(print, copy);
          const total =
            copy + (screen.buffer === 'normal' ? committed.copies(print) : 0);
          const most = seen.copies(print);
          const key = `${print}#${String(total)}`;
          const since = held.get(key);
          // Written in order: the cursor is on the end marker's row or the next.
          const streamed = line.lastRow <= cursor && cursor - line.lastRow <= 1;
          const stable = since !== undefined && nowMs - since >= LIVE_STABLE_MS;
          if (most > 0 && total <= most) seen.remember(print);
          else if (
            (streamed && !resized) ||
            (stable && (settle || line.lastRow <= cursor))
          ) {
            if (most === 0) {
              seen.remember(print);
              out.push(...dropped, event);
            } else {
              seen.remember(print, total);
              out.push(...dropped, againEvent(event, total));
            }
          } else nextHeld.set(key, since ?? nowMs);
        }
        // A block too long to be a request whose end is still on screen:
        // reported once it has stayed the same and output settled (issue
        // 25: a program that then waits never scrolls it into the committed
        // rows, and its request vanished unreported). A block restarted by
        // a new start marker may be a redraw in progress: it is reported
        // when its rows are committed.
        if (event.type === 'malformed' && event.reason !== 'restarted') {
          const print = fingerprintMalformed(event);
          const since = held.get(print);
          const stable = since !== undefined && nowMs - since >= LIVE_STABLE_MS;
          if (seen.has(print)) seen.remember(print);
          else if (stable && settle) {
            seen.remember(print);
            out.push(...dropped, event);
          } else nextHeld.set(print, since ?? nowMs);
        }
        dropped = [];
      }
    }
    held = nextHeld;
    open = parser.retained() !== '';
    openInfo = parser.openBlock();
    return out;
  }

  return {
    lines: liveLines,
    scan: ({ settle, resized }) => scan(settle, resized),
    clearHeld() {
      held = new Map();
    },
    hasHeld: () => held.size > 0,
    hasOpen: () => open,
    openBlock: () => openInfo,
  };
}
