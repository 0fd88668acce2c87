// The codex preset against the real Codex CLI screens in
// test/fixtures/screens/codex/<state>/ (captured by
// test/agents/codex.agents.test.ts with MACS_UPDATE_SCREENS=1, and by hand
// where a state cannot be brought about on purpose, see docs/agents.md).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/config/presets/index.js';
import { classifyScreen } from '../../src/screen/classify.js';

const DIR = fileURLToPath(
  new URL('../fixtures/screens/codex/', import.meta.url),
);
const cases = readdirSync(DIR)
  .filter((state) => statSync(path.join(DIR, state)).isDirectory())
  .flatMap((state) =>
    readdirSync(path.join(DIR, state))
      .filter((f) => f.endsWith('.txt'))
      .map((f) => [`${state}/${f}`, state, path.join(DIR, state, f)] as const),
  );

describe('codex preset on real Codex screens', () => {
  it('has captures', () => expect(cases.length).toBeGreaterThan(0));

  it.each(cases)('%s', (_name, state, file) => {
    const result = classifyScreen(
      readFileSync(file, 'utf8'),
      getPreset('codex'),
    );
    expect({ state: result.state, rule: result.rule }).toMatchObject({ state });
  });

  // Issue 17, item 7: a message submitted while Codex starts waits under
  // "Waiting for startup · esc cancel"; the composer above it is no prompt.
  it('"Waiting for startup · esc cancel" is working, not idle', () => {
    const screen = readFileSync(
      path.join(DIR, 'working', 'waiting-for-startup-0.169.0.txt'),
      'utf8',
    );
    expect(classifyScreen(screen, getPreset('codex'))).toMatchObject({
      state: 'working',
      rule: 'working:waiting-cancel',
    });
  });
});

describe('codex preset: an error cell is an error only while it is the last cell', () => {
  const real = readFileSync(
    path.join(DIR, 'error', 'api-error-400-above-composer-0.169.0.txt'),
    'utf8',
  );
  it('the real screen: the error above the composer (blank rows between) is error', () => {
    expect(classifyScreen(real, getPreset('codex')).state).toBe('error');
  });
  it('a later turn that answered (the error further up) is idle', () => {
    const later = real.replace(
      /\n(\s*› Ask Codex to do anything)/,
      '\n› Try again.\n\n• It worked this time.\n\n  Worked for 1s • 12:40\n\n$1',
    );
    expect(later).toContain('It worked this time.');
    expect(classifyScreen(later, getPreset('codex')).state).toBe('idle');
  });
});
