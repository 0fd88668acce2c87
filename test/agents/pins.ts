/**
 * The installed real agents, for the `agents` tests: where each one's
 * command is (installed by scripts/agents/install.mjs into .cache/agents).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain .mjs module shared with the install script
import { AGENTS, agentBin } from '../../scripts/agents/pins.mjs';

export const ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../..',
);

interface Pin {
  name: 'claude' | 'codex' | 'gemini';
  pkg: string;
  version: string;
  bin: string;
}

const pins = AGENTS as Pin[];

/** The pinned version and the absolute path of an agent's command. */
export function agent(name: Pin['name']): { version: string; bin: string } {
  const pin = pins.find((p) => p.name === name);
  if (!pin) throw new Error(`no pinned agent named ${name}`);
  return { version: pin.version, bin: agentBin(ROOT, pin) as string };
}
