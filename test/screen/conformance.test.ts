// Runs the shared screen corpus (SPEC §6: ../shared/fixtures/screens) with
// the builtin presets: every capture must classify as its folder's state.
// A missing corpus fails the test (check it out next to the repository),
// unless MACS_NO_SHARED_CORPUS=1 says to pass over it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  defaultCorpusDir,
  listCorpusCases,
  runCorpusCase,
} from '../../src/screen/corpus.js';

const dir = defaultCorpusDir(fileURLToPath(new URL('../..', import.meta.url)));
const cases = listCorpusCases(dir);

const passOver = process.env.MACS_NO_SHARED_CORPUS === '1';

describe.skipIf(passOver)('screen corpus conformance', () => {
  it('has captures to check', () => {
    expect(
      existsSync(dir),
      `no shared screen corpus at ${dir}: check ../shared out next to the repository, or set MACS_NO_SHARED_CORPUS=1`,
    ).toBe(true);
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases.map((item) => [item.name, item] as const))(
    '%s',
    (_name, item) => {
      const result = runCorpusCase(item);
      expect(
        { state: result.got, rule: result.rule },
        `classified with preset ${result.preset}`,
      ).toMatchObject({ state: item.expected });
    },
  );
});
