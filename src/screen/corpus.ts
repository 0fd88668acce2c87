/**
 * The screen conformance corpus: `<dir>/<agent>/<state>/*.txt`, each file a
 * capture whose folder names the expected state for that agent's preset.
 * Shared by scripts/conformance.ts and test/screen/conformance.test.ts.
 *
 * Not a pure module: it reads the folder with node:fs.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  BUILTIN_PRESETS,
  DEFAULT_PRESET_NAME,
  getPreset,
} from '../config/presets/index.js';
import type { Preset } from '../config/presets/types.js';
import type { AgentStateName } from '../config/states.js';
import { classifyScreen } from './classify.js';

/** Where the corpus lives relative to the repository root (SPEC §6). */
export const CORPUS_DIR_FROM_REPO = '../shared/fixtures/screens';

export interface CorpusCase {
  agent: string;
  expected: string;
  /** `<agent>/<state>/<file>`. */
  name: string;
  path: string;
}

export interface CorpusResult extends CorpusCase {
  /** The preset used: the agent's, or `generic` when there is none. */
  preset: string;
  got: AgentStateName;
  rule?: string;
  passed: boolean;
}

export interface AgentSummary {
  agent: string;
  passed: number;
  total: number;
}

/** The default corpus folder for a repository root. */
export function defaultCorpusDir(repoRoot: string): string {
  return resolve(repoRoot, CORPUS_DIR_FROM_REPO);
}

function subdirs(dir: string): string[] {
  return readdirSync(dir)
    .filter((entry) => statSync(join(dir, entry)).isDirectory())
    .sort();
}

/** Every `<agent>/<state>/*.txt` below dir, sorted; [] when dir is missing. */
export function listCorpusCases(dir: string): CorpusCase[] {
  if (!existsSync(dir)) return [];
  const cases: CorpusCase[] = [];
  for (const agent of subdirs(dir)) {
    for (const expected of subdirs(join(dir, agent))) {
      const stateDir = join(dir, agent, expected);
      for (const file of readdirSync(stateDir).sort()) {
        if (!file.endsWith('.txt')) continue;
        cases.push({
          agent,
          expected,
          name: `${agent}/${expected}/${file}`,
          path: join(stateDir, file),
        });
      }
    }
  }
  return cases;
}

/** The preset a corpus agent folder is checked with. */
export function presetForAgent(agent: string): Preset {
  return getPreset(agent in BUILTIN_PRESETS ? agent : DEFAULT_PRESET_NAME);
}

/** Classify one corpus file. */
export function runCorpusCase(item: CorpusCase): CorpusResult {
  const preset = presetForAgent(item.agent);
  const { state, rule } = classifyScreen(
    readFileSync(item.path, 'utf8'),
    preset,
  );
  return {
    ...item,
    preset: preset.name,
    got: state,
    ...(rule === undefined ? {} : { rule }),
    passed: state === item.expected,
  };
}

/** Passed/total per agent, in agent order. */
export function summarizeCorpus(
  results: readonly CorpusResult[],
): AgentSummary[] {
  const byAgent = new Map<string, AgentSummary>();
  for (const result of results) {
    const summary = byAgent.get(result.agent) ?? {
      agent: result.agent,
      passed: 0,
      total: 0,
    };
    summary.total += 1;
    if (result.passed) summary.passed += 1;
    byAgent.set(result.agent, summary);
  }
  return [...byAgent.values()];
}
