/**
 * Cutting pane output into pieces for the screen reader (see reader.ts).
 * The reader looks at the screen after each piece, so a burst of output
 * cannot scroll a block through the emulator's small scrollback unseen.
 * Pure.
 */

/** Largest piece drawn before the screen is looked at. */
export const PIECE_MAX_CHARS = 16_384;
export const PIECE_MAX_LINE_FEEDS = 256;

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
