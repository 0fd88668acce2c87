/**
 * Screen conformance: classify every `<agent>/<state>/*.txt` of the corpus
 * with the preset `<agent>` (or `generic` when macs has no such preset) and
 * report passed/total per agent and every miss. Exit 1 on any miss; exit 0
 * when the corpus folder does not exist.
 *
 *   tsx scripts/conformance.ts [dir]   (default: ../shared/fixtures/screens
 *                                       from the repository root)
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
const arg = process.argv[2];
const dir = arg === undefined ? defaultCorpusDir(repoRoot) : resolve(arg);

if (!existsSync(dir)) {
  console.log(`conformance: no corpus at ${dir}; nothing to check`);
  process.exit(0);
}

const results = listCorpusCases(dir).map(runCorpusCase);
const misses = results.filter((result) => !result.passed);

console.log(`conformance: ${dir}`);
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
