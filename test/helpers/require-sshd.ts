import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { SSHD } from './ssh-hosts.js';

/**
 * Global setup of the integration project: the remote tests' test hosts run
 * Debian's sshd (docs/remote.md, "Test hosts"). When it is missing and this
 * runs as root with apt-get, it is installed, as scripts/setup.sh installs
 * tmux. It never fails the other tests: where sshd cannot be had, the remote
 * tests fail with a clear message (test/helpers/ssh-hosts.ts).
 */
export default function requireSshd(): void {
  if (existsSync(SSHD)) return;
  if (process.getuid?.() !== 0) return;
  try {
    execFileSync('apt-get', ['install', '-y', '-qq', 'openssh-server'], {
      stdio: 'ignore',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 300_000,
    });
  } catch {
    try {
      execFileSync('apt-get', ['update', '-qq'], {
        stdio: 'ignore',
        timeout: 300_000,
      });
      execFileSync('apt-get', ['install', '-y', '-qq', 'openssh-server'], {
        stdio: 'ignore',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
        timeout: 300_000,
      });
    } catch {
      // The remote tests say what is missing.
    }
  }
}
