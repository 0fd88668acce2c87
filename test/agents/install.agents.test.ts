import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { agent } from './pins.js';

// The pinned agents run on this Node: each prints its own pinned version.
describe('the real agents are installed at their pinned versions', () => {
  for (const name of ['claude', 'codex', 'gemini'] as const) {
    it(`${name} --version`, () => {
      const { bin, version } = agent(name);
      const out = execFileSync(bin, ['--version'], {
        encoding: 'utf8',
        env: { ...process.env, TMUX: '', TMUX_PANE: '', NO_COLOR: '1' },
        timeout: 60_000,
      });
      expect(out).toContain(version);
    });
  }
});
