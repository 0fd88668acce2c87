import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultCorpusDir,
  listCorpusCases,
  runCorpusCase,
  summarizeCorpus,
} from '../../src/screen/corpus.js';

let dir: string;

function put(path: string, text: string): void {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, text);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'macs-corpus-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('corpus', () => {
  it('resolves the default folder next to the repository', () => {
    expect(defaultCorpusDir('/work/main')).toBe(
      '/work/shared/fixtures/screens',
    );
  });

  it('lists nothing for a missing folder', () => {
    expect(listCorpusCases(join(dir, 'nope'))).toEqual([]);
  });

  it('walks <agent>/<state>/*.txt, sorted, skipping other files', () => {
    put('shell/idle/b.txt', 'user@box:~$');
    put('shell/idle/a.txt', 'user@box:~$');
    put('shell/idle/notes.md', 'not a capture');
    put('aaa/working/x.txt', 'x');
    expect(listCorpusCases(dir).map((item) => item.name)).toEqual([
      'aaa/working/x.txt',
      'shell/idle/a.txt',
      'shell/idle/b.txt',
    ]);
  });

  it('classifies with the agent preset, or generic for an unknown agent', () => {
    put('shell/idle/ok.txt', 'user@box:~$');
    put('shell/error/miss.txt', 'user@box:~$');
    put('mystery/working/x.txt', '⠋ Thinking...');
    const results = listCorpusCases(dir).map(runCorpusCase);
    expect(results.map((r) => [r.name, r.preset, r.got, r.passed])).toEqual([
      ['mystery/working/x.txt', 'generic', 'working', true],
      ['shell/error/miss.txt', 'shell', 'idle', false],
      ['shell/idle/ok.txt', 'shell', 'idle', true],
    ]);
    expect(summarizeCorpus(results)).toEqual([
      { agent: 'mystery', passed: 1, total: 1 },
      { agent: 'shell', passed: 1, total: 2 },
    ]);
  });
});
