/**
 * Gemini CLI (`gemini`). Its screen: `✦ ` model turns, `> ` user messages, a
 * loading line `⠏ <witty phrase> (esc to cancel, 5s)` while a turn runs,
 * tool confirmations (`Allow execution of: 'ls'?` / `● 1. Allow once` /
 * `3. No, suggest changes (esc)`) and `✕ ` error messages. At the bottom the
 * composer: in older releases a box `│ >   Type your message… │`; in 0.61 a
 * `────` rule, a hint line (`Shift+Tab to accept edits`), the prompt line
 * `>   Type your message or @path/to/file` (or the text typed so far, or
 * `[Pasted Text: 28 lines]`) and a two-line footer (folder, sandbox,
 * model). docs/agents.md, "Gemini CLI".
 */
import {
  BOXED_COMPOSER,
  DIALOG_FOOTER,
  EXITED_TO_SHELL,
  GENERIC_APPROVAL,
  GENERIC_ERROR,
  GENERIC_IDLE,
  GENERIC_WORKING,
  YES_NO_PROMPT,
  rule,
  withFallbacks,
} from './rules.js';
import type { PresetInput } from './types.js';

// The top of the composer: 0.61's rule line, or an older release's box
// whose first row is the `>` prompt.
const COMPOSER_TOP = String.raw`[ \t]*(?:─{8,}|╭─{8,}[^\n]*\n[ \t]*│[ \t]*>)`;

// A line that starts a new transcript entry after an error: a model turn
// (`✦`), a user message (`>`), a tool box (`╭`), or the composer's rule.
const NEW_ENTRY = String.raw`[ \t]*(?:[✦>╭─]|│[ \t]*>)`;

export const GEMINI_PRESET_INPUT: PresetInput = {
  name: 'gemini',
  description: 'Gemini CLI',
  program: 'gemini',
  knownScreens: true,
  // packages/core isHeadlessMode(): CI or GITHUB_ACTIONS = "true" means
  // "not interactive", whatever the terminal.
  headlessEnv: ['CI', 'GITHUB_ACTIONS'],
  states: {
    approval: withFallbacks(
      [
        // The radio list of a confirmation: `● 1. Allow once`.
        rule('confirm-options', String.raw`^[ \t│]*●[ \t]*\d+\.[ \t]+\S`, {
          lastLines: 30,
        }),
        rule(
          'waiting-confirmation',
          String.raw`Waiting for user confirmation`,
          {
            lastLines: 15,
          },
        ),
        DIALOG_FOOTER,
        YES_NO_PROMPT,
      ],
      GENERIC_APPROVAL,
    ),
    working: GENERIC_WORKING,
    error: withFallbacks(
      [
        EXITED_TO_SHELL,
        // The turn ended on an error: a `✕ ` message (wrapped over lines,
        // followed by `ℹ` hints or blank lines) with nothing newer between
        // it and the composer. Anchored on the composer, not on a count of
        // lines: 0.61's taller footer put it 14 lines from the bottom.
        rule(
          'error-message',
          String.raw`^[ \t]*✕[ \t]+\S[^\n]*\n(?:(?!${NEW_ENTRY})[^\n]*\n)*${COMPOSER_TOP}`,
        ),
      ],
      GENERIC_ERROR,
    ),
    idle: withFallbacks(
      [
        BOXED_COMPOSER,
        rule('placeholder', String.raw`Type your message`, { lastLines: 8 }),
        // 0.61's composer holding text (typed, or a collapsed paste): the
        // prompt line a few lines under the composer's rule.
        rule(
          'composer',
          String.raw`^[ \t]*─{8,}[ \t]*\n(?:[^\n]*\n){0,3}[ \t]*>[ \t]*\S`,
          { lastLines: 12 },
        ),
      ],
      GENERIC_IDLE,
    ),
  },
  // A tool confirmation box (test/fixtures/screens/gemini/approval/): from
  // the outer box's `╭─` (inner boxes start with `│`) to its `╰─`, with
  // `● 1. Allow once` highlighted. Enter takes it; Escape is `No, suggest
  // changes (esc)`.
  dialog: {
    name: 'permission',
    top: String.raw`^╭─`,
    selected: String.raw`^│[ \t]*●[ \t]*1\.[ \t]+Allow once\b`,
    bottom: String.raw`^╰─`,
    allowKeys: ['Enter'],
    denyKeys: ['Escape'],
  },
  submitKey: 'Enter',
  submitDelayMs: 200,
  paste: { bracketed: true, maxLiteralChars: 200 },
  hooks: 'none',
  // The cancel-timer rule (part of GENERIC_WORKING) covers its busy line.
  busyMarker: null,
};
