// Runs the shared screen corpus (SPEC §6: ../shared/fixtures/screens) with
// the builtin presets: every capture must classify as its folder's state.
// Skipped when the corpus is not checked out next to the repository.
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

describe.skipIf(!existsSync(dir))('screen corpus conformance', () => {
  it('has captures to check', () => {
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
