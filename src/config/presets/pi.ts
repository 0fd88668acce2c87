/**
 * pi, the coding agent from badlogic/pi-mono (`pi`). Its screen: the
 * transcript, a loader `⠹ Working...` above the editor while a turn runs,
 * the editor between two `───` rules, a footer with the folder and token
 * counts, and selection dialogs from extensions (`→ Yes` / `No` /
 * `↑↓ navigate  enter select  escape/ctrl+c cancel`). A turn that ends with
 * a question right above an empty editor waits for the person's choice.
 */
import {
  DIALOG_FOOTER,
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
import { parsePreset, type Preset } from './types.js';

// The empty editor: two rules with at most one blank line between them.
const EMPTY_EDITOR = String.raw`${HRULE}\n(?:[ \t]*\n)?${HRULE}`;

export const PI_PRESET: Preset = parsePreset({
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
          String.raw`^[ \t]*(?:Operation aborted|Aborted)\b[^\n]*\n(?:[ \t]*\n)*${HRULE}`,
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
        // The turn ended on an error: `Error: …` right above the editor.
        rule(
          'turn-error',
          String.raw`^[ \t]*Error: [^\n]*\n(?:[ \t]*\S[^\n─]*\n){0,3}(?:[ \t]*\n)*${HRULE}`,
          { lastLines: 20 },
        ),
      ],
      GENERIC_ERROR,
    ),
    idle: withFallbacks(
      [rule('editor', String.raw`^[ \t]*─{8,}[ \t]*$`, { lastLines: 10 })],
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
});
