/**
 * How the request parser measures and cuts text to keep its memory bounded
 * (see request-parser.ts). Pure.
 *
 * The parser's caps count UTF-8 bytes, but it sees a stream in chunks that
 * may split a surrogate pair. So it measures by a weight per UTF-16 code
 * unit, counting each half of a pair as 3: an upper bound on the UTF-8 size
 * that adds up across any split, so a limit never depends on how the stream
 * was chunked.
 */

/** UTF-8 size of a code unit, counting each half of a surrogate pair as 3. */
function unitWeight(code: number): number {
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return 3;
}

/**
 * An upper bound on the UTF-8 size of `s` that adds up across any split of
 * `s`, so that limits based on it do not depend on how the stream was
 * chunked.
 */
export function weightOf(s: string): number {
  let weight = 0;
  for (let i = 0; i < s.length; i += 1) weight += unitWeight(s.charCodeAt(i));
  return weight;
}

/** The longest suffix of `s` whose weight is at most `cap`. */
export function tailByWeight(s: string, cap: number): string {
  let weight = 0;
  let i = s.length;
  while (i > 0) {
    const w = unitWeight(s.charCodeAt(i - 1));
    if (weight + w > cap) break;
    weight += w;
    i -= 1;
  }
  return s.slice(i);
}

/** The exact UTF-8 size of `s` (what a block's body limit counts). */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** `s` cut to `max` characters, with `…` when it was cut. */
export function shorten(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
