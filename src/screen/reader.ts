/**
 * Reading a pane the way a person looking at it would (SPEC §2): the pane's
 * byte stream goes through a headless terminal of the pane's size, and
 * request blocks are looked for in the rendered lines, wrapped rows joined,
 * decoration removed (by the request parser's `cleanBody`).
 *
 * The rendered buffer is read in two layers:
 *
 * - **Committed** rows (committed.ts) have scrolled off the top of the
 *   visible screen into scrollback. A program can no longer redraw them, so
 *   each is read once, in order: it is kept as text (the reader's own
 *   scrollback, `historyLines` logical lines, far cheaper than the
 *   emulator's cells) and streamed through one long-lived request parser.
 *   Malformed blocks are reported only from this layer, where they cannot be
 *   a redraw in progress.
 * - **Live** rows (live.ts) are the visible screen (plus the head of a
 *   wrapped line that starts just above it). They are re-read after output
 *   that could have completed a marker (a `>` in it), with a fresh parser
 *   that first gets the committed parser's open block (`retained()`), so a
 *   block that starts in scrollback and ends on screen is whole.
 *
 * Each block found is known by a fingerprint (fingerprint.ts): its
 * attributes and its body with every run of whitespace made one space, so
 * the same block redrawn, re-wrapped by a program after a resize or boxed at
 * another width is still the same block. A fingerprint is reported once;
 * a later sighting is a redraw and is dropped silently, unless it is one
 * copy more than were ever seen at once (a block committed into the
 * scrollback a second time, or printed again beside the first): that copy
 * is reported as `request-again`. The fingerprints survive restarts through
 * `seen()` and the `seen` option.
 *
 * A program that redraws by writing over old rows can be caught half way:
 * its new start marker above, its old end marker still below. And a
 * full-screen program may show a block before its body is drawn: Codex
 * 0.169 reveals a message line by line with its last line (the end marker)
 * already below, so for a moment the start and end markers stand with
 * nothing or half the body between them. A live block is therefore
 * reported at once only when the cursor is right after its end (the
 * program wrote it in order, as a stream); any other block is held until it
 * has stayed the same for LIVE_STABLE_MS (on a later read, or when output
 * settles: `settle()`; `hasHeld()` tells the caller to settle again).
 * After a resize, until output settles, a block must also be seen twice:
 * frames drawn for the old size may still arrive, and drawn at the new
 * size their rows wrap and overwrite each other.
 *
 * The caller keeps the reader at the pane's size. Where output may begin a
 * redraw for a new size (`sizeHint`, redraw.ts), it reads the pane's size
 * first, so a program's reprint after SIGWINCH is drawn at the size it was
 * made for.
 *
 * Input is cut into pieces (pieces.ts) of at most PIECE_MAX_CHARS characters
 * and PIECE_MAX_LINE_FEEDS line feeds and the screen is looked at after
 * each, so a burst of output cannot scroll a block through the emulator's
 * small scrollback unseen.
 */
import {
  createBridgeParser,
  type BridgeEvent,
  type OpenBlockInfo,
  type ParserOptions,
} from '../protocol/request-parser.js';
import { createCommittedLayer } from './committed.js';
import {
  createSeenPrints,
  createSingleCounts,
  firstSightings,
  type ReaderEvent,
} from './fingerprint.js';
import { createLiveLayer } from './live.js';
import { splitPieces } from './pieces.js';
import { clearsScrollback, findSizeHint, HINT_CARRY_CHARS } from './redraw.js';
import { createScreen, type Screen } from './terminal.js';

export interface ScreenReaderOptions extends ParserOptions {
  /** The clock (ms), for tests; default Date.now. */
  now?: () => number;
  cols: number;
  rows: number;
  /** Logical lines kept after they leave the emulator (default 10,000). */
  historyLines?: number;
  /** Fingerprints of blocks already reported (from a saved state). */
  seen?: readonly string[];
}

export interface ScreenReader {
  /**
   * Feed pane output. Resolves, once the emulator has drawn it, to the
   * events it completed: `request` and `malformed` for blocks not reported
   * before and `request-again` for a block printed again, each preceded by
   * its `attribute-dropped` warnings.
   */
  write(text: string): Promise<ReaderEvent[]>;
  /**
   * Feed output that was read before (a restarted bridge rebuilding its
   * screen): blocks found are remembered as seen and never reported.
   */
  replay(text: string): Promise<void>;
  /** The pane changed size; later output is drawn at the new size. */
  resize(cols: number, rows: number): void;
  /**
   * Where in `text` the program may have started drawing for a new pane
   * size, or -1: a sequence programs send when they redraw after a resize
   * (erase scrollback, reset, entering the alternate screen, clearing it),
   * or a cursor position outside the current size. The caller checks the
   * pane's size there and resizes before feeding the rest.
   */
  sizeHint(text: string): number;
  /** Output has stopped for a while: report held blocks still on screen. */
  settle(): ReaderEvent[];
  /** True while a block waits for the program to finish drawing. */
  hasHeld(): boolean;
  /**
   * A block whose start marker is shown (on screen, or in the rows above)
   * and whose end marker is not, as the screen was last read; undefined when
   * none is. The bridge shows it to a person as an incomplete request once
   * it has waited long enough (bridge/intake/incomplete-watch.ts).
   */
  openBlock(): OpenBlockInfo | undefined;
  /**
   * Look for blocks in lines rendered elsewhere (`capture-pane -J`), with the
   * same fingerprints, so a block seen there is not reported again here.
   */
  scanLines(lines: readonly string[]): ReaderEvent[];
  /** The last `count` logical lines, scrollback included, oldest first. */
  recentLines(count: number): string[];
  /** The visible screen, rows right-trimmed (like `capture-pane -p`). */
  visibleText(): string;
  /** Fingerprints reported or seen, most recent last (at most `limit`). */
  seen(limit?: number): string[];
  readonly cols: number;
  readonly rows: number;
  /** Which screen the program shows: full-screen programs use `alternate`. */
  readonly buffer: 'normal' | 'alternate';
  dispose(): void;
}

/**
 * Rows the emulator keeps above the screen; older lines live on as the
 * committed layer's text.
 */
export const EMULATOR_SCROLLBACK_ROWS = 1_000;
export const DEFAULT_HISTORY_LINES = 10_000;

export function createScreenReader(options: ScreenReaderOptions): ScreenReader {
  const parserOptions: ParserOptions = {
    ...(options.maxBlockLines === undefined
      ? {}
      : { maxBlockLines: options.maxBlockLines }),
    ...(options.maxBlockBytes === undefined
      ? {}
      : { maxBlockBytes: options.maxBlockBytes }),
  };
  const screen: Screen = createScreen({
    cols: options.cols,
    rows: options.rows,
    scrollback: EMULATOR_SCROLLBACK_ROWS,
  });
  const seenPrints = createSeenPrints(options.seen);
  const committed = createCommittedLayer({
    screen,
    parserOptions,
    historyLines: options.historyLines ?? DEFAULT_HISTORY_LINES,
    seen: seenPrints,
  });
  const live = createLiveLayer({
    screen,
    committed,
    parserOptions,
    seen: seenPrints,
    now: options.now ?? Date.now,
  });

  let lastBuffer = screen.buffer;
  let forceLive = false;
  let silent = false;
  // Since the last resize, until output settles: frames drawn for the old
  // size may still arrive and come out garbled, so a block must be seen twice.
  let resized = false;
  let hintCarry = '';

  /** Blocks found are remembered either way; reported unless replaying. */
  function emit(out: ReaderEvent[], events: ReaderEvent[]): void {
    if (!silent) out.push(...events);
  }

  function afterPiece(out: ReaderEvent[], piece: string): void {
    // A program that clears the scrollback (ED3) or resets the terminal is
    // about to reprint what it wants kept; the old copy goes.
    if (clearsScrollback(piece)) committed.clearHistory();
    if (screen.buffer !== lastBuffer) {
      lastBuffer = screen.buffer;
      live.clearHeld();
      forceLive = true;
    }
    emit(out, committed.commit());
    // A block still open (above or on screen) may run past its limits in
    // output with no `>` (issue 25: a start marker, then 510 plain lines).
    if (
      forceLive ||
      live.hasHeld() ||
      live.hasOpen() ||
      committed.openText() !== '' ||
      piece.includes('>')
    ) {
      forceLive = false;
      emit(out, live.scan({ settle: false, resized }));
    }
  }

  function write(text: string): Promise<ReaderEvent[]> {
    hintCarry = (hintCarry + text).slice(-HINT_CARRY_CHARS);
    const out: ReaderEvent[] = [];
    const pieces = splitPieces(text);
    if (pieces.length === 0) return Promise.resolve(out);
    return new Promise((resolve, reject) => {
      // A throw must not escape into the emulator's write loop: keep the
      // first and reject with it once the last piece is drawn.
      let failure: Error | undefined;
      pieces.forEach((piece, index) => {
        screen.feed(piece, () => {
          if (failure === undefined) {
            try {
              afterPiece(out, piece);
            } catch (error) {
              failure =
                error instanceof Error
                  ? error
                  : new Error('screen reader failed', { cause: error });
            }
          }
          if (index === pieces.length - 1) {
            if (failure === undefined) resolve(out);
            else reject(failure);
          }
        });
      });
    });
  }

  return {
    write,
    async replay(text) {
      silent = true;
      try {
        await write(text);
        live.scan({ settle: true, resized });
      } finally {
        silent = false;
      }
    },
    sizeHint: (text) => findSizeHint(hintCarry, text, screen),
    resize(cols, rows) {
      if (cols === screen.cols && rows === screen.rows) return;
      screen.resize(cols, rows);
      live.clearHeld();
      forceLive = true;
      resized = true;
    },
    settle() {
      const out: ReaderEvent[] = [];
      if (live.hasHeld()) emit(out, live.scan({ settle: true, resized }));
      resized = false;
      return out;
    },
    hasHeld: () => live.hasHeld(),
    openBlock: () => live.openBlock(),
    scanLines(lines) {
      const out: ReaderEvent[] = [];
      const parser = createBridgeParser(parserOptions);
      const events: BridgeEvent[] = [];
      for (const line of lines) events.push(...parser.push(`${line}\n`));
      events.push(...parser.flush());
      // A capture's copies are tmux's, not the program's (createSingleCounts).
      emit(out, firstSightings(events, seenPrints, createSingleCounts()));
      return out;
    },
    recentLines(count) {
      if (count <= 0) return [];
      const shown = live.lines().map((line) => line.text);
      while (shown.length > 0 && shown[shown.length - 1] === '') shown.pop();
      if (shown.length >= count || screen.buffer !== 'normal')
        return shown.slice(-count);
      return [...committed.history(count - shown.length), ...shown];
    },
    visibleText: () => screen.visibleText(),
    seen: (limit) => seenPrints.recent(limit),
    get cols() {
      return screen.cols;
    },
    get rows() {
      return screen.rows;
    },
    get buffer() {
      return screen.buffer;
    },
    dispose() {
      committed.dispose();
      screen.dispose();
    },
  };
}
