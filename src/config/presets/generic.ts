/**
 * The preset for a program macs does not know (SPEC §8): busy while the
 * screen shows "esc to interrupt" or a spinner line, blocked on a numbered
 * menu, dialog key hints or a y/n question, idle at a prompt or composer,
 * errored when tmux reports a dead pane or the program died with a
 * traceback. Enter submits.
 */
import {
  EXIT_STATUS_PROMPT,
  GENERIC_APPROVAL,
  GENERIC_ERROR,
  GENERIC_IDLE,
  GENERIC_WORKING,
} from './rules.js';
import type { PresetInput } from './types.js';

export const GENERIC_PRESET_INPUT: PresetInput = {
  name: 'generic',
  description: 'any other terminal program',
  program: '',
  states: {
    approval: GENERIC_APPROVAL,
    working: GENERIC_WORKING,
    error: [...GENERIC_ERROR, EXIT_STATUS_PROMPT],
    idle: GENERIC_IDLE,
  },
  submitKey: 'Enter',
  submitDelayMs: 200,
  paste: { bracketed: true, maxLiteralChars: 200 },
  hooks: 'none',
  busyMarker: 'esc to interrupt',
};
