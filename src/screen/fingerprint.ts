/**
 * The identity of a request block across redraws, and the screen reader's
 * memory of the blocks it has reported (see reader.ts).
 *
 * A block is known by a fingerprint: its attributes and its body with every
 * run of whitespace made one space, so the same block redrawn, re-wrapped by
 * a program after a resize or boxed at another width is still the same
 * block. A malformed block is known by its reason and its first line. A
 * fingerprint is reported once; a later sighting is a redraw, unless it is
 * one copy more than were ever seen at once (committed into the scrollback
 * a second time, or printed again beside the first): then the block was
 * printed again, and that copy is reported as `request-again` (issue 25).
 * The last SEEN_MAX fingerprints are remembered with the most copies seen,
 * and a bridge saves the most recent SEEN_SAVED so a restarted one knows
 * them.
 */
import { createHash } from 'node:crypto';
import type { BridgeEvent } from '../protocol/request-parser.js';

export type RequestEvent = Extract<BridgeEvent, { type: 'request' }>;
export type MalformedEvent = Extract<BridgeEvent, { type: 'malformed' }>;
export type DroppedEvent = Extract<BridgeEvent, { type: 'attribute-dropped' }>;

/**
 * A block printed again: one copy more of a block reported before than
 * were ever seen at once. Never a request of its own: the bridge tells its
 * dedup (SPEC §2) and says so in an event.
 */
export interface AgainEvent {
  type: 'request-again';
  attributes: Record<string, string>;
  body: string;
  /** Which copy this is (2 for the second). */
  copy: number;
}

/** What the screen reader reports. */
export type ReaderEvent = BridgeEvent | AgainEvent;

/** How many fingerprints are remembered. */
export const SEEN_MAX = 4_096;
/** How many fingerprints `recent()` gives by default (what a state file keeps). */
export const SEEN_SAVED = 256;

const FINGERPRINT_HEX = 20;

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

/** The identity of a malformed block: its reason and first line. */
export function fingerprintMalformed(event: MalformedEvent): string {
  const first = event.firstLine.replace(/\s+/g, ' ').trim();
  return createHash('sha1')
    .update(`m\n${event.reason}\n${first}`, 'utf8')
    .digest('hex')
    .slice(0, FINGERPRINT_HEX);
}

/** The fingerprints reported or seen, the last SEEN_MAX of them. */
export interface SeenPrints {
  has(print: string): boolean;
  /** The most copies of the block seen at once (0: never seen). */
  copies(print: string): number;
  /**
   * Note a sighting of the block's `copy`-th copy (default 1; it makes the
   * fingerprint the most recent and raises its copies to `copy`). True when
   * the fingerprint was known already.
   */
  remember(print: string, copy?: number): boolean;
  /** The most recent `limit` fingerprints, most recent last. */
  recent(limit?: number): string[];
}

export function createSeenPrints(initial: readonly string[] = []): SeenPrints {
  // Insertion order is recency: a sighting moves a fingerprint to the end.
  // The value is the most copies seen at once.
  const prints = new Map<string, number>();
  for (const print of initial) prints.set(print, 1);
  return {
    has: (print) => prints.has(print),
    copies: (print) => prints.get(print) ?? 0,
    remember(print, copy = 1) {
      const before = prints.get(print);
      prints.delete(print);
      prints.set(print, Math.max(before ?? 0, copy));
      const known = before !== undefined;
      if (prints.size > SEEN_MAX) {
        const oldest = prints.keys().next().value;
        if (oldest !== undefined) prints.delete(oldest);
      }
      return known;
    },
    recent(limit = SEEN_SAVED) {
      return [...prints.keys()].slice(-limit);
    },
  };
}

/**
 * Copies of each request block counted in text read once, in order (the
 * committed rows, a capture), bounded like the fingerprints.
 */
export interface CopyCounts {
  /** One more copy of `print`; how many there are now. */
  add(print: string): number;
  /** How many copies of `print` were counted. */
  get(print: string): number;
  clear(): void;
}

export function createCopyCounts(): CopyCounts {
  const counts = new Map<string, number>();
  return {
    add(print) {
      const count = (counts.get(print) ?? 0) + 1;
      counts.delete(print);
      counts.set(print, count);
      if (counts.size > SEEN_MAX) {
        const oldest = counts.keys().next().value;
        if (oldest !== undefined) counts.delete(oldest);
      }
      return count;
    },
    get: (print) => counts.get(print) ?? 0,
    clear: () => counts.clear(),
  };
}

/**
 * Counts that take every block as its only copy: for text whose copies are
 * not the program's to count. tmux keeps a copy of the screen in its
 * history each time a program clears it (`ESC [2J`), so a capture of a pane
 * that repaints holds a block as often as it was repainted.
 */
export function createSingleCounts(): CopyCounts {
  const counts = createCopyCounts();
  return {
    add(print) {
      if (counts.get(print) === 0) counts.add(print);
      return 1;
    },
    get: (print) => counts.get(print),
    clear: () => counts.clear(),
  };
}

/**
 * Of a parser's events over text read once, in order: those of blocks not
 * seen before (`request` and `malformed`), each preceded by its
 * `attribute-dropped` warnings, and a `request-again` for a request's copy
 * beyond the most ever seen at once (`counts` counts the copies in this
 * text). Every block is remembered in `seen`.
 */
export function firstSightings(
  events: readonly BridgeEvent[],
  seen: SeenPrints,
  counts: CopyCounts = createCopyCounts(),
): ReaderEvent[] {
  const out: ReaderEvent[] = [];
  const report = (
    event: RequestEvent | MalformedEvent,
    dropped: DroppedEvent[],
    print: string,
  ): void => {
    if (event.type === 'malformed') {
      if (!seen.remember(print)) out.push(...dropped, event);
      return;
    }
    const copy = counts.add(print);
    const most = seen.copies(print);
    if (most === 0) {
      seen.remember(print);
      out.push(...dropped, event);
    } else if (copy > most) {
      seen.remember(print, copy);
      out.push(...dropped, againEvent(event, copy));
    } else seen.remember(print);
  };
  let dropped: DroppedEvent[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'attribute-dropped':
        dropped.push(event);
        break;
      case 'request':
        report(
          event,
          dropped,
          fingerprintRequest(event.attributes, event.body),
        );
        dropped = [];
        break;
      case 'malformed':
        report(event, dropped, fingerprintMalformed(event));
        dropped = [];
        break;
      default: {
        const never: never = event;
        throw new Error(`unexpected parser event ${JSON.stringify(never)}`);
      }
    }
  }
  return out;
}

/** The `request-again` of a request's `copy`-th copy. */
export function againEvent(event: RequestEvent, copy: number): AgainEvent {
  return {
    type: 'request-again',
    attributes: event.attributes,
    body: event.body,
    copy,
  };
}
