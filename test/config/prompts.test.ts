import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadPrompt, PACKAGED_PROMPTS_DIR } from '../../src/config/prompts.js';
import { REPO_ROOT } from '../helpers/macs.js';
import { makeTempHome } from '../helpers/tmux-server.js';

describe('loadPrompt', () => {
  let home: string;
  let cleanup: () => void;
  beforeEach(() => ({ home, cleanup } = makeTempHome('macs-prompts-')));
  afterEach(() => cleanup());

  it('reads the packaged prompt by default', async () => {
    expect(PACKAGED_PROMPTS_DIR).toBe(`${path.join(REPO_ROOT, 'prompts')}/`);
    const prompt = await loadPrompt('controller', { home });
    expect(prompt?.file).toBe(path.join(REPO_ROOT, 'prompts', 'controller.md'));
    expect(prompt?.text).toContain('CONTROLLER_RESPONSE');
  });

  it('prefers <home>/prompts/<name>.md', async () => {
    mkdirSync(path.join(home, 'prompts'));
    writeFileSync(path.join(home, 'prompts', 'worker.md'), 'my own rules');
    expect(await loadPrompt('worker', { home })).toEqual({
      text: 'my own rules',
      file: path.join(home, 'prompts', 'worker.md'),
    });
  });

  it('is undefined when there is no prompt anywhere', async () => {
    expect(
      await loadPrompt('controller', { home, packagedDir: home }),
    ).toBeUndefined();
  });
});
