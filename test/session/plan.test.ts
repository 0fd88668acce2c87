import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { agentsFromFlags, planAgents } from '../../src/session/plan.js';

const config = (input: unknown) => ConfigSchema.parse(input);

describe('planning the agents of macs start', () => {
  it('names --worker and --controller agents and detects their presets from the program', () => {
    const flags = agentsFromFlags({
      workers: ['codex --full-auto', 'node agent.js'],
      controller: 'claude',
    });
    const plan = planAgents(config(flags), '/home/p');
    expect(plan.map((a) => [a.name, a.role, a.preset.name])).toEqual([
      ['controller', 'controller', 'claude'],
      ['worker-1', 'worker', 'codex'],
      ['worker-2', 'worker', 'generic'],
    ]);
    expect(plan[1]?.command).toEqual({
      kind: 'shell',
      text: 'codex --full-auto',
    });
    expect(plan[1]?.cwd).toBe('/home/p');
  });

  it('sends the worker protocol as the first message only to workers without hooks (not a shell)', () => {
    const plan = planAgents(
      config({
        controller: { name: 'c', preset: 'generic', command: 'x' },
        workers: [
          { name: 'g', command: 'node a.js' },
          { name: 'cl', preset: 'claude' },
          { name: 'sh', preset: 'shell' },
          { name: 'forced', preset: 'claude', prompt: true },
          { name: 'off', command: 'node a.js', prompt: false },
          { name: 'plain-sh', command: 'sh' },
          { name: 'zsh', preset: 'my-zsh' },
        ],
        presets: { 'my-zsh': { extends: 'generic', program: 'zsh' } },
      }),
      '/h',
    );
    expect(Object.fromEntries(plan.map((a) => [a.name, a.prompt]))).toEqual({
      c: false,
      g: true,
      cl: false,
      sh: false,
      forced: true,
      off: false,
      'plain-sh': false,
      zsh: false,
    });
    expect(plan.find((a) => a.name === 'plain-sh')?.preset.name).toBe('shell');
    expect(plan.find((a) => a.name === 'cl')?.command).toEqual({
      kind: 'argv',
      argv: ['claude'],
    });
  });

  it.each([
    [{}, /no workers/],
    [
      {
        workers: [
          { name: 'a', command: 'x' },
          { name: 'a', command: 'y' },
        ],
      },
      /used twice/,
    ],
    [{ workers: [{ name: 'a', preset: 'generic' }] }, /no command/],
    [{ workers: [{ name: 'a' }] }, /needs a command or a preset/],
    [{ workers: [{ name: 'a', preset: 'nope' }] }, /unknown preset/],
  ])('refuses %j', (input, message) => {
    expect(() => planAgents(config(input), '/h')).toThrow(message);
  });

  it('plans the full example of docs/config.md, loaded from a real file', async () => {
    const doc = readFileSync(
      path.join(import.meta.dirname, '../../docs/config.md'),
      'utf8',
    );
    const json =
      /## A full example[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const home = mkdtempSync(path.join(os.tmpdir(), 'macs-plan-'));
    try {
      writeFileSync(path.join(home, 'macs.config.json'), json);
      const { config: loaded } = await loadConfig({ home, env: {} });
      const plan = planAgents(loaded, home);
      expect(plan.map((a) => [a.name, a.preset.name, a.worktree])).toEqual([
        ['controller', 'claude', false],
        ['api', 'codex', true],
        ['docs', 'aider', true],
      ]);
      expect(plan[2]?.cwd).toBe(path.join(home, 'docs'));
      expect(loaded.stopGraceSec).toBe(10);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
