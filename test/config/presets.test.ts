import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import {
  BUILTIN_PRESETS,
  findPresetForProgram,
  getPreset,
  listPresetNames,
} from '../../src/config/presets/index.js';
import { parsePreset, SCREEN_STATES } from '../../src/config/presets/types.js';
import { classifyScreen } from '../../src/screen/classify.js';

const BUILTIN_NAMES = [
  'aider',
  'claude',
  'codex',
  'gemini',
  'generic',
  'pi',
  'shell',
];

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('parsePreset', () => {
  it('fills in every default', () => {
    expect(parsePreset({ name: 'x', program: 'x' })).toEqual({
      name: 'x',
      description: '',
      program: 'x',
      args: [],
      states: { working: [], idle: [], approval: [], error: [] },
      submitKey: 'Enter',
      submitDelayMs: 200,
      paste: { bracketed: true, maxLiteralChars: 200 },
      hooks: 'none',
      knownScreens: false,
      busyMarker: 'esc to interrupt',
    });
  });

  it('turns a bare pattern into a rule object', () => {
    const preset = parsePreset({
      name: 'x',
      program: 'x',
      states: { idle: ['^> $', { pattern: 'ready', lastLines: 2, name: 'r' }] },
    });
    expect(preset.states.idle).toEqual([
      { pattern: '^> $', ignoreCase: false },
      { pattern: 'ready', lastLines: 2, name: 'r', ignoreCase: false },
    ]);
  });

  it.each([
    ['an invalid regex', { states: { idle: ['(unclosed'] } }, 'states.idle.0'],
    ['an unknown key', { colour: 'red' }, 'colour'],
    ['an unknown state', { states: { busy: [] } }, 'states'],
    ['a bad hooks kind', { hooks: 'gemini' }, 'hooks'],
    ['a negative delay', { submitDelayMs: -1 }, 'submitDelayMs'],
    [
      'a zero lastLines',
      { states: { error: [{ pattern: 'x', lastLines: 0 }] } },
      'states.error.0',
    ],
  ])(
    'rejects %s with a ConfigError naming the field',
    (_label, extra, path) => {
      const error = thrown(() =>
        parsePreset({ name: 'bad', program: 'x', ...extra }),
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).exitCode).toBe(2);
      expect((error as ConfigError).message).toContain('preset "bad"');
      expect((error as ConfigError).message).toContain(path);
    },
  );
});

describe('builtin presets', () => {
  it('has the SPEC §8 set', () => {
    expect(Object.keys(BUILTIN_PRESETS).sort()).toEqual(BUILTIN_NAMES);
    expect(listPresetNames()).toEqual(BUILTIN_NAMES);
  });

  it.each(BUILTIN_NAMES)(
    '%s: valid, named after its key, rules compile',
    (name) => {
      const preset = getPreset(name);
      expect(preset.name).toBe(name);
      expect(parsePreset(preset)).toEqual(preset);
      for (const state of SCREEN_STATES) {
        for (const rule of preset.states[state]) {
          expect(() => new RegExp(rule.pattern, 'm')).not.toThrow();
          expect(rule.name, `${name} ${state} rule names`).toMatch(/^[a-z-]+$/);
        }
      }
    },
  );

  it('submits with Enter after the default delay, except the shell', () => {
    for (const name of BUILTIN_NAMES) {
      expect(getPreset(name).submitKey).toBe('Enter');
    }
    expect(getPreset('claude').submitDelayMs).toBe(200);
    expect(getPreset('shell').submitDelayMs).toBeLessThan(200);
  });

  it('declares the hooks each agent supports', () => {
    expect(getPreset('claude').hooks).toBe('claude');
    expect(getPreset('codex').hooks).toBe('codex');
    expect(getPreset('gemini').hooks).toBe('none');
  });
});

describe('getPreset', () => {
  it('throws a ConfigError listing the known presets for an unknown name', () => {
    const error = thrown(() =>
      getPreset('cursor', { mine: { program: 'mine' } }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe('unknown preset "cursor"');
    expect((error as ConfigError).hint).toBe(
      `known presets: ${[...BUILTIN_NAMES, 'mine'].join(', ')}`,
    );
  });

  it('returns a complete custom preset', () => {
    const preset = getPreset('repl', {
      repl: { program: 'node', states: { idle: ['^>$'] }, busyMarker: null },
    });
    expect(preset.name).toBe('repl');
    expect(preset.program).toBe('node');
    expect(preset.states.working).toEqual([]);
    // Lines are right-trimmed before matching, so `> ` reads as `>`.
    expect(classifyScreen('Welcome\n> ', preset).state).toBe('idle');
    expect(classifyScreen('Welcome\n> x', preset).state).toBe('unknown');
  });

  it('requires program when nothing is extended', () => {
    expect(() => getPreset('half', { half: { submitKey: 'C-m' } })).toThrow(
      /invalid preset "half": program/,
    );
  });

  it('extends a builtin: own rules first, base rules kept, fields replaced', () => {
    const custom = {
      'claude-wrapped': {
        extends: 'claude',
        program: 'cw',
        submitDelayMs: 500,
        paste: { maxLiteralChars: 0 },
        states: {
          working: [{ name: 'wrapper-busy', pattern: '^\\[wrapper\\] busy' }],
        },
      },
    };
    const preset = getPreset('claude-wrapped', custom);
    const claude = getPreset('claude');
    expect(preset.program).toBe('cw');
    expect(preset.hooks).toBe('claude');
    expect(preset.submitDelayMs).toBe(500);
    expect(preset.paste).toEqual({ bracketed: true, maxLiteralChars: 0 });
    expect(preset.states.working.map((rule) => rule.name)).toEqual([
      'wrapper-busy',
      ...claude.states.working.map((rule) => rule.name),
    ]);
    expect(preset.states.idle).toEqual(claude.states.idle);
    expect(classifyScreen('[wrapper] busy', preset)).toEqual({
      state: 'working',
      rule: 'working:wrapper-busy',
    });
  });

  it('extends a custom preset that extends a builtin', () => {
    const preset = getPreset('b', {
      a: { extends: 'shell', program: 'zsh' },
      b: { extends: 'a', submitKey: 'C-m' },
    });
    expect(preset).toMatchObject({
      name: 'b',
      program: 'zsh',
      submitKey: 'C-m',
    });
    expect(preset.states.idle).toEqual(getPreset('shell').states.idle);
  });

  it('lets a custom preset replace a builtin of the same name', () => {
    const preset = getPreset('aider', {
      aider: { extends: 'aider', args: ['--no-git'] },
    });
    expect(preset.args).toEqual(['--no-git']);
    expect(preset.program).toBe('aider');
  });

  it('reports an extends cycle', () => {
    expect(() =>
      getPreset('a', { a: { extends: 'b' }, b: { extends: 'a' } }),
    ).toThrow(/extends itself: a -> b -> a/);
  });

  it('reports an unknown base and bad custom fields as ConfigErrors', () => {
    expect(
      thrown(() => getPreset('x', { x: { extends: 'nope' } })),
    ).toBeInstanceOf(ConfigError);
    const error = thrown(() =>
      getPreset('x', { x: { extends: 'shell', colour: 1 } }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('presets.x');
  });
});

describe('findPresetForProgram', () => {
  it('matches by program, custom presets first, else generic', () => {
    expect(findPresetForProgram('claude').name).toBe('claude');
    expect(findPresetForProgram('bash').name).toBe('shell');
    expect(findPresetForProgram('htop').name).toBe('generic');
    expect(findPresetForProgram('', {}).name).toBe('generic');
    const custom = { zsh: { extends: 'shell', program: 'zsh' } };
    expect(findPresetForProgram('zsh', custom).name).toBe('zsh');
  });

  // Seen with `macs start --worker sh`: the generic preset typed the worker
  // protocol into sh, which ran its lines as commands.
  it('gives every shell the shell preset, which sends no first message', () => {
    for (const shell of ['sh', 'dash', 'zsh', 'fish', '-bash'])
      expect(findPresetForProgram(shell).name, shell).toBe('shell');
  });
});
