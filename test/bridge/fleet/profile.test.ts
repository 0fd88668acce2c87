import { describe, expect, it } from 'vitest';
import {
  detectPresetName,
  profileFromPreset,
} from '../../../src/bridge/fleet/profile.js';
import { getPreset } from '../../../src/config/presets/index.js';
import { ConfigSchema } from '../../../src/config/schema.js';

describe('profileFromPreset', () => {
  it("carries the preset's typing rules, screen reading, dialog and hooks", () => {
    const claude = profileFromPreset(getPreset('claude'));
    expect(claude).toMatchObject({
      preset: 'claude',
      knownScreens: true,
      hooks: 'claude',
      rules: { submitKey: 'Enter', bracketed: true, typeIntoUnknown: false },
    });
    expect(claude.dialog?.name).toBeTruthy();
    expect(claude.classify('')).toBe(claude.classifyScreen?.('').state);
  });

  it('types into an unknown screen only for a program macs does not know', () => {
    expect(profileFromPreset(getPreset('generic')).rules.typeIntoUnknown).toBe(
      true,
    );
    expect(profileFromPreset(getPreset('codex')).rules.typeIntoUnknown).toBe(
      false,
    );
    expect(profileFromPreset(getPreset('generic')).dialog).toBeUndefined();
  });
});

describe('detectPresetName', () => {
  const config = ConfigSchema.parse({});

  it("names the preset whose program the pane runs, else 'generic'", () => {
    expect(detectPresetName('claude', config)).toBe('claude');
    expect(detectPresetName('aider', config)).toBe('aider');
    expect(detectPresetName('vim', config)).toBe('generic');
    // `generic` has no program: an empty command is not taken for it.
    expect(detectPresetName('', config)).toBe('generic');
  });
});
