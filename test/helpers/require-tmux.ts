import { hasTmux } from './tmux-server.js';

/**
 * Global setup of the integration project: these tests drive a real tmux and
 * must fail, not skip, where it is missing (CI included).
 */
export default function requireTmux(): void {
  if (!hasTmux()) {
    throw new Error(
      'tmux is required for the integration tests but was not found on PATH: run ./scripts/setup.sh (Debian/Ubuntu: apt-get install -y tmux)',
    );
  }
}
