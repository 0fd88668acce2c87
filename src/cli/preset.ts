/**
 * `macs preset test <preset> <file>...`: print the state each screen capture
 * classifies as, for people writing presets. The commander wiring lives
 * elsewhere; this is the plain function it calls.
 */
import { getPreset } from '../config/presets/index.js';
import { errorMessage } from '../errors.js';
import { classifyScreen } from '../screen/classify.js';
import type { AgentStateName } from '../config/states.js';

export interface PresetTestOptions {
  preset: string;
  files: string[];
  json?: boolean;
  /** Custom presets from the config (`presets` in macs.config.json). */
  custom?: Record<string, unknown>;
}

export interface PresetTestDeps {
  readFile: (path: string) => Promise<string>;
  out: (line: string) => void;
}

export interface PresetTestResult {
  file: string;
  state: AgentStateName | null;
  rule: string | null;
  error?: string;
}

function formatLine(result: PresetTestResult): string {
  if (result.error !== undefined)
    return `${result.file}: error: ${result.error}`;
  const state = result.state ?? 'unknown';
  return result.rule === null
    ? `${result.file}: ${state}`
    : `${result.file}: ${state} (${result.rule})`;
}

/**
 * Classify each file with the preset and print `<file>: <state> (<rule>)`
 * per file, or one JSON array with `--json`. Resolves to 0, or 1 when a file
 * could not be read (the others are still reported). An unknown or invalid
 * preset throws a ConfigError (exit 2) whose hint lists the known presets.
 */
export async function runPresetTest(
  opts: PresetTestOptions,
  deps: PresetTestDeps,
): Promise<number> {
  const preset = getPreset(opts.preset, opts.custom);
  const results: PresetTestResult[] = [];
  for (const file of opts.files) {
    let screen: string;
    try {
      screen = await deps.readFile(file);
    } catch (error) {
      results.push({
        file,
        state: null,
        rule: null,
        error: errorMessage(error),
      });
      continue;
    }
    const { state, rule } = classifyScreen(screen, preset);
    results.push({ file, state, rule: rule ?? null });
  }
  if (opts.json) {
    deps.out(JSON.stringify(results, null, 2));
  } else {
    for (const result of results) deps.out(formatLine(result));
  }
  return results.some((result) => result.error !== undefined) ? 1 : 0;
}
