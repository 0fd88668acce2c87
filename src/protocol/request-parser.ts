/**
 * Streaming parser for request blocks (SPEC §2):
 *
 *   <<CONTROLLER_REQUEST id=q-17 type=question>>
 *   body lines
 *   <<CONTROLLER_REQUEST_END>>
 *
 * Pure: text chunks in, events out. Chunks may split a marker, an escape
 * sequence or a CRLF anywhere. The parser works on complete lines (ended by
 * `\n`); each line is rendered with `renderLine` before markers are looked
 * for, so colours, titles and `\r` overwrites do not hide a marker.
 *
 * Line rules, in the order they apply to one rendered line:
 * - In an open block, the first marker on the line decides: an end marker
 *   completes the block (text before it is the last body line); a start marker
 *   abandons it (`malformed`, reason `restarted`) and starts a new one. A line
 *   with neither is a body line.
 * - Outside a block, a start marker opens one; text after it is the first
 *   body line, and an end marker later on the same line completes it, so a
 *   whole block may sit on one line. Text around markers that is only
 *   whitespace or decoration (`│`, `●`, ...) is not a body line.
 * - Two deliberate restrictions keep `retained()` exact (see below): when one
 *   line holds several start markers with no end between them, only the last
 *   counts and the earlier ones vanish without an event; and after a block
 *   that started and ended on a line, a further start marker on that same line
 *   is honoured only if its block also ends on that line.
 *
 * Attribute warnings (`attribute-dropped`) are emitted when their block ends,
 * right before its `request` or `malformed` event, so that a block still open
 * has produced no event at all.
 *
 * Memory is bounded. A line longer than the line cap (2 × maxBlockBytes, at
 * least 1024, measured in UTF-8 bytes, counting a surrogate as 3) keeps only
 * its tail, and abandons an open block (`max-bytes`), because its text can no
 * longer be given back by `retained()`. The raw text of an open block,
 * escapes included, is capped the same way (`max-bytes`). So `retained()` is
 * at most 4 × max(maxBlockBytes, 512) bytes.
 *
 * `flush()` is for EOF: it completes the held partial line, so a final end
 * marker with no newline still completes its block. A block that is still
 * open after that stays open (no event): the stream may only have paused, and
 * its text stays in `retained()`.
 *
 * `openBlock()` describes a block still open (its start line, attributes,
 * how many body lines so far and the first of them, cleaned) without ending
 * it: the bridge decides, by time and by the agent's state, when an open
 * block has waited long enough to be shown to a person as incomplete
 * (bridge/intake/incomplete-watch.ts). It changes nothing, so a block whose end
 * marker comes later still completes as one `request`.
 */
import { cleanBody } from './clean-body.js';
import {
  parseRequestAttributes,
  type AttributeDroppedEvent,
} from './request-attributes.js';
import {
  DECORATION_ONLY,
  findStart,
  REQUEST_END,
  type StartMarker,
} from './request-markers.js';
import { renderLine } from './text.js';
import { shorten, tailByWeight, utf8Bytes, weightOf } from './text-limits.js';

export interface ParserOptions {
  /** Most body lines a block may have (default 500). */
  maxBlockLines?: number;
  /** Most UTF-8 bytes of rendered body text a block may have (default 65536). */
  maxBlockBytes?: number;
}

export type BridgeEvent =
  | { type: 'request'; attributes: Record<string, string>; body: string }
  | {
      type: 'malformed';
      reason: 'max-lines' | 'max-bytes' | 'restarted';
      /** The rendered start-marker line, from the marker on (cut to 200). */
      firstLine: string;
      /** Body lines collected before the block was abandoned. */
      lines: number;
      /** UTF-8 bytes of those lines joined with `\n`. */
      bytes: number;
    }
  | AttributeDroppedEvent;

/** A block whose end marker has not come (yet): see `openBlock()`. */
export interface OpenBlockInfo {
  /** The rendered start-marker line, from the marker on (cut to 200). */
  firstLine: string;
  attributes: Record<string, string>;
  /** Body lines read so far, up to the last one that is not blank. */
  lines: number;
  /** The first body lines, cleaned as a request's body is (at most `head`). */
  head: string[];
}

export interface BridgeParser {
  /** Feeds a chunk; returns the events it completed. */
  push(chunk: string): BridgeEvent[];
  /** EOF: completes the held partial line. */
  flush(): BridgeEvent[];
  /**
   * The raw text (as pushed) held and not yet turned into events: the open
   * block's lines plus the partial line. It is always a suffix of the stream,
   * and feeding it to a fresh parser followed by the rest of the stream gives
   * exactly the events this parser would still produce.
   */
  retained(): string;
  /**
   * The block still open after the complete lines pushed so far (a partial
   * line does not count), with at most `head` of its first body lines
   * (default OPEN_BLOCK_HEAD_LINES); undefined when none is open. Pure: the
   * block stays open.
   */
  openBlock(head?: number): OpenBlockInfo | undefined;
}

export const DEFAULT_MAX_BLOCK_LINES = 500;
export const DEFAULT_MAX_BLOCK_BYTES = 65_536;
/** Body lines `openBlock()` gives by default. */
export const OPEN_BLOCK_HEAD_LINES = 5;

const MIN_LINE_CAP_BYTES = 1024;
const FIRST_LINE_MAX_CHARS = 200;

interface OpenBlock {
  firstLine: string;
  attributes: Record<string, string>;
  dropped: AttributeDroppedEvent[];
  bodyLines: string[];
  bodyBytes: number;
  /** Raw complete lines of the block as pushed, starting with its start line. */
  raw: string[];
  rawWeight: number;
}

export function createBridgeParser(options: ParserOptions = {}): BridgeParser {
  const maxLines = options.maxBlockLines ?? DEFAULT_MAX_BLOCK_LINES;
  const maxBytes = options.maxBlockBytes ?? DEFAULT_MAX_BLOCK_BYTES;
  const lineCap = Math.max(2 * maxBytes, MIN_LINE_CAP_BYTES);

  let block: OpenBlock | undefined;
  // The partial line. `partial` may hold more than the line's logical tail
  // (up to twice the cap) so that appending stays cheap; `lineWeight` is the
  // weight of the whole line so far.
  let partial = '';
  let lineWeight = 0;

  const logicalPartial = (): string =>
    lineWeight > lineCap ? tailByWeight(partial, lineCap) : partial;

  const abandon = (
    events: BridgeEvent[],
    reason: 'max-lines' | 'max-bytes' | 'restarted',
  ): void => {
    if (block === undefined) return;
    events.push(...block.dropped, {
      type: 'malformed',
      reason,
      firstLine: block.firstLine,
      lines: block.bodyLines.length,
      bytes: block.bodyBytes,
    });
    block = undefined;
  };

  const complete = (events: BridgeEvent[]): void => {
    if (block === undefined) return;
    events.push(...block.dropped, {
      type: 'request',
      attributes: block.attributes,
      body: cleanBody(block.bodyLines),
    });
    block = undefined;
  };

  // Adds a body line to the open block; abandons the block when it breaks a
  // limit. Returns false when the block was abandoned.
  const addBodyLine = (events: BridgeEvent[], text: string): boolean => {
    if (block === undefined) return false;
    const bytes = utf8Bytes(text) + (block.bodyLines.length > 0 ? 1 : 0);
    block.bodyLines.push(text);
    block.bodyBytes += bytes;
    if (block.bodyLines.length > maxLines) {
      abandon(events, 'max-lines');
      return false;
    }
    if (block.bodyBytes > maxBytes) {
      abandon(events, 'max-bytes');
      return false;
    }
    return true;
  };

  const addFragment = (events: BridgeEvent[], text: string): boolean =>
    DECORATION_ONLY.test(text)
      ? block !== undefined
      : addBodyLine(events, text);

  const openBlock = (line: string, marker: StartMarker): void => {
    const { attributes, dropped } = parseRequestAttributes(
      marker.attributeText,
    );
    block = {
      firstLine: shorten(line.slice(marker.index).trim(), FIRST_LINE_MAX_CHARS),
      attributes,
      dropped,
      bodyLines: [],
      bodyBytes: 0,
      raw: [],
      rawWeight: 0,
    };
  };

  // Scans a line (from `pos`) while no block is open.
  const scanOutsideBlock = (
    events: BridgeEvent[],
    line: string,
    rawLine: string,
    from: number,
  ): void => {
    let pos = from;
    let completedOnThisLine = false;
    for (;;) {
      const marker = findStart(line, pos);
      if (marker === undefined) return;
      const end = line.indexOf(REQUEST_END, marker.after);
      const next = findStart(line, marker.after);
      if (end >= 0 && (next === undefined || end < next.index)) {
        // A whole block on this line.
        openBlock(line, marker);
        const first = line.slice(marker.after, end).trimStart();
        if (addFragment(events, first)) complete(events);
        completedOnThisLine = true;
        pos = end + REQUEST_END.length;
        continue;
      }
      if (next !== undefined) {
        // A later start on the same line supersedes this one.
        pos = next.index;
        continue;
      }
      // The block stays open past this line.
      if (completedOnThisLine) return;
      openBlock(line, marker);
      if (!addFragment(events, line.slice(marker.after).trimStart())) return;
      addRaw(events, rawLine);
      return;
    }
  };

  const addRaw = (events: BridgeEvent[], rawLine: string): void => {
    if (block === undefined) return;
    block.raw.push(rawLine);
    block.rawWeight += weightOf(rawLine);
    if (block.rawWeight > lineCap) abandon(events, 'max-bytes');
  };

  const processLine = (
    events: BridgeEvent[],
    rawLine: string,
    truncated: boolean,
  ): void => {
    if (truncated) abandon(events, 'max-bytes');
    const text = rawLine.endsWith('\n') ? rawLine.slice(0, -1) : rawLine;
    const line = renderLine(text);
    if (block === undefined) {
      scanOutsideBlock(events, line, rawLine, 0);
      return;
    }
    const end = line.indexOf(REQUEST_END);
    const start = findStart(line, 0);
    if (start !== undefined && (end < 0 || start.index < end)) {
      abandon(events, 'restarted');
      scanOutsideBlock(events, line, rawLine, start.index);
      return;
    }
    if (end >= 0) {
      if (addFragment(events, line.slice(0, end))) complete(events);
      scanOutsideBlock(events, line, rawLine, end + REQUEST_END.length);
      return;
    }
    if (addBodyLine(events, line)) addRaw(events, rawLine);
  };

  const appendPartial = (events: BridgeEvent[], text: string): void => {
    if (text === '') return;
    partial += text;
    lineWeight += weightOf(text);
    if (lineWeight > lineCap) {
      // The line no longer fits: an open block cannot be given back whole.
      abandon(events, 'max-bytes');
      if (partial.length > 2 * lineCap)
        partial = tailByWeight(partial, lineCap);
    }
  };

  const takeLine = (): { text: string; truncated: boolean } => {
    const result = { text: logicalPartial(), truncated: lineWeight > lineCap };
    partial = '';
    lineWeight = 0;
    return result;
  };

  return {
    push(chunk: string): BridgeEvent[] {
      const events: BridgeEvent[] = [];
      let pos = 0;
      for (;;) {
        const newline = chunk.indexOf('\n', pos);
        if (newline < 0) break;
        appendPartial(events, chunk.slice(pos, newline + 1));
        const { text, truncated } = takeLine();
        processLine(events, text, truncated);
        pos = newline + 1;
      }
      appendPartial(events, chunk.slice(pos));
      return events;
    },

    flush(): BridgeEvent[] {
      const events: BridgeEvent[] = [];
      if (lineWeight > 0) {
        const { text, truncated } = takeLine();
        processLine(events, text, truncated);
      }
      return events;
    },

    retained(): string {
      return (block?.raw.join('') ?? '') + logicalPartial();
    },

    openBlock(head = OPEN_BLOCK_HEAD_LINES): OpenBlockInfo | undefined {
      if (block === undefined) return undefined;
      const lines = block.bodyLines;
      const from = Math.max(
        0,
        lines.findIndex((line) => line.trim() !== ''),
      );
      const first = cleanBody(lines.slice(from, from + Math.max(0, head)));
      let last = lines.length;
      while (last > 0 && (lines[last - 1] ?? '').trim() === '') last -= 1;
      return {
        firstLine: block.firstLine,
        attributes: { ...block.attributes },
        lines: last,
        head: first === '' ? [] : first.split('\n'),
      };
    },
  };
}
