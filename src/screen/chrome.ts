/**
 * Pure: remove the decoration agent UIs draw around their output, so what is
 * left is the content a person reads (SPEC §2, request bodies).
 *
 * - Lines that are only a box edge or a rule (`╭────╮`, `╰────╯`, `───`,
 *   `━━━`, `╌╌╌`) are dropped.
 * - A left border (`│ `, `┃ `, `▌ `) is removed, and with it a matching right
 *   border (` │`, ` ┃`) at the end of the same line.
 * - One leading bullet (`●`, `⏺`, `⎿`, `•`) and the spaces after it are
 *   removed, keeping the indentation before it.
 * Lines are right-trimmed; blank lines are kept. ASCII look-alikes (`---`,
 * `|`, `*`, `-`) are content (Markdown, tables, lists) and are left alone.
 */

const EDGE_LINE = /^\s*[╭╰┌└├┏┗╔╚╞╟]?[─━═╌╍┄┅┈┉╴╶╸╺]{2,}[╮╯┐┘┤┓┛╗╝╡╢]?\s*$/;
const LEFT_BORDER = /^(\s*)[│┃▌](?: |$)/;
const RIGHT_BORDER = /\s*[│┃]\s*$/;
const BULLET = /^(\s*)[●⏺⎿•](?:\s+|$)/;

/** The content of one rendered line, or undefined for a pure edge line. */
function stripLine(line: string): string | undefined {
  if (EDGE_LINE.test(line)) return undefined;
  let text = line;
  const border = LEFT_BORDER.exec(text);
  if (border) {
    text = (border[1] ?? '') + text.slice(border[0].length);
    text = text.replace(RIGHT_BORDER, '');
  }
  text = text.replace(BULLET, '$1');
  return text.trimEnd();
}

/** Rendered lines without box borders, rules and bullets. */
export function stripChrome(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const text = stripLine(line);
    if (text !== undefined) out.push(text);
  }
  return out;
}

/**
 * Join terminal-wrapped rows into logical lines: a row with `wrapped: true`
 * continues the row before it. The text is joined as is, so a row that
 * wrapped keeps the spaces it had at the wrap point.
 */
export function joinWrapped(
  lines: readonly { text: string; wrapped: boolean }[],
): string[] {
  const out: string[] = [];
  for (const { text, wrapped } of lines) {
    const last = out.length - 1;
    if (wrapped && last >= 0) {
      out[last] = (out[last] ?? '') + text;
    } else {
      out.push(text);
    }
  }
  return out;
}

/** Remove the indentation every non-blank line shares. */
export function removeCommonIndent(lines: readonly string[]): string[] {
  let indent = Infinity;
  for (const line of lines) {
    if (line.trim() === '') continue;
    indent = Math.min(indent, line.length - line.trimStart().length);
  }
  if (indent === Infinity || indent === 0) return [...lines];
  return lines.map((line) => line.slice(indent));
}
