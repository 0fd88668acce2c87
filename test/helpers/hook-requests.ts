import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HomePaths } from '../../src/home/paths.js';
import {
  hookRequestsDir,
  parseHookRequest,
  type HookRequestFile,
} from '../../src/state/hook-files.js';
import { waitFor } from './wait-for.js';

/** Wait for the approval a hook asks for (`.macs/hook-requests/<agent>/`); its file and contents. */
export async function waitForHookRequest(
  paths: HomePaths,
  agent: string,
  message = 'the hook request file',
): Promise<{ file: string; request: HookRequestFile }> {
  const dir = hookRequestsDir(paths, agent);
  const name = await waitFor(
    () =>
      existsSync(dir)
        ? readdirSync(dir).find((f) => f.endsWith('.json'))
        : undefined,
    { message },
  );
  const file = path.join(dir, name);
  const request = parseHookRequest(readFileSync(file, 'utf8'));
  if (!request) throw new Error(`${file} is not a hook request`);
  return { file, request };
}
