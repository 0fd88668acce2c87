// The real agents the `agents` suite drives, at the versions it was tried
// with (docs/agents.md). Newer Claude Code releases need Node 22.
import path from 'node:path';

export const AGENTS = [
  {
    name: 'claude',
    pkg: '@anthropic-ai/claude-code',
    version: '2.1.197',
    bin: 'claude',
  },
  { name: 'codex', pkg: '@openai/codex', version: '0.169.0', bin: 'codex' },
  {
    name: 'gemini',
    pkg: '@google/gemini-cli',
    version: '0.61.0',
    bin: 'gemini',
  },
];

/** Where one agent is installed: .cache/agents/<name>-<version> in the checkout. */
export function agentDir(root, agent) {
  return path.join(root, '.cache', 'agents', `${agent.name}-${agent.version}`);
}

/** The agent's command (npm's link in node_modules/.bin). */
export function agentBin(root, agent) {
  return path.join(agentDir(root, agent), 'node_modules', '.bin', agent.bin);
}
