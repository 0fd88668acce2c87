// Test hosts for the bench's remote step: the tests' own
// (test/helpers/ssh-hosts.ts, docs/remote.md "Test hosts"), compiled for
// plain Node by esbuild when the step starts, so the bench and the tests
// start hosts by one piece of code. Needs root, unshare and openssh-server.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ROOT } from './lib.mjs';

/** The home of each host's macs session, as the host sees it. */
export const HOST_HOME = '/root/proj';

const HELPERS = path.join(ROOT, 'test', 'helpers');

/** A host's path (/root/… or /tmp/… inside it) as the bench sees it. */
export const hostPath = (host, inside) =>
  inside.startsWith('/root/')
    ? path.join(host.homeDir, inside.slice('/root/'.length))
    : path.join(host.tmpDir, inside.slice('/tmp/'.length));

/** Start hosts named `names`, each running this checkout's macs. */
export async function startTestHosts(names) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-bench-helpers-'));
  const outfile = path.join(dir, 'ssh-hosts.mjs');
  try {
    await build({
      entryPoints: [path.join(HELPERS, 'ssh-hosts.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'error',
      // The helpers find the checkout from where they are, not from the
      // bundle's temporary folder.
      define: {
        'import.meta.url': JSON.stringify(
          pathToFileURL(path.join(HELPERS, 'macs.ts')).href,
        ),
      },
    });
    const helpers = await import(pathToFileURL(outfile).href);
    return await helpers.startTestHosts(names.map((name) => ({ name })));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
