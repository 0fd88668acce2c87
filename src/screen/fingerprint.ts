/**
 * The identity of a request block across redraws, and the screen reader's
 * memory of the blocks it has reported (see reader.ts).
 *
 * A block is known by a fingerprint: its attributes and its body with every
 * run of whitespace made one space, so the same block redrawn, re-wrapped by
 * a program after a resize or boxed at another width is still the same
 * block. A malformed block is known by its reason and its first line. A
 * fingerprint is reported once; every later sighting is a redraw. The last
 * SEEN_MAX are remembered, and a bridge saves the most recent SEEN_SAVED so
 * a restarted one knows them.
 */
import { createHash } from 'node:crypto';
import type { BridgeEvent } from '../protocol/request-parser.js';

export type RequestEvent = Extract<BridgeEvent, { type: 'request' }>;
export type MalformedEvent = Extract<BridgeEvent, { type: 'malformed' }>;
export type DroppedEvent = Extract<BridgeEvent, { type: 'attribute-dropped' }>;

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
  /**
   * Note a sighting (it makes the fingerprint the most recent). True when
   * the fingerprint was known already.
   */
  remember(print: string): boolean;
  /** The most recent `limit` fingerprints, most recent last. */
  recent(limit?: number): string[];
}

export function createSeenPrints(initial: readonly string[] = []): SeenPrints {
  // Insertion order is recency: a sighting moves a fingerprint to the end.
  const prints = new Map<string, true>();
  for (const print of initial) prints.set(print, true);
  return {
    has: (print) => prints.has(print),
    remember(print) {
      const known = prints.delete(print);
      prints.set(print, true);
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
 * Of a parser's events, those of blocks not seen before (`request` and
 * `malformed`), each preceded by its `attribute-dropped` warnings. Every
 * block is remembered in `seen`.
 */
export function firstSightings(
  events: readonly BridgeEvent[],
  seen: SeenPrints,
): BridgeEvent[] {
  const out: BridgeEvent[] = [];
  const report = (
    event: RequestEvent | MalformedEvent,
    dropped: DroppedEvent[],
    print: string,
  ): void => {
    if (!seen.remember(print)) out.push(...dropped, event);
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
