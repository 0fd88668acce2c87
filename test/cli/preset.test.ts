import { describe, expect, it } from 'vitest';
import { runPresetTest } from '../../src/cli/preset.js';
import { ConfigError } from '../../src/errors.js';

const RULE = '─'.repeat(40);
const FILES: Record<string, string> = {
  'busy.txt': `● Reading files\n\n✳ Pondering… (esc to interrupt · 4s)\n\n${RULE}\n❯ \n${RULE}\n`,
  'idle.txt': `● Done.\n\n${RULE}\n❯ \n${RULE}\n  ? for shortcuts\n`,
  'blank.txt': '\n\n',
};

function harness() {
  const lines: string[] = [];
  const deps = {
    readFile: (path: string) => {
      const text = FILES[path];
      return text === undefined
        ? Promise.reject(new Error(`ENOENT: no such file, open '${path}'`))
        : Promise.resolve(text);
    },
    out: (line: string) => {
      lines.push(line);
    },
  };
  return { deps, lines };
}

describe('runPresetTest', () => {
  it('prints <file>: <state> (<rule>) per file and exits 0', async () => {
    const { deps, lines } = harness();
    const code = await runPresetTest(
      { preset: 'claude', files: ['busy.txt', 'idle.txt', 'blank.txt'] },
      deps,
    );
    expect(code).toBe(0);
    expect(lines).toEqual([
      'busy.txt: working (working:spinner-status)',
      'idle.txt: idle (idle:ruled-composer)',
      'blank.txt: unknown',
    ]);
  });

  it('prints one JSON array with --json', async () => {
    const { deps, lines } = harness();
    await runPresetTest(
      { preset: 'claude', files: ['idle.txt', 'blank.txt'], json: true },
      deps,
    );
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toEqual([
      { file: 'idle.txt', state: 'idle', rule: 'idle:ruled-composer' },
      { file: 'blank.txt', state: 'unknown', rule: null },
    ]);
  });

  it('reports an unreadable file, still checks the rest, and exits 1', async () => {
    const { deps, lines } = harness();
    const code = await runPresetTest(
      { preset: 'claude', files: ['gone.txt', 'idle.txt'] },
      deps,
    );
    expect(code).toBe(1);
    expect(lines).toEqual([
      "gone.txt: error: ENOENT: no such file, open 'gone.txt'",
      'idle.txt: idle (idle:ruled-composer)',
    ]);
  });

  it('throws a ConfigError (exit 2) listing the presets for an unknown preset', async () => {
    const { deps, lines } = harness();
    const failure = runPresetTest(
      { preset: 'cursor', files: ['idle.txt'] },
      deps,
    );
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toMatchObject({
      exitCode: 2,
      message: 'unknown preset "cursor"',
      hint: 'known presets: aider, claude, codex, gemini, generic, pi, shell',
    });
    expect(lines).toEqual([]);
  });

  it('uses custom presets from the config', async () => {
    const { deps, lines } = harness();
    const custom = {
      mine: {
        extends: 'generic',
        program: 'mine',
        states: { idle: [{ name: 'done', pattern: '^● Done\\.$' }] },
      },
    };
    await runPresetTest({ preset: 'mine', files: ['idle.txt'], custom }, deps);
    expect(lines).toEqual(['idle.txt: idle (idle:done)']);
  });
});
