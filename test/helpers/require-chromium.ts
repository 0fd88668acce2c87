import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's chromium, which the web tests drive (never a browser from npm). */
export const CHROMIUM = process.env.MACS_TEST_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Global setup of the web tests: they need a real browser. Debian's
 * `chromium` is installed when missing (as root, `apt-get install -y
 * chromium`); without root or apt the tests fail here with what to do,
 * never skip.
 */
export default function requireChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const isRoot = process.getuid?.() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    try {
      execFileSync('apt-get', ['install', '-y', 'chromium'], {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
        timeout: 15 * 60_000,
      });
    } catch {
      // apt's lists may be stale: once more after an update.
      execFileSync('apt-get', ['update'], { stdio: 'inherit' });
      execFileSync('apt-get', ['install', '-y', 'chromium'], {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    }
  }
  if (!existsSync(CHROMIUM))
    throw new Error(
      `chromium is required for the web tests but ${CHROMIUM} is missing: install it as root (Debian/Ubuntu: apt-get install -y chromium), or point MACS_TEST_CHROMIUM at a Chromium binary`,
    );
}
