/**
 * Claude Code (`claude`). Its screen: a transcript with `●`/`⎿` bullets, a
 * spinner line `✻ Verb… (esc to interrupt · 12s · ↓ 1.2k tokens)` while a
 * turn runs, a composer `❯` between two `───` rules, and selection dialogs
 * (`Do you want to proceed?` / `❯ 1. Yes` / `Esc to cancel · …`) for
 * permissions, folder trust, plan approval and questions.
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
  RULED_COMPOSER,
  SPINNER_STATUS,
  YES_NO_PROMPT,
  rule,
  withFallbacks,
} from './rules.js';
import type { PresetInput } from './types.js';

// A composer line right under a rule: Claude is back at its prompt.
const COMPOSER_BELOW = String.raw`^${HRULE}\n[ \t]*[❯>›]`;

export const CLAUDE_PRESET_INPUT: PresetInput = {
  name: 'claude',
  description: 'Claude Code',
  program: 'claude',
  knownScreens: true,
  states: {
    approval: withFallbacks(
      [
        QUESTION_MENU,
        // Claude hides its composer while a dialog is open, so a question
        // over a numbered menu with no composer anywhere below it is a
        // dialog, however much is drawn under it (a plan approval with the
        // task list of unfinished tasks, a long plan): no line window.
        rule(
          'dialog-menu',
          String.raw`^[^\n]*\?[ \t│]*\n(?:[^\n]*\n){0,10}?[ \t│]*[❯›][ \t]*\d+\.[ \t]+\S(?![\s\S]*${COMPOSER_BELOW})`,
        ),
        DIALOG_FOOTER,
        // After Esc, Claude asks what to do instead and waits for the person.
        rule(
          'interrupted',
          String.raw`^[^\n]*\bInterrupted\b[^\n]*\bWhat should [^\n]*\?[ \t]*\n(?:[ \t]*\n)*${HRULE}`,
          { lastLines: 12 },
        ),
        YES_NO_PROMPT,
      ],
      GENERIC_APPROVAL,
    ),
    working: withFallbacks(
      [
        SPINNER_STATUS,
        // A tool call still running: `⎿  Running… (16s · timeout 2m)`.
        rule('tool-running', String.raw`^[ \t]*⎿[ \t]+Running\b[^\n]*…`, {
          lastLines: 30,
        }),
      ],
      GENERIC_WORKING,
    ),
    error: withFallbacks(
      [
        // Exited (or never started) to the shell it ran in.
        EXITED_TO_SHELL,
        // The first run could not reach the API and Claude ended with its
        // message on screen: `Unable to connect to Anthropic services` /
        // `Failed to connect to api.anthropic.com: ECONNREFUSED` and hints,
        // with no composer drawn after it.
        rule(
          'cannot-connect',
          String.raw`^[ \t]*Unable to connect to Anthropic services\b[^\n]*(?:\n(?![ \t]*─{8,})[^\n]*){0,12}(?![\s\S])`,
          { lastLines: 16 },
        ),
        // The turn ended on an API error: it is the last thing above the
        // composer, as a result line (`⎿  API Error: 529 …`) or, in 2.1.x,
        // as the turn's own bullet (`● API Error: 500 …`, a hint and the
        // turn's timer line under it).
        rule(
          'api-error',
          String.raw`^[ \t]*(?:[⎿●⏺][ \t]*)?API Error\b[^\n]*\n(?:[^\n─]*\n){0,6}?${HRULE}`,
          { lastLines: 15 },
        ),
      ],
      GENERIC_ERROR,
    ),
    idle: withFallbacks(
      [
        RULED_COMPOSER,
        // The composer between its two rules with more drawn under it than
        // ruled-composer looks at (a plan file hint, tasks, suggestions):
        // the last rule of the screen closes the composer, and only lines
        // without a rule follow it.
        rule(
          'composer-frame',
          String.raw`^${HRULE}\n[ \t]*❯[^\n]*\n(?:[^\n─]*\n){0,8}?${HRULE}(?:\n(?![ \t]*─{8,})[^\n]*){0,30}(?![\s\S])`,
          { lastLines: 45 },
        ),
        // The composer handed to an external editor (ctrl+g): between its
        // rules, `Save and close editor to continue...` until it closes.
        rule(
          'editor-open',
          String.raw`^${HRULE}\n[ \t]*Save and close editor to continue\b[^\n]*\n${HRULE}`,
          { lastLines: 12 },
        ),
        // Older versions drew the composer in a box: `╭───╮` / `│ > │`.
        rule('legacy-box', String.raw`^[ \t]*╭─{8,}[^\n]*\n[ \t]*│[ \t]*>`, {
          lastLines: 12,
        }),
      ],
      GENERIC_IDLE,
    ),
  },
  // A tool permission dialog (test/fixtures/screens/claude/approval/): a
  // `───` rule, the tool and its input, `Do you want to proceed?`,
  // `❯ 1. Yes` highlighted, `Esc to cancel · …` last. Enter takes the
  // highlighted Yes; Escape refuses. Only while its hooks are not active:
  // then the PermissionRequest hook asks instead (docs/hooks.md).
  dialog: {
    name: 'permission',
    top: String.raw`^[ \t]*─{8,}[ \t]*$`,
    selected: String.raw`^[ \t]*❯[ \t]*1\.[ \t]+Yes[ \t]*$`,
    bottom: String.raw`^[ \t]*Esc to cancel\b`,
    allowKeys: ['Enter'],
    denyKeys: ['Escape'],
  },
  submitKey: 'Enter',
  submitDelayMs: 200,
  paste: { bracketed: true, maxLiteralChars: 200 },
  hooks: 'claude',
  busyMarker: 'esc to interrupt',
};
