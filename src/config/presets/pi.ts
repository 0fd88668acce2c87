/**
 * pi, the coding agent from badlogic/pi-mono (`pi`). Its screen: the
 * transcript, a loader `⠹ Working...` above the editor while a turn runs,
 * the editor, a footer with the folder and token counts, and selection
 * dialogs from extensions (`→ Yes` / `No` /
 * `↑↓ navigate  enter select  escape/ctrl+c cancel`). A turn that ends with
 * a question right above an empty editor waits for the person's choice.
 *
 * The editor's frame depends on the theme: pi's own is two `───` rules;
 * a powerline theme (the pi-powerline-footer extension, after oh-my-pi)
 * draws a rounded box with the status in its top border,
 * `╭─ model │ thinking:off │ folder ───╮` over `╰─ <text> ─╯` (more lines
 * as `│  …  │`). The rules accept either frame.
 */
import {
  DIALOG_FOOTER,
  EXITED_TO_SHELL,
  GENERIC_APPROVAL,
  GENERIC_ERROR,
  GENERIC_IDLE,
  GENERIC_WORKING,
  HRULE,
  QUESTION_MENU,
  YES_NO_PROMPT,
  rule,
  withFallbacks,
} from './rules.js';
import type { PresetInput } from './types.js';

// The rounded frame of a powerline theme: its top border (status inside)
// and its bottom border (the editor's last line inside).
const ROUND_TOP = String.raw`[ \t]*╭─[^\n]*─╮[ \t]*`;
const ROUND_BOTTOM = String.raw`[ \t]*╰─[^\n]*─╯[ \t]*`;

// The top of the editor, in either frame.
const EDITOR_TOP = String.raw`(?:${HRULE}|${ROUND_TOP})`;

// The empty editor: two rules with at most one blank line between them, or
// a rounded frame with nothing in it.
const EMPTY_EDITOR = String.raw`(?:${HRULE}\n(?:[ \t]*\n)?${HRULE}|${ROUND_TOP}\n[ \t]*╰─[ \t]*─╯)`;

// The editor as the last thing on screen: its top, a few lines of text,
// its bottom, and the footer (folder, tokens, model) under it.
const EDITOR_LAST = String.raw`${EDITOR_TOP}(?:\n[^\n─╰]*){0,8}\n(?:${HRULE}|${ROUND_BOTTOM})(?:\n[^\n─]*){0,4}(?![\s\S])`;

export const PI_PRESET_INPUT: PresetInput = {
  name: 'pi',
  description: 'pi coding agent',
  program: 'pi',
  knownScreens: true,
  states: {
    approval: withFallbacks(
      [
        rule(
          'confirm-cursor',
          String.raw`^[ \t]*→[ \t]*(?:Yes|Allow|Approve|Accept|Confirm)\b`,
          { lastLines: 15 },
        ),
        DIALOG_FOOTER,
        QUESTION_MENU,
        // The last message asks a question and the editor is still empty.
        rule(
          'question-before-editor',
          String.raw`\?[ \t*_]*\n(?:[ \t]*\n)*${EMPTY_EDITOR}`,
          { lastLines: 15 },
        ),
        // The person pressed Esc; pi waits for what to do next.
        rule(
          'aborted',
          String.raw`^[ \t]*(?:Operation aborted|Aborted)\b[^\n]*\n(?:[ \t]*\n)*${EDITOR_TOP}`,
          { lastLines: 15 },
        ),
        YES_NO_PROMPT,
      ],
      GENERIC_APPROVAL,
    ),
    working: withFallbacks(
      [
        rule(
          'loader',
          String.raw`^[ \t]*[\u2800-\u28FF][ \t]+\S[^\n]*(?:\.\.\.|…)`,
          { lastLines: 12 },
        ),
      ],
      GENERIC_WORKING,
    ),
    error: withFallbacks(
      [
        EXITED_TO_SHELL,
        // A command the person ran (`!cmd`) failed: its box ends in
        // `(exit 2)` (after `... 11 more lines`, before an `Output
        // truncated` notice), then the box's rule and the editor, the last
        // thing on screen (a later command's box would follow otherwise).
        rule(
          'command-failed',
          String.raw`^[ \t]*\(exit [1-9]\d*\)[ \t]*\n(?:[^\n─]*\n){0,3}?(?:${HRULE}\n(?:[ \t]*\n)*)?${EDITOR_LAST}`,
          { lastLines: 20 },
        ),
        // The turn ended on an error: `Error: …` right above the editor.
        rule(
          'turn-error',
          String.raw`^[ \t]*Error: [^\n]*\n(?:[ \t]*[^\s╭][^\n─]*\n){0,3}(?:[ \t]*\n)*${EDITOR_TOP}`,
          { lastLines: 20 },
        ),
      ],
      GENERIC_ERROR,
    ),
    idle: withFallbacks(
      [
        // A rule of pi's own editor, or the bottom of a rounded frame.
        rule('editor', String.raw`^(?:[ \t]*─{8,}|${ROUND_BOTTOM})[ \t]*$`, {
          lastLines: 10,
        }),
      ],
      GENERIC_IDLE,
    ),
  },
  submitKey: 'Enter',
  submitDelayMs: 200,
  paste: { bracketed: true, maxLiteralChars: 200 },
  hooks: 'none',
  // pi prints "esc to interrupt" in its start-up header, so the marker
  // would fire on an idle screen; the loader rule covers busy turns.
  busyMarker: null,
};
