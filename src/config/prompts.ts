import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { packagedPromptsDir } from './package.js';

/** The prompts macs gives agents (the protocol as they are told it). */
export type PromptName = 'controller' | 'controller-mcp' | 'worker';

/** `prompts/` of the installed package (next to `dist/`, and to `src/` in development). */
export const PACKAGED_PROMPTS_DIR = packagedPromptsDir();

export interface LoadedPrompt {
  text: string;
  /** The file it was read from. */
  file: string;
}

/**
 * A prompt by name: `<home>/prompts/<name>.md` when the user has one (their
 * override), else the packaged `prompts/<name>.md`. Undefined when neither
 * can be read.
 */
export async function loadPrompt(
  name: PromptName,
  options: { home: string; packagedDir?: string },
): Promise<LoadedPrompt | undefined> {
  const candidates = [
    path.join(options.home, 'prompts', `${name}.md`),
    path.join(options.packagedDir ?? PACKAGED_PROMPTS_DIR, `${name}.md`),
  ];
  for (const file of candidates) {
    try {
      return { text: await readFile(file, 'utf8'), file };
    } catch {
      // not there: try the next
    }
  }
  return undefined;
}
