/**
 * Text a person cannot see on the pane: written while SGR 8 (concealed) is
 * on, or in the same colour as its background (`ESC[30;40m`, `ESC[38;5;16;48;5;16m`,
 * the same truecolour twice). A worker can hide words from the person that
 * the answerer still reads; a request whose body holds such text is flagged
 * (docs/security.md).
 *
 * Pure and streaming: the tracker follows the SGR state across chunks, as a
 * terminal does, and collects each run of hidden text, so the bridge can
 * tell which request it landed in whatever the chunking.
 */

/** A colour as a comparable key; undefined is the terminal's default. */
type Colour = string | undefined;

interface Pen {
  fg: Colour;
  bg: Colour;
  concealed: boolean;
}

export interface HiddenTextTracker {
  /** Feed raw output; true when it wrote hidden text (not only blanks). */
  feed(text: string): boolean;
  /** Whether a body holds a run of text that was written hidden. */
  hides(body: string): boolean;
}

/** Hidden runs kept to match against bodies, and the most of one run kept. */
const MAX_RUNS = 64;
const MAX_RUN_CHARS = 4096;

/** Compare text as the screen shows it: white space (wrapping) left out. */
const squeeze = (text: string): string => text.replace(/\s+/g, '');

// A CSI sequence (ESC [ or the 8-bit CSI): parameters, intermediates, final.
// eslint-disable-next-line no-control-regex
const CSI = /(?:\x1b\[|\u009b)([0-?]*)[ -/]*([@-~])/y;

/** The palette index of a basic SGR colour code (30–37, 90–97, 40–47, 100–107). */
function basic(code: number): number {
  if (code >= 100) return code - 100 + 8;
  if (code >= 90) return code - 90 + 8;
  return code % 10;
}

/**
 * An extended colour (`38;5;n`, `38;2;r;g;b`, or with `:`) starting at
 * params[i]; returns its key and how many parameters it used.
 */
function extended(params: number[], i: number): [Colour, number] {
  const mode = params[i + 1];
  if (mode === 5) return [`p${params[i + 2] ?? 0}`, 3];
  if (mode === 2)
    return [
      `rgb${params[i + 2] ?? 0},${params[i + 3] ?? 0},${params[i + 4] ?? 0}`,
      5,
    ];
  return [undefined, 1];
}

function applySgr(pen: Pen, raw: string): void {
  // Sub-parameters written with ':' (38:2::r:g:b) are read like ';' ones;
  // an empty colour-space field is dropped.
  const params =
    raw === ''
      ? [0]
      : raw
          .replace(/:(?=:)/g, '')
          .split(/[;:]/)
          .map((p) => (p === '' ? 0 : Number(p)));
  for (let i = 0; i < params.length; i += 1) {
    const code = params[i] ?? 0;
    if (code === 0) {
      pen.fg = undefined;
      pen.bg = undefined;
      pen.concealed = false;
    } else if (code === 8) pen.concealed = true;
    else if (code === 28) pen.concealed = false;
    else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97))
      pen.fg = `p${basic(code)}`;
    else if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107))
      pen.bg = `p${basic(code)}`;
    else if (code === 39) pen.fg = undefined;
    else if (code === 49) pen.bg = undefined;
    else if (code === 38 || code === 48) {
      const [colour, used] = extended(params, i);
      if (code === 38) pen.fg = colour;
      else pen.bg = colour;
      i += used - 1;
    }
  }
}

function invisible(pen: Pen): boolean {
  return pen.concealed || (pen.fg !== undefined && pen.fg === pen.bg);
}

export function createHiddenTextTracker(): HiddenTextTracker {
  const pen: Pen = { fg: undefined, bg: undefined, concealed: false };
  const runs: string[] = [];
  let run = '';
  const endRun = (): void => {
    const text = squeeze(run);
    run = '';
    if (!text) return;
    runs.push(text);
    if (runs.length > MAX_RUNS) runs.shift();
  };
  return {
    feed(text) {
      // The common case on the bridge's hot path: a visible pen and no
      // escape in the chunk change nothing (a run only grows while hidden).
      if (!invisible(pen) && !text.includes('\x1b') && !text.includes('\u009b'))
        return false;
      let hidden = false;
      let i = 0;
      while (i < text.length) {
        const ch = text.charCodeAt(i);
        if (ch === 0x1b || ch === 0x9b) {
          CSI.lastIndex = i;
          const m = CSI.exec(text);
          if (m) {
            if (m[2] === 'm') {
              applySgr(pen, m[1] ?? '');
              if (!invisible(pen)) endRun();
            }
            i = CSI.lastIndex;
            continue;
          }
          // Another escape (or one split across chunks): pass over it.
          i += 1;
          continue;
        }
        if (invisible(pen) && ch >= 0x20 && ch !== 0x7f) {
          if (ch > 0x20) hidden = true;
          if (run.length < MAX_RUN_CHARS) run += text[i];
        } else if (ch === 0x0a && run) endRun();
        i += 1;
      }
      return hidden;
    },
    hides(body) {
      const text = squeeze(body);
      const all = run ? [...runs, squeeze(run)] : runs;
      return all.some((hidden) => hidden !== '' && text.includes(hidden));
    },
  };
}
