/**
 * From a preset (config/presets/) to what the bridge needs of it: how to
 * type into the agent, how to read its screen, its dialog and hooks; and
 * which preset a pane's program stands for when none is named.
 */
import { getPreset, listPresetNames } from '../../config/presets/index.js';
import { isShellCommand } from '../../config/presets/shell.js';
import type { Preset } from '../../config/presets/types.js';
import type { MacsConfig } from '../../config/schema.js';
import { classifyScreen } from '../../screen/classify.js';
import type { AgentProfile } from '../agent-context.js';

/** A preset turned into what the supervisor needs. */
export function profileFromPreset(preset: Preset): AgentProfile {
  return {
    preset: preset.name,
    rules: {
      submitKey: preset.submitKey,
      submitDelayMs: preset.submitDelayMs,
      bracketed: preset.paste.bracketed,
      maxLiteralChars: preset.paste.maxLiteralChars,
      typeIntoUnknown: !preset.knownScreens,
      ...(isShellCommand(preset.program) ? { shellPromptOnly: true } : {}),
    },
    classify: (screen) => classifyScreen(screen, preset).state,
    classifyScreen: (screen) => classifyScreen(screen, preset),
    knownScreens: preset.knownScreens,
    ...(preset.dialog ? { dialog: preset.dialog } : {}),
    hooks: preset.hooks,
  };
}

/** The preset whose program is running in the pane, else `generic`. */
export function detectPresetName(
  currentCommand: string,
  config: MacsConfig,
): string {
  for (const name of listPresetNames()) {
    if (name === 'generic') continue;
    const preset = getPreset(name, config.presets);
    if (preset.program && preset.program === currentCommand) return name;
  }
  return 'generic';
}
