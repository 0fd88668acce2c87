/**
 * The hub's policy on a host (docs/remote.md). A host whose session a hub
 * starts decides its approvals by the hub's `policy`, not its own: the
 * hub's `macs start` sends its parsed policy with its workers
 * (session/from-hub.ts), and the host keeps it in `.macs/hub-policy.json`
 * for as long as that session lives. Given to `loadConfig` (by the CLI's
 * context and the hook's config cache), it takes the place of the config's
 * own `policy`, so the host's bridge, its hooks and its commands all read
 * the same rules. A start that no hub asked for removes the file,
 * and the host's own rules apply again; `start --resume` keeps it.
 *
 * The file decides what agents may run, so it is read only when it is this
 * user's own regular file that nobody else may write (as the hook's config
 * cache is); anything else is an error that names it. No zod here: `macs
 * hook` reads the file on every call (hooks/config-cache.ts); the loader
 * checks what it holds.
 */
import { lstat, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { PolicyConfig } from '../config/policy-defaults.js';
import { ensurePrivateDir, unsafeReason, writeFileAtomic } from './fs.js';

/** The file, in a home's `.macs/` folder. */
export function hubPolicyPath(runtime: string): string {
  return path.join(runtime, 'hub-policy.json');
}

/** The hub's policy file: where it is and its text. */
export interface HubPolicyFile {
  file: string;
  text: string;
}

/** The file and its text; undefined when there is none. Throws when it is unsafe. */
export async function readHubPolicy(
  runtime: string,
): Promise<HubPolicyFile | undefined> {
  const file = hubPolicyPath(runtime);
  let info;
  try {
    info = await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const unsafe = info.isFile()
    ? unsafeReason(info)
    : { why: 'is not a regular file' };
  if (unsafe)
    throw new ConfigError(`${file} ${unsafe.why}; its rules were not used`, {
      hint: "remove it; the hub's next macs start writes it again",
    });
  return { file, text: await readFile(file, 'utf8') };
}

/** Keep the hub's policy for this host's session. */
export async function writeHubPolicy(
  runtime: string,
  policy: PolicyConfig,
): Promise<void> {
  await ensurePrivateDir(runtime);
  await writeFileAtomic(hubPolicyPath(runtime), JSON.stringify(policy));
}

/** A session that no hub started: the host's own rules again. */
export async function removeHubPolicy(runtime: string): Promise<void> {
  await rm(hubPolicyPath(runtime), { force: true });
}
