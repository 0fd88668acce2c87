/**
 * What may be typed into a pane (SPEC §6 step 3, §9: control characters never
 * reach a pane). Pure.
 */
import { stripAnsi } from './text.js';

/**
 * Characters a person reading the text does not see, or that change the
 * order it is shown in (SPEC §9): bidi controls (U+061C, U+200E/F,
 * U+202A–U+202E, U+2066–U+2069), zero-width and other blank format
 * characters (U+00AD, U+034F, U+115F/60, U+17B4/5, U+180B–U+180F,
 * U+200B–U+200D, U+2060–U+2064, U+206A–U+206F, U+3164, U+FEFF, U+FFA0,
 * U+FFF9–U+FFFB) and tag characters (U+E0000–U+E007F). Variation selectors
 * are left alone: they only pick an emoji's look.
 */
const INVISIBLE =
  // The class lists single code points on purpose, joiners included.
  // eslint-disable-next-line no-misleading-character-class
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]|\u{e0000}|[\u{e0001}-\u{e007f}]/gu;

/** Whether the text holds a character a person would not see. */
export function hasInvisible(text: string): boolean {
  INVISIBLE.lastIndex = 0;
  const found = INVISIBLE.test(text);
  INVISIBLE.lastIndex = 0;
  return found;
}

/**
 * Show what a person would not see: each invisible or direction-changing
 * character becomes `<U+202E>`. For what answerers read (inbox bodies, the
 * context packet, the status view).
 */
export function escapeInvisible(text: string): string {
  return text.replace(
    INVISIBLE,
    (c) =>
      `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`,
  );
}

/** C0 controls other than `\t` and `\n`, DEL, and the C1 range. */
function isUnsafeControl(code: number): boolean {
  if (code === 0x09 || code === 0x0a) return false;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/**
 * Makes text safe to paste into a terminal: escape sequences are removed,
 * `\r\n` and lone `\r` become `\n`, and every other control character except
 * `\n` and `\t` is dropped (C0, DEL, C1), as is every invisible or
 * direction-changing character (see INVISIBLE). Printable text of any script, emoji,
 * quotes and shell syntax are left exactly as they are; quoting is not our
 * job because the text is pasted, never run through a shell.
 */
export function sanitizeText(text: string): string {
  // Invisible and direction-changing characters are never typed either.
  const plain = stripAnsi(text).replace(/\r\n?/g, '\n').replace(INVISIBLE, '');
  let out = '';
  let kept = 0;
  for (let i = 0; i < plain.length; i += 1) {
    if (!isUnsafeControl(plain.charCodeAt(i))) continue;
    out += plain.slice(kept, i);
    kept = i + 1;
  }
  return out + plain.slice(kept);
}

/**
 * How many characters of `text` are never typed (what sanitizeText drops:
 * escape sequences, control characters, invisible characters); a CRLF
 * counts as the newline it becomes.
 */
export function countUntyped(text: string): number {
  return text.replace(/\r\n?/g, '\n').length - sanitizeText(text).length;
}

/** What a person is told when an answer holds characters that are never typed. */
export function describeUntyped(count: number): string {
  return `${String(count)} character${count === 1 ? '' : 's'} of it will not be typed: escape sequences, control and invisible characters never reach a pane`;
}
