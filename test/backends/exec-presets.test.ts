import { describe, expect, it } from 'vitest';
import {
  EXEC_PRESETS,
  parseExecValues,
  resolveExecArgv,
  substituteExecArgv,
} from '../../src/backends/exec-presets.js';
import { ConfigError } from '../../src/errors.js';

describe('parseExecValues', () => {
  it.each<[string[], string[]]>([
    [
      ['claude', '-p'],
      ['claude', '-p'],
    ],
    [['["codex","exec","-"]'], ['codex', 'exec', '-']],
    [
      ['node', '["a b", "c"]', '--x'],
      ['node', 'a b', 'c', '--x'],
    ],
    // Not a JSON array of strings: taken as one argument, as written.
    [['[not json'], ['[not json']],
    [['[1, 2]'], ['[1, 2]']],
    [
      ['x', 'my answerer; rm -rf ~'],
      ['x', 'my answerer; rm -rf ~'],
    ],
  ])('%j -> %j', (values, argv) => {
    expect(parseExecValues(values)).toEqual(argv);
  });
});

it('refuses one --exec value with spaces, which would name no program', () => {
  expect(() => parseExecValues(['claude -p'])).toThrow(
    /one --exec per argument/,
  );
  expect(() => parseExecValues(['claude -p'])).toThrow(ConfigError);
});

describe('resolveExecArgv', () => {
  const config = { exec: ['from-config'], execPreset: 'gemini' as const };

  it('prefers --exec, then --exec-preset, then exec, then execPreset', () => {
    expect(
      resolveExecArgv({ flagExec: ['x', 'y'], flagPreset: 'claude', config }),
    ).toEqual({ argv: ['x', 'y'], from: '--exec' });
    expect(resolveExecArgv({ flagPreset: 'claude', config })).toEqual({
      argv: [...EXEC_PRESETS.claude],
      from: '--exec-preset claude',
    });
    expect(resolveExecArgv({ config })).toEqual({
      argv: ['from-config'],
      from: 'exec',
    });
    expect(resolveExecArgv({ config: { execPreset: 'codex' } })?.argv).toEqual([
      ...EXEC_PRESETS.codex,
    ]);
    expect(resolveExecArgv({ config: {} })).toBeUndefined();
  });

  it('refuses an unknown preset with the known ones in the hint', () => {
    expect(() => resolveExecArgv({ flagPreset: 'gpt', config: {} })).toThrow(
      ConfigError,
    );
  });
});

describe('EXEC_PRESETS', () => {
  it('keep codex read-only and its last message in {outputFile}, reading stdin', () => {
    expect(EXEC_PRESETS.codex).toEqual([
      'codex',
      'exec',
      '--sandbox',
      'read-only',
      '--skip-git-repo-check',
      '--color',
      'never',
      '--output-last-message',
      '{outputFile}',
      '-',
    ]);
    expect(EXEC_PRESETS.claude).toContain('plan');
    expect(EXEC_PRESETS.gemini.slice(0, 2)).toEqual(['gemini', '-p']);
  });
});

describe('substituteExecArgv', () => {
  const values = {
    promptFile: '/tmp/d/request.txt',
    outputFile: '/tmp/d/answer.txt',
    id: 'worker-1-q1',
    agent: 'worker-1',
    type: 'question',
  };

  it('replaces placeholders inside arguments and says which files are used', () => {
    expect(
      substituteExecArgv(
        ['x', '--in={promptFile}', '{id}/{agent}/{type}', '{unknown}'],
        values,
      ),
    ).toEqual({
      argv: [
        'x',
        '--in=/tmp/d/request.txt',
        'worker-1-q1/worker-1/question',
        '{unknown}',
      ],
      usesPromptFile: true,
      usesOutputFile: false,
    });
    expect(substituteExecArgv(EXEC_PRESETS.codex, values).usesOutputFile).toBe(
      true,
    );
  });
});
