import { describe, expect, it } from 'vitest';
import {
  detectPresetName,
  followedPresetName,
  profileFromPreset,
} from '../../src/bridge/profile.js';
import { getPreset } from '../../src/config/presets/index.js';
import { ConfigSchema } from '../../src/config/schema.js';

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

describe('detectPresetName with a config', () => {
  // Issue 29: a custom preset was never detected (only built-in names were
  // looked at), and a zsh pane was `generic`, typed into while it ran a
  // command.
  const config = ConfigSchema.parse({
    presets: { mine: { extends: 'generic', program: 'my-agent' } },
  });

  it('finds a custom preset by its program; a shell by its name alone is not the shell preset', () => {
    expect(detectPresetName('my-agent', config)).toBe('mine');
    expect(detectPresetName('bash', config)).toBe('shell');
    // `sh -c 'cat > f'` is named `sh`: no prompt to type at.
    expect(detectPresetName('sh', config)).toBe('generic');
  });
});

describe('followedPresetName (issue 29: the preset follows the pane program)', () => {
  const config = ConfigSchema.parse({
    presets: { mine: { extends: 'generic', program: 'my-agent' } },
  });
  const argv = (...a: string[]) => [{ argv: a }];

  it("takes a known agent's preset, by its command or its script's name", () => {
    expect(followedPresetName('claude', undefined, config, 'shell')).toBe(
      'claude',
    );
    expect(
      followedPresetName(
        'node',
        argv('node', '/usr/lib/node_modules/@openai/codex/bin/codex.js'),
        config,
        'shell',
      ),
    ).toBe('codex');
    expect(
      followedPresetName(
        'node',
        argv('node', '/x/my-agent.mjs'),
        config,
        'shell',
      ),
    ).toBe('mine');
  });

  it('a command a shell runs leaves the shell its preset; a shell again is the shell', () => {
    expect(
      followedPresetName('python3', argv('python3', 'ask.py'), config, 'shell'),
    ).toBe('shell');
    expect(
      followedPresetName('sleep', argv('sleep', '30'), config, 'shell'),
    ).toBe('shell');
    expect(followedPresetName('bash', undefined, config, 'claude')).toBe(
      'shell',
    );
    expect(followedPresetName('zsh', argv('-zsh'), config, 'claude')).toBe(
      'shell',
    );
    expect(
      followedPresetName('sh', argv('sh', '-c', 'cat > f'), config, 'generic'),
    ).toBe('generic');
    // Not a shell's pane: a program with no preset of its own is generic.
    expect(
      followedPresetName('python3', argv('python3', 'x.py'), config, 'claude'),
    ).toBe('generic');
  });
});
