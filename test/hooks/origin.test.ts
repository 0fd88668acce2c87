import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getPreset } from '../../src/config/presets/index.js';
import { ConfigSchema } from '../../src/config/schema.js';
import {
  hookOriginProblem,
  loadPresetHooks,
  presetHooksOf,
  resolveHookAgent,
} from '../../src/hooks/hook-origin.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { freshAgentState, saveAgentState } from '../../src/state/store.js';

describe('hookOriginProblem', () => {
  const state = { pane: '%3', preset: 'claude' };

  it('lets anything speak for an agent no bridge has recorded', () => {
    expect(
      hookOriginProblem({ agent: 'w1', presetHooks: 'none' }),
    ).toBeUndefined();
  });

  it("accepts a call from the agent's pane with a hooks preset", () => {
    expect(
      hookOriginProblem({
        agent: 'w1',
        state,
        tmuxPane: '%3',
        presetHooks: 'claude',
      }),
    ).toBeUndefined();
  });

  it('refuses another pane, or no pane at all', () => {
    expect(
      hookOriginProblem({
        agent: 'w1',
        state,
        tmuxPane: '%4',
        presetHooks: 'claude',
      }),
    ).toBe("it came from pane %4, not from w1's pane %3");
    expect(
      hookOriginProblem({ agent: 'w1', state, presetHooks: 'claude' }),
    ).toBe("it came from outside tmux, not from w1's pane %3");
  });

  it('refuses a preset without hooks', () => {
    expect(
      hookOriginProblem({
        agent: 'w1',
        state: { preset: 'aider' },
        presetHooks: 'none',
      }),
    ).toBe("w1's preset (aider) has no hooks");
  });
});

describe('presetHooksOf', () => {
  it("is the preset's hook kind, none when there is no preset or it is unknown", () => {
    expect(presetHooksOf('claude', undefined)).toBe('claude');
    expect(presetHooksOf('codex', undefined)).toBe('codex');
    expect(presetHooksOf('aider', undefined)).toBe('none');
    expect(presetHooksOf(undefined, undefined)).toBe('none');
    expect(presetHooksOf('no-such-preset', undefined)).toBe('none');
  });
});

describe('resolveHookAgent', () => {
  let paths: HomePaths;
  beforeEach(() => {
    paths = resolveHomePaths(
      mkdtempSync(path.join(os.tmpdir(), 'macs-origin-')),
    );
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  it('takes a valid name as given, and refuses an invalid one', async () => {
    expect(await resolveHookAgent(paths, { agent: 'w1' })).toEqual({
      type: 'found',
      agent: 'w1',
      via: 'name',
    });
    const bad = await resolveHookAgent(paths, { agent: '../x' });
    expect(bad).toEqual({
      type: 'none',
      why: "'../x' is not a valid agent name",
    });
  });

  it('needs a name or a pane', async () => {
    expect(await resolveHookAgent(paths, { agent: '' })).toEqual({
      type: 'none',
      why: 'neither MACS_AGENT nor TMUX_PANE is set',
    });
  });

  it('finds the agent recorded for the pane, the newest record first', async () => {
    const old = freshAgentState('w1', 'claude');
    old.pane = '%5';
    await saveAgentState(paths, old);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const newer = freshAgentState('w2', 'claude');
    newer.pane = '%5';
    await saveAgentState(paths, newer);
    expect(await resolveHookAgent(paths, { tmuxPane: '%5' })).toEqual({
      type: 'found',
      agent: 'w2',
      via: 'pane',
    });
  });

  it("falls back to the config's panes, then says why none was found", async () => {
    const config = ConfigSchema.parse({
      controller: { name: 'boss', pane: '%1' },
      workers: [{ name: 'w3', pane: '%7' }],
    });
    expect(await resolveHookAgent(paths, { tmuxPane: '%7', config })).toEqual({
      type: 'found',
      agent: 'w3',
      via: 'config',
    });
    expect(await resolveHookAgent(paths, { tmuxPane: '%1', config })).toEqual({
      type: 'found',
      agent: 'boss',
      via: 'config',
    });
    expect(await resolveHookAgent(paths, { tmuxPane: '%9', config })).toEqual({
      type: 'none',
      why: `no agent is recorded for pane %9 in ${paths.state}`,
    });
  });
});

describe('loadPresetHooks', () => {
  const withPresets = (presets: Record<string, unknown>) =>
    ConfigSchema.parse({ presets });

  it('reads a builtin without the preset lookup', async () => {
    expect(await loadPresetHooks('claude', undefined)).toBe('claude');
    expect(await loadPresetHooks('aider', withPresets({}))).toBe('none');
    expect(await loadPresetHooks(undefined, undefined)).toBe('none');
    expect(await loadPresetHooks('no-such-preset', undefined)).toBe('none');
  });

  it('resolves a preset the config defines: its own kind, or its base', async () => {
    const config = withPresets({
      mine: { extends: 'claude', description: 'my claude' },
      // A custom preset of a builtin's name replaces the builtin.
      codex: { extends: 'codex', hooks: 'none' },
      plain: { program: 'plain' },
    });
    expect(await loadPresetHooks('mine', config)).toBe('claude');
    expect(await loadPresetHooks('codex', config)).toBe('none');
    expect(await loadPresetHooks('plain', config)).toBe('none');
  });

  it('counts an invalid custom preset as having no hooks', async () => {
    const config = withPresets({
      broken: { extends: 'claude', hooks: 'sometimes' },
      loop: { extends: 'loop' },
    });
    expect(await loadPresetHooks('broken', config)).toBe('none');
    expect(await loadPresetHooks('loop', config)).toBe('none');
  });

  it('presetHooksOf alone does not resolve a custom preset', () => {
    const config = withPresets({ mine: { extends: 'claude' } });
    expect(presetHooksOf('mine', config)).toBe('none');
    expect(presetHooksOf('mine', config, getPreset)).toBe('claude');
  });
});
