/**
 * What may be typed into a pane (SPEC §6 step 3, §9: control characters never
 * reach a pane). Pure.
 */
import { stripAnsi } from './text.js';

/** C0 controls other than `\t` and `\n`, DEL, and the C1 range. */
function isUnsafeControl(code: number): boolean {
  if (code === 0x09 || code === 0x0a) return false;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/**
 * Makes text safe to paste into a terminal: escape sequences are removed,
 * `\r\n` and lone `\r` become `\n`, and every other control character except
 * `\n` and `\t` is dropped (C0, DEL, C1). Printable text of any script, emoji,
 * quotes and shell syntax are left exactly as they are; quoting is not our
 * job because the text is pasted, never run through a shell.
 */
export function sanitizeText(text: string): string {
  const plain = stripAnsi(text).replace(/\r\n?/g, '\n');
  let out = '';
  let kept = 0;
  for (let i = 0; i < plain.length; i += 1) {
    if (!isUnsafeControl(plain.charCodeAt(i))) continue;
    out += plain.slice(kept, i);
    kept = i + 1;
  }
  return out + plain.slice(kept);
}
