import { execFileSync } from 'node:child_process';
import { hasTmux } from '../helpers/tmux-server.js';

/**
 * Global setup of the `agents` project: tmux and the pinned real agents must
 * be there. The agents are installed into .cache/agents when missing; a
 * failed install fails the suite with npm's message, never a silent skip.
 */
export default function requireAgents(): void {
  if (!hasTmux()) {
    throw new Error(
      'tmux is required for the agents tests but was not found on PATH: run ./scripts/setup.sh (Debian/Ubuntu: apt-get install -y tmux)',
    );
  }
  try {
    execFileSync(process.execPath, ['scripts/agents/install.mjs'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  } catch {
    throw new Error(
      'the real agents could not be installed into .cache/agents (see npm output above): npm run agents:install',
    );
  }
}
