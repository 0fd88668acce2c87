/**
 * The builtin presets as written: plain `PresetInput` objects, one file
 * each, not yet validated. No zod here: `macs hook` needs only a builtin's
 * hook kind (`builtinPresetHooks`), and loading the preset schema for it
 * would cost every hook call its start-up (issue 15). Everything else
 * reads presets through index.ts, which validates them (`getPreset`), and
 * custom presets only ever go that way.
 */
import { AIDER_PRESET_INPUT } from './aider.js';
import { CLAUDE_PRESET_INPUT } from './claude.js';
import { CODEX_PRESET_INPUT } from './codex.js';
import { GEMINI_PRESET_INPUT } from './gemini.js';
import { GENERIC_PRESET_INPUT } from './generic.js';
import { PI_PRESET_INPUT } from './pi.js';
import { SHELL_PRESET_INPUT } from './shell.js';
import type { PresetInput } from './types.js';

/** A preset's hook kind: `claude`, `codex` or `none`. */
export type HooksKind = NonNullable<PresetInput['hooks']>;

/** The builtin presets' inputs by name, in listing order. */
export const BUILTIN_PRESET_INPUTS: Readonly<Record<string, PresetInput>> = {
  codex: CODEX_PRESET_INPUT,
  claude: CLAUDE_PRESET_INPUT,
  gemini: GEMINI_PRESET_INPUT,
  aider: AIDER_PRESET_INPUT,
  pi: PI_PRESET_INPUT,
  shell: SHELL_PRESET_INPUT,
  generic: GENERIC_PRESET_INPUT,
};

/**
 * The hook kind of the builtin preset called `name` (`none` when it sets
 * none, as the schema's default), or undefined when no builtin has that
 * name. It says nothing of a custom preset of that name, which replaces
 * the builtin: see `getPreset`.
 */
export function builtinPresetHooks(name: string): HooksKind | undefined {
  if (!Object.hasOwn(BUILTIN_PRESET_INPUTS, name)) return undefined;
  return BUILTIN_PRESET_INPUTS[name]?.hooks ?? 'none';
}
