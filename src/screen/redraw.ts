/**
 * The sequences a program sends when it redraws everything, as the screen
 * reader needs to know them (see reader.ts). Pure.
 *
 * After a resize (SIGWINCH) a program reprints for the new size, and that
 * reprint must be drawn at the size it was made for: `findSizeHint` tells
 * the reader's caller where in the output to check the pane's size first.
 * A program that clears the scrollback is about to reprint what it wants
 * kept, so the reader drops its old text copy (`clearsScrollback`).
 */

/**
 * How much of the previous output a caller keeps to pass as `carry`: enough
 * to finish a split `ESC [ 999 ; 999 H`.
 */
export const HINT_CARRY_CHARS = 16;

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

/** Whether `text` erases the scrollback (ED3) or resets the terminal (RIS). */
export function clearsScrollback(text: string): boolean {
  return CLEARS_SCROLLBACK.test(text);
}

/** What the terminal shows now, as far as a size hint depends on it. */
export interface HintScreen {
  buffer: 'normal' | 'alternate';
  cols: number;
  rows: number;
}

/**
 * Where in `text` the program may have started drawing for a new pane size,
 * or -1: a redraw sequence (erase scrollback, reset, entering the alternate
 * screen; on the alternate screen also clearing it), or a cursor position
 * outside the current size.
 *
 * `carry` is the end of the previous output (its last HINT_CARRY_CHARS
 * characters): it joins in, so a sequence split between two writes is still
 * seen (it then counts from index 0); one that ends inside the carry was
 * written already and does not count.
 */
export function findSizeHint(
  carry: string,
  text: string,
  screen: HintScreen,
): number {
  const joined = carry + text;
  const fresh = (match: RegExpExecArray) =>
    match.index + match[0].length > carry.length;
  const redraw = screen.buffer === 'alternate' ? REDRAW_ALTERNATE : REDRAW_ANY;
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
  return at < 0 ? -1 : Math.max(0, at - carry.length);
}
