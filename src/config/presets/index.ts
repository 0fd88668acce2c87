/**
 * The builtin presets and the lookup of a preset by name, including custom
 * presets from the config (`presets.<name>` in macs.config.json).
 *
 * A custom preset may name a builtin or another custom preset in `extends`.
 * It is then merged onto that base: each of its `states.<state>` lists is put
 * in front of the base's list for that state (so its rules are tried first
 * and the base's still apply), `paste` is merged key by key, and every other
 * field it sets replaces the base's. A custom preset with the name of a
 * builtin replaces the builtin; `extends` with its own name means the
 * builtin. Without `extends`, the custom preset must be complete (`program`
 * at least).
 */
import { ConfigError } from '../../errors.js';
import { BUILTIN_PRESET_INPUTS } from './builtin.js';
import { isShellCommand } from './shell.js';
import {
  CustomPresetSchema,
  SCREEN_STATES,
  formatIssues,
  parsePreset,
  type CustomPreset,
  type Preset,
} from './types.js';

export type { AgentStateName } from '../states.js';
export type { Preset, ScreenRule } from './types.js';
export { PresetSchema, CustomPresetSchema, parsePreset } from './types.js';

/** The preset used for a program macs does not know. */
export const DEFAULT_PRESET_NAME = 'generic';

/**
 * The builtin presets by name. Each is validated (defaults filled in) when
 * first read, not when this module loads: a command needs one or two, and
 * parsing all seven cost each one about 5 ms.
 */
export const BUILTIN_PRESETS: Readonly<Record<string, Preset>> = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(
      Object.entries(BUILTIN_PRESET_INPUTS).map(([name, input]) => {
        let parsed: Preset | undefined;
        const get = (): Preset => (parsed ??= parsePreset(input));
        return [name, { get, enumerable: true }];
      }),
    ),
  ) as Record<string, Preset>,
);

/** Builtin names, then custom names not shadowing a builtin, each sorted. */
export function listPresetNames(
  custom: Record<string, unknown> = {},
): string[] {
  const builtin = Object.keys(BUILTIN_PRESETS).sort();
  const extra = Object.keys(custom)
    .filter((name) => !(name in BUILTIN_PRESETS))
    .sort();
  return [...builtin, ...extra];
}

function unknownPreset(name: string, custom: Record<string, unknown>): never {
  throw new ConfigError(`unknown preset "${name}"`, {
    hint: `known presets: ${listPresetNames(custom).join(', ')}`,
  });
}

function parseCustom(name: string, raw: unknown): CustomPreset {
  const result = CustomPresetSchema.safeParse(raw);
  if (!result.success) {
    throw new ConfigError(
      `invalid preset "${name}": ${formatIssues(result.error, `presets.${name}`)}`,
      {
        hint: 'see docs/presets.md for the preset fields',
        cause: result.error,
      },
    );
  }
  return result.data;
}

// The merged, not yet validated object for a custom preset over its base.
function mergeOnto(base: Preset | undefined, own: CustomPreset, name: string) {
  const { extends: _extends, states, paste, ...fields } = own;
  const merged: Record<string, unknown> = { ...base, ...fields, name };
  const baseStates: Record<string, unknown[]> = { ...base?.states };
  const mergedStates: Record<string, unknown[]> = {};
  for (const state of SCREEN_STATES) {
    mergedStates[state] = [
      ...(states?.[state] ?? []),
      ...(baseStates[state] ?? []),
    ];
  }
  merged.states = mergedStates;
  merged.paste = { ...base?.paste, ...paste };
  // Its screens may differ from the base's: a custom preset never answers
  // a permission dialog with keys (docs/presets.md, "dialog").
  delete merged.dialog;
  return merged;
}

function resolve(
  name: string,
  custom: Record<string, unknown>,
  seen: readonly string[],
): Preset {
  if (seen.includes(name)) {
    throw new ConfigError(
      `preset "${name}" extends itself: ${[...seen, name].join(' -> ')}`,
      { hint: 'remove the cycle from the "extends" keys of your presets' },
    );
  }
  const raw = Object.hasOwn(custom, name) ? custom[name] : undefined;
  if (raw === undefined) {
    return BUILTIN_PRESETS[name] ?? unknownPreset(name, custom);
  }
  const own = parseCustom(name, raw);
  let base: Preset | undefined;
  if (own.extends === name) {
    base = BUILTIN_PRESETS[name] ?? unknownPreset(name, custom);
  } else if (own.extends !== undefined) {
    base = resolve(own.extends, custom, [...seen, name]);
  }
  return parsePreset(mergeOnto(base, own, name));
}

/**
 * The preset called `name`: a custom one from the config when defined there,
 * else a builtin. Throws a ConfigError (exit 2) listing the known presets
 * when there is no such preset, or naming the field when a custom preset is
 * invalid.
 */
export function getPreset(
  name: string,
  custom: Record<string, unknown> = {},
): Preset {
  return resolve(name, custom, []);
}

/**
 * The preset whose `program` is the given command (as tmux reports
 * `#{pane_current_command}`), custom presets first; then `shell` for any
 * shell (`sh`, `zsh`, `fish`…: a shell would run a first message as
 * commands, and only the shell preset never sends one); `generic` when none
 * is.
 */
export function findPresetForProgram(
  command: string,
  custom: Record<string, unknown> = {},
): Preset {
  for (const name of [
    ...Object.keys(custom),
    ...Object.keys(BUILTIN_PRESETS),
  ]) {
    const preset = getPreset(name, custom);
    if (preset.program !== '' && preset.program === command) return preset;
  }
  if (isShellCommand(command)) return getPreset('shell', custom);
  return getPreset(DEFAULT_PRESET_NAME, custom);
}
