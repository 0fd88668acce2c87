import { existsSync, readFileSync } from 'node:fs';

/**
 * Is the process still running? A permission error means it runs under
 * another user. A zombie has ended (it only waits for its parent to reap
 * it: after kill-server that is PID 1, which in some containers never
 * does), so it does not count.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return (
      stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
    );
  } catch {
    // Gone meanwhile; or no /proc at all (macOS), where kill(0) is all we know.
    return !existsSync('/proc/self');
  }
}
