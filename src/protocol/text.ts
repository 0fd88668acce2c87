/**
 * Plain-text helpers for terminal output: removing escape sequences and
 * rendering one line the way a terminal would show it. Pure; no I/O.
 *
 * This is deliberately not a terminal emulator (that lives in
 * `screen/terminal.ts`). It understands one line of ordinary program output:
 * colours, titles, carriage-return progress lines and backspaces.
 */

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const LF = 0x0a;
const C1_DCS = 0x90;
const C1_SOS = 0x98;
const C1_CSI = 0x9b;
const C1_ST = 0x9c;
const C1_OSC = 0x9d;
const C1_PM = 0x9e;
const C1_APC = 0x9f;

/** One escape sequence found in a string: where it ends and what it was. */
interface EscapeSequence {
  /** Index just past the sequence. */
  end: number;
  /** CSI sequences carry their parameter text and final byte. */
  csi?: { params: string; final: string };
}

function isStringIntroducer(code: number): boolean {
  // ESC ] (OSC), ESC P (DCS), ESC X (SOS), ESC ^ (PM), ESC _ (APC)
  return (
    code === 0x5d ||
    code === 0x50 ||
    code === 0x58 ||
    code === 0x5e ||
    code === 0x5f
  );
}

function isC1StringIntroducer(code: number): boolean {
  return (
    code === C1_OSC ||
    code === C1_DCS ||
    code === C1_SOS ||
    code === C1_PM ||
    code === C1_APC
  );
}

/**
 * Reads the body of a CSI sequence starting at `i` (just after `ESC [` or
 * U+009B). Parameter and intermediate bytes (0x20-0x3F) are followed by a
 * final byte (0x40-0x7E). A byte that fits neither ends the sequence early
 * without being consumed, so a stray `ESC [` cannot swallow real text.
 */
function readCsi(s: string, i: number): EscapeSequence {
  let j = i;
  while (j < s.length) {
    const code = s.charCodeAt(j);
    if (code >= 0x20 && code <= 0x3f) {
      j += 1;
      continue;
    }
    if (code >= 0x40 && code <= 0x7e) {
      return { end: j + 1, csi: { params: s.slice(i, j), final: s[j] ?? '' } };
    }
    return { end: j };
  }
  return { end: j };
}

/**
 * Reads a control string (OSC, DCS, SOS, PM, APC) starting at `i`, up to and
 * including its terminator: BEL, `ESC \` or U+009C. CAN and SUB abort it, as
 * they do in a real terminal. A newline also ends it (without being consumed)
 * so that an unterminated title cannot eat the following lines; with no
 * terminator at all it runs to the end of the string.
 */
function readControlString(s: string, i: number): EscapeSequence {
  let j = i;
  while (j < s.length) {
    const code = s.charCodeAt(j);
    if (code === BEL || code === C1_ST) return { end: j + 1 };
    if (code === CAN || code === SUB) return { end: j + 1 };
    if (code === LF) return { end: j };
    if (code === ESC) {
      // `ESC \` is the string terminator; any other ESC ends the string and
      // starts a new sequence.
      return s.charCodeAt(j + 1) === 0x5c ? { end: j + 2 } : { end: j };
    }
    j += 1;
  }
  return { end: j };
}

/**
 * Recognizes an escape sequence at index `i`, or returns undefined when the
 * character there does not start one.
 */
function readEscape(s: string, i: number): EscapeSequence | undefined {
  const code = s.charCodeAt(i);
  if (code === C1_CSI) return readCsi(s, i + 1);
  if (isC1StringIntroducer(code)) return readControlString(s, i + 1);
  if (code !== ESC) return undefined;

  const next = s.charCodeAt(i + 1);
  if (Number.isNaN(next)) return { end: i + 1 }; // lone ESC at the end
  if (next === 0x5b) return readCsi(s, i + 2); // ESC [
  if (isStringIntroducer(next)) return readControlString(s, i + 2);

  // Other ESC sequences: intermediates (0x20-0x2F) then a final byte
  // (0x30-0x7E), e.g. `ESC ( B`, `ESC =`, `ESC 7`, `ESC M`.
  let j = i + 1;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c >= 0x20 && c <= 0x2f) {
      j += 1;
      continue;
    }
    if (c >= 0x30 && c <= 0x7e) return { end: j + 1 };
    break;
  }
  // Not a valid sequence: drop the ESC (and any intermediates) only.
  return { end: j };
}

/**
 * Removes terminal escape sequences: CSI (including private parameters such as
 * `ESC [?2004h` and bracketed-paste `ESC [200~`), OSC, DCS/SOS/PM/APC control
 * strings, two-byte ESC sequences and their 8-bit C1 forms. Other text,
 * including other control characters, is left alone.
 */
export function stripAnsi(s: string): string {
  let out = '';
  let i = 0;
  let textStart = 0;
  while (i < s.length) {
    const seq = readEscape(s, i);
    if (seq === undefined) {
      i += 1;
      continue;
    }
    out += s.slice(textStart, i);
    i = seq.end;
    textStart = i;
  }
  return out + s.slice(textStart);
}

/**
 * Renders one line of plain program output as a terminal would show it:
 * escape sequences are removed, `\r` returns to the start of the line so later
 * text overwrites earlier text, `\b` moves one cell left, other C0 controls
 * and DEL are dropped (tab is kept as a character), and the result is
 * right-trimmed. A `\r` with nothing after it changes nothing.
 *
 * One escape sequence is honoured rather than dropped: erase-in-line
 * (`ESC [K`, `ESC [1K`, `ESC [2K`), because progress output relies on
 * `\r ESC[K` to clear a line before rewriting it; dropping it would glue the
 * tail of a spinner line onto the text that replaced it.
 */
export function renderLine(raw: string): string {
  const cells: string[] = [];
  let cursor = 0;
  let i = 0;
  while (i < raw.length) {
    const seq = readEscape(raw, i);
    if (seq !== undefined) {
      if (seq.csi?.final === 'K') eraseInLine(cells, cursor, seq.csi.params);
      i = seq.end;
      continue;
    }
    const code = raw.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(code);
    i += ch.length;
    if (code === 0x0d) {
      cursor = 0;
    } else if (code === 0x08) {
      cursor = Math.max(0, cursor - 1);
    } else if ((code < 0x20 && code !== 0x09) || code === 0x7f) {
      // other C0 controls and DEL show nothing
    } else {
      if (cursor < cells.length) cells[cursor] = ch;
      else cells.push(ch);
      cursor += 1;
    }
  }
  return cells.join('').trimEnd();
}

function eraseInLine(cells: string[], cursor: number, params: string): void {
  const mode = params === '' ? 0 : Number(params);
  if (mode === 0) {
    cells.length = Math.min(cells.length, cursor);
  } else if (mode === 1) {
    for (let k = 0; k <= cursor && k < cells.length; k += 1) cells[k] = ' ';
  } else if (mode === 2) {
    // The cursor keeps its column; later text lands there with blanks before.
    for (let k = 0; k < cells.length; k += 1) cells[k] = ' ';
  }
}
