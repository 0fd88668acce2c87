import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PRESET_INPUTS,
  builtinPresetHooks,
} from '../../../src/config/presets/builtin.js';
import {
  BUILTIN_PRESETS,
  getPreset,
} from '../../../src/config/presets/index.js';

describe('builtin preset inputs (no zod)', () => {
  it('are the builtin presets, by the same names', () => {
    expect(Object.keys(BUILTIN_PRESET_INPUTS)).toEqual(
      Object.keys(BUILTIN_PRESETS),
    );
  });

  it.each(Object.keys(BUILTIN_PRESET_INPUTS))(
    "%s: the hook kind is the validated preset's",
    (name) => {
      expect(builtinPresetHooks(name)).toBe(getPreset(name).hooks);
    },
  );

  it('knows the kinds: claude and codex have hooks, the others none', () => {
    expect(builtinPresetHooks('claude')).toBe('claude');
    expect(builtinPresetHooks('codex')).toBe('codex');
    expect(builtinPresetHooks('aider')).toBe('none');
    expect(builtinPresetHooks('generic')).toBe('none');
  });

  it('is undefined for a name no builtin has, or an inherited key', () => {
    expect(builtinPresetHooks('no-such-preset')).toBeUndefined();
    expect(builtinPresetHooks('toString')).toBeUndefined();
    expect(builtinPresetHooks('__proto__')).toBeUndefined();
  });
});
