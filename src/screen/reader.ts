/**
 * Reading a pane the way a person looking at it would (SPEC §2): the pane's
 * byte stream goes through a headless terminal of the pane's size, and
 * request blocks are looked for in the rendered lines, wrapped rows joined,
 * decoration removed (by the request parser's `cleanBody`).
 *
 * The rendered buffer is read in two layers:
 *
 * - **Committed** rows have scrolled off the top of the visible screen into
 *   scrollback. A program can no longer redraw them, so each is read once, in
 *   order: it is kept as text in `history` (the reader's own scrollback,
 *   `historyLines` logical lines, far cheaper than the emulator's cells) and
 *   streamed through one long-lived request parser. Malformed blocks are
 *   reported only from this layer, where they cannot be a redraw in progress.
 * - **Live** rows are the visible screen (plus the head of a wrapped line that
 *   starts just above it). They are re-read after output that could have
 *   completed a marker (a `>` in it), with a fresh parser that first gets the
 *   committed parser's open block (`retained()`), so a block that starts in
 *   scrollback and ends on screen is whole.
 *
 * Each block found is known by a fingerprint: its attributes and its body
 * with every run of whitespace made one space, so the same block redrawn,
 * re-wrapped by a program after a resize or boxed at another width is still
 * the same block. A fingerprint is reported once; every later sighting is a
 * redraw and is dropped silently. The fingerprints survive restarts through
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
 * redraw for a new size (`sizeHint`), it reads the pane's size first, so a
 * program's reprint after SIGWINCH is drawn at the size it was made for.
 *
 * Input is cut into pieces of at most PIECE_MAX_CHARS characters and
 * PIECE_MAX_LINE_FEEDS line feeds and the screen is looked at after each,
 * so a burst of output cannot scroll a block through the emulator's small
 * scrollback unseen.
 */
import { createHash } from 'node:crypto';
import {
  createBridgeParser,
  REQUEST_START,
  type BridgeEvent,
  type BridgeParser,
  type ParserOptions,
} from '../protocol/request-parser.js';
import { createScreen, type Screen, type TrackedRow } from './terminal.js';

type RequestEvent = Extract<BridgeEvent, { type: 'request' }>;
type MalformedEvent = Extract<BridgeEvent, { type: 'malformed' }>;
type DroppedEvent = Extract<BridgeEvent, { type: 'attribute-dropped' }>;

/**
 * How long a block drawn anywhere but right above the cursor must stay the
 * same before it is reported (a full-screen program may be mid-redraw).
 */
export const LIVE_STABLE_MS = 300;

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
   * before, each preceded by its `attribute-dropped` warnings.
   */
  write(text: string): Promise<BridgeEvent[]>;
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
  settle(): BridgeEvent[];
  /** True while a block waits for the program to finish drawing. */
  hasHeld(): boolean;
  /**
   * Look for blocks in lines rendered elsewhere (`capture-pane -J`), with the
   * same fingerprints, so a block seen there is not reported again here.
   */
  scanLines(lines: readonly string[]): BridgeEvent[];
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

/** Rows the emulator keeps above the screen; the rest lives in `history`. */
export const EMULATOR_SCROLLBACK_ROWS = 1_000;
export const DEFAULT_HISTORY_LINES = 10_000;
/** Largest piece drawn before the screen is looked at. */
export const PIECE_MAX_CHARS = 16_384;
export const PIECE_MAX_LINE_FEEDS = 256;
/** How many fingerprints are remembered. */
export const SEEN_MAX = 4_096;
/** How many fingerprints `seen()` gives by default (what a state file keeps). */
export const SEEN_SAVED = 256;

const FINGERPRINT_HEX = 20;
// Enough of the previous output to finish a split `ESC [ 999 ; 999 H`.
const HINT_CARRY_CHARS = 16;
// ED3 (erase scrollback) or RIS (full reset).
// eslint-disable-next-line no-control-regex
const CLEARS_SCROLLBACK = /\x1b\[3J|\x1bc/;
// What programs send when they redraw for a new size: ED3, RIS, entering the
// alternate screen; on the alternate screen also ED2.
// eslint-disable-next-line no-control-regex
const REDRAW_ANY = /\x1b\[3J|\x1bc|\x1b\[\?(?:1049|1047|47)h/g;
// eslint-disable-next-line no-control-regex
const REDRAW_ALTERNATE = /\x1b\[3J|\x1bc|\x1b\[\?(?:1049|1047|47)h|\x1b\[2J/g;
// A cursor position (CUP/HVP) with a row and a column.
// eslint-disable-next-line no-control-regex
const CURSOR_POSITION = /\x1b\[(\d+);(\d+)[Hf]/g;
const MARKER_TEXT = REQUEST_START;

interface LiveLine {
  text: string;
  /** Last row of the logical line. */
  lastRow: number;
}

/** The identity of a block across redraws (see the module comment). */
export function fingerprintRequest(
  attributes: Record<string, string>,
  body: string,
): string {
  const attrs = Object.keys(attributes)
    .sort()
    .map((key) => `${key}=${attributes[key] ?? ''}`)
    .join(' ');
  const text = body.replace(/\s+/g, ' ').trim();
  return createHash('sha1')
    .update(`r\n${attrs}\n${text}`, 'utf8')
    .digest('hex')
    .slice(0, FINGERPRINT_HEX);
}

function fingerprintMalformed(event: MalformedEvent): string {
  const first = event.firstLine.replace(/\s+/g, ' ').trim();
  return createHash('sha1')
    .update(`m\n${event.reason}\n${first}`, 'utf8')
    .digest('hex')
    .slice(0, FINGERPRINT_HEX);
}

/** Cut text into pieces small enough to look at the screen between them. */
export function splitPieces(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + PIECE_MAX_CHARS, text.length);
    let feeds = 0;
    let at = text.indexOf('\n', start);
    while (at >= 0 && at < end) {
      feeds += 1;
      if (feeds === PIECE_MAX_LINE_FEEDS) {
        end = at + 1;
        break;
      }
      at = text.indexOf('\n', at + 1);
    }
    // Never split a surrogate pair.
    if (end < text.length && end > start + 1) {
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    }
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

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
  const history = createHistory(options.historyLines ?? DEFAULT_HISTORY_LINES);
  // Insertion order is recency: a sighting moves a fingerprint to the end.
  const seenPrints = new Map<string, true>();
  for (const print of options.seen ?? []) seenPrints.set(print, true);

  let committed: BridgeParser = createBridgeParser(parserOptions);
  let committedOpen = false;
  // The last committed row of the normal buffer, followed through scrolling.
  let anchor: TrackedRow | undefined;
  // Held blocks: fingerprint → when it was first seen as it is now.
  let held = new Map<string, number>();
  const now = options.now ?? Date.now;
  let lastBuffer = screen.buffer;
  let forceLive = false;
  let silent = false;
  // Since the last resize, until output settles: frames drawn for the old
  // size may still arrive and come out garbled, so a block must be seen twice.
  let resized = false;
  let hintCarry = '';

  function remember(print: string): boolean {
    const known = seenPrints.delete(print);
    seenPrints.set(print, true);
    if (seenPrints.size > SEEN_MAX) {
      const oldest = seenPrints.keys().next().value;
      if (oldest !== undefined) seenPrints.delete(oldest);
    }
    return known;
  }

  function report(
    out: BridgeEvent[],
    event: RequestEvent | MalformedEvent,
    dropped: DroppedEvent[],
    print: string,
  ): void {
    if (remember(print)) return;
    if (!silent) out.push(...dropped, event);
  }

  /** Feeds committed-layer parser events into `out`. */
  function takeCommitted(out: BridgeEvent[], events: BridgeEvent[]): void {
    let dropped: DroppedEvent[] = [];
    for (const event of events) {
      switch (event.type) {
        case 'attribute-dropped':
          dropped.push(event);
          break;
        case 'request':
          report(
            out,
            event,
            dropped,
            fingerprintRequest(event.attributes, event.body),
          );
          dropped = [];
          break;
        case 'malformed':
          report(out, event, dropped, fingerprintMalformed(event));
          dropped = [];
          break;
        default: {
          const never: never = event;
          throw new Error(`unexpected parser event ${JSON.stringify(never)}`);
        }
      }
    }
  }

  function resetCommitted(): void {
    committed = createBridgeParser(parserOptions);
    committedOpen = false;
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

  function commitLine(out: BridgeEvent[], line: string): void {
    history.push(line);
    const hasMarker = line.includes(MARKER_TEXT);
    if (!committedOpen && !hasMarker) return;
    const events = committed.push(`${line}\n`);
    if (hasMarker || events.length > 0)
      committedOpen = committed.retained() !== '';
    if (events.length > 0) takeCommitted(out, events);
  }

  /** Read rows that left the screen since the last look, once each. */
  function commit(out: BridgeEvent[]): void {
    if (screen.buffer !== 'normal') return;
    const from = committedEnd();
    const limit = logicalStart(screen.baseY, from);
    if (limit <= from) return;
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
  }

  function liveLines(): LiveLine[] {
    const start = screen.buffer === 'normal' ? committedEnd() : 0;
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
   * Re-read the screen. A new block is reported when the cursor is right
   * after its end; otherwise once it has stayed the same for LIVE_STABLE_MS
   * with the cursor past its end, or on any such sighting when `settle`
   * (output has stopped); until then it is held.
   */
  function scanLive(out: BridgeEvent[], settle: boolean): void {
    const lines = liveLines();
    const prefix =
      screen.buffer === 'normal' && committedOpen ? committed.retained() : '';
    let first = 0;
    if (prefix === '') {
      first = lines.findIndex((line) => line.text.includes(MARKER_TEXT));
      if (first < 0) {
        held = new Map();
        return;
      }
    }
    const parser = createBridgeParser(parserOptions);
    if (prefix !== '') parser.push(prefix);
    const cursor = screen.cursorRow;
    const nowMs = now();
    const nextHeld = new Map<string, number>();
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
          const since = held.get(print);
          // Written in order: the cursor is on the end marker's row or the next.
          const streamed = line.lastRow <= cursor && cursor - line.lastRow <= 1;
          const stable = since !== undefined && nowMs - since >= LIVE_STABLE_MS;
          if (seenPrints.has(print)) remember(print);
          else if (
            (streamed && !resized) ||
            (stable && (settle || line.lastRow <= cursor))
          )
            report(out, event, dropped, print);
          else nextHeld.set(print, since ?? nowMs);
        }
        // Malformed blocks on screen may be a redraw in progress: they are
        // reported when their rows are committed.
        dropped = [];
      }
    }
    held = nextHeld;
  }

  function afterPiece(out: BridgeEvent[], piece: string): void {
    // A program that clears the scrollback (ED3) or resets the terminal is
    // about to reprint what it wants kept; the old copy goes.
    if (CLEARS_SCROLLBACK.test(piece)) history.clear();
    if (screen.buffer !== lastBuffer) {
      lastBuffer = screen.buffer;
      held = new Map<string, number>();
      forceLive = true;
    }
    commit(out);
    if (forceLive || held.size > 0 || piece.includes('>')) {
      forceLive = false;
      scanLive(out, false);
    }
  }

  function write(text: string): Promise<BridgeEvent[]> {
    hintCarry = (hintCarry + text).slice(-HINT_CARRY_CHARS);
    const out: BridgeEvent[] = [];
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
        scanLive([], true);
      } finally {
        silent = false;
      }
    },
    sizeHint(text) {
      // The end of the previous output joins in, so a sequence split
      // between two writes is still seen (it then counts from index 0); one
      // that ends inside that carry was written already and does not count.
      const joined = hintCarry + text;
      const fresh = (match: RegExpExecArray) =>
        match.index + match[0].length > hintCarry.length;
      const redraw =
        screen.buffer === 'alternate' ? REDRAW_ALTERNATE : REDRAW_ANY;
      redraw.lastIndex = 0;
      let at = -1;
      for (
        let match = redraw.exec(joined);
        match !== null;
        match = redraw.exec(joined)
      ) {
        if (fresh(match)) {
          at = match.index;
          break;
        }
      }
      CURSOR_POSITION.lastIndex = 0;
      for (
        let match = CURSOR_POSITION.exec(joined);
        match !== null && (at < 0 || match.index < at);
        match = CURSOR_POSITION.exec(joined)
      ) {
        if (
          fresh(match) &&
          (Number(match[1]) > screen.rows || Number(match[2]) > screen.cols)
        ) {
          at = match.index;
          break;
        }
      }
      return at < 0 ? -1 : Math.max(0, at - hintCarry.length);
    },
    resize(cols, rows) {
      if (cols === screen.cols && rows === screen.rows) return;
      screen.resize(cols, rows);
      held = new Map();
      forceLive = true;
      resized = true;
    },
    settle() {
      const out: BridgeEvent[] = [];
      if (held.size > 0) scanLive(out, true);
      resized = false;
      return out;
    },
    hasHeld: () => held.size > 0,
    scanLines(lines) {
      const out: BridgeEvent[] = [];
      const parser = createBridgeParser(parserOptions);
      const events: BridgeEvent[] = [];
      for (const line of lines) events.push(...parser.push(`${line}\n`));
      events.push(...parser.flush());
      takeCommitted(out, events);
      return out;
    },
    recentLines(count) {
      if (count <= 0) return [];
      const live = liveLines().map((line) => line.text);
      while (live.length > 0 && live[live.length - 1] === '') live.pop();
      if (live.length >= count || screen.buffer !== 'normal')
        return live.slice(-count);
      return [...history.tail(count - live.length), ...live];
    },
    visibleText: () => screen.visibleText(),
    seen(limit = SEEN_SAVED) {
      return [...seenPrints.keys()].slice(-limit);
    },
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
      anchor?.dispose();
      screen.dispose();
    },
  };
}
