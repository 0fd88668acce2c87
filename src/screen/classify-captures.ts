/**
 * `macs preset test`'s work (docs/presets.md): each screen capture a preset
 * author saved, classified with a preset as the bridge would classify it.
 */
import { getPreset } from '../config/presets/index.js';
import type { AgentStateName } from '../config/states.js';
import { errorMessage } from '../errors.js';
import { classifyScreen } from './classify.js';

/** One capture's verdict: its state and the rule that matched, or why it was not read. */
export interface CaptureVerdict {
  file: string;
  state: AgentStateName | null;
  rule: string | null;
  error?: string;
}

/**
 * Classify each file with the preset `name` (custom presets from the config
 * first). A file that cannot be read gets its error and the others are still
 * classified; an unknown or invalid preset throws getPreset's ConfigError.
 */
export async function classifyCaptures(
  name: string,
  custom: Record<string, unknown> | undefined,
  files: readonly string[],
  readFile: (file: string) => Promise<string>,
): Promise<CaptureVerdict[]> {
  const preset = getPreset(name, custom);
  const verdicts: CaptureVerdict[] = [];
  for (const file of files) {
    let screen: string;
    try {
      screen = await readFile(file);
    } catch (error) {
      verdicts.push({
        file,
        state: null,
        rule: null,
        error: errorMessage(error),
      });
      continue;
    }
    const { state, rule } = classifyScreen(screen, preset);
    verdicts.push({ file, state, rule: rule ?? null });
  }
  return verdicts;
}
