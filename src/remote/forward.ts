/**
 * A hub command about `<host>/<agent>` or `<host>/<id>` run by the host's own
 * macs: `ssh <host> macs <command> <name> … --home <home>`, with any text on
 * stdin. The words are the hub user's (checked names, our flags), never
 * host data; what the host prints back is cleaned before it is shown.
 */
import { cleanHostText } from './host-data.js';
import { runSshCall } from './ssh.js';
import type { HostTarget } from './host-session.js';

/** Most characters of a host's reply shown at the hub. */
const MAX_REPLY_CHARS = 64 * 1024;

/** Text of a host, cleaned and bounded, as lines. */
function hostLines(text: string): string[] {
  return cleanHostText(text.slice(0, MAX_REPLY_CHARS))
    .split('\n')
    .filter((line, i, all) => line !== '' || i < all.length - 1);
}

/**
 * Run `macs <argv…> --home <home>` on a host: what it printed, cleaned, and
 * its warnings (stderr lines starting `warning:` or naming a program not on
 * the PATH, e.g. an agent program `macs start` could not find).
 */
export async function runHostMacs(
  target: HostTarget,
  argv: readonly string[],
  input?: string,
): Promise<string[]> {
  const result = await runSshCall(
    target,
    ['macs', ...argv, '--home', target.home],
    input !== undefined ? { input } : {},
  );
  if (!result.ok) throw result.error;
  const warnings = hostLines(result.stderr).filter((l) =>
    /^warning:|not found on PATH/.test(l),
  );
  return [...hostLines(result.stdout), ...warnings];
}
