/**
 * Screen conformance: classify every `<agent>/<state>/*.txt` of the corpus
 * with the preset `<agent>` (or `generic` when macs has no such preset) and
 * report passed/total per agent and every miss. Exit 1 on any miss; a
 * corpus folder that does not exist is passed over.
 *
 *   tsx scripts/conformance.ts [dir…]  (default: ../shared/fixtures/screens,
 *                                       real screens the project did not
 *                                       write, and test/fixtures/screens, the
 *                                       captures of the real-agent suite)
 */
import { fileURLToPath } from 'node:url';
import {
  defaultCorpusDir,
  listCorpusCases,
  runCorpusCase,
  summarizeCorpus,
} from '../src/screen/corpus.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const dirs =
  args.length > 0
    ? args.map((arg) => resolve(arg))
    : [defaultCorpusDir(repoRoot), resolve(repoRoot, 'test/fixtures/screens')];

const results = [];
for (const dir of dirs) {
  if (!existsSync(dir)) {
    // Not silent: a missing corpus fails the run, unless asked for.
    if (process.env.MACS_NO_SHARED_CORPUS === '1') {
      console.log(
        `conformance: no corpus at ${dir}; passed over (MACS_NO_SHARED_CORPUS=1)`,
      );
      continue;
    }
    console.error(
      `conformance: no corpus at ${dir}: check the shared fixtures out next to the repository (../shared), or set MACS_NO_SHARED_CORPUS=1 to pass over it`,
    );
    process.exit(1);
  }
  console.log(`conformance: ${dir}`);
  results.push(...listCorpusCases(dir).map(runCorpusCase));
}
const misses = results.filter((result) => !result.passed);

for (const { agent, passed, total } of summarizeCorpus(results)) {
  const preset = results.find((result) => result.agent === agent)?.preset;
  const note = preset === agent ? '' : ` (preset ${preset ?? '?'})`;
  console.log(`  ${agent.padEnd(10)} ${passed}/${total}${note}`);
}
for (const miss of misses) {
  console.log(
    `MISS ${miss.name}: expected ${miss.expected}, got ${miss.got}` +
      (miss.rule === undefined ? '' : ` (${miss.rule})`),
  );
}
console.log(
  `${results.length - misses.length}/${results.length} passed` +
    (misses.length > 0 ? `, ${misses.length} missed` : ''),
);
process.exit(misses.length > 0 ? 1 : 0);
