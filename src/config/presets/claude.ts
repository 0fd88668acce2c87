/**
 * Claude Code (`claude`). Its screen: a transcript with `●`/`⎿` bullets, a
 * spinner line `✻ Verb… (esc to interrupt · 12s · ↓ 1.2k tokens)` while a
 * turn runs, a composer `❯` between two `───` rules, and selection dialogs
 * (`Do you want to proceed?` / `❯ 1. Yes` / `Esc to cancel · …`) for
 * permissions, folder trust, plan approval and questions.
 */
import {
  DIALOG_FOOTER,
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

export const CLAUDE_PRESET_INPUT: PresetInput = {
  name: 'claude',
  description: 'Claude Code',
  program: 'claude',
  knownScreens: true,
  states: {
    approval: withFallbacks(
      [
        QUESTION_MENU,
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
