/**
 * Why an agent's delivery is paused, read from its control file
 * (`.macs/control/<agent>.paused`, written by state/person-controls.ts).
 * Apart from person-controls.ts so that `macs hook`, which asks only whether an agent is
 * paused, never loads zod.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import * as z from 'zod';
import type { HomePaths } from '../home/paths.js';
import { pauseFilePath } from './person-controls.js';

/**
 * Why an agent is paused, as its control file says: `by` is who paused it
 * (`budget`, or a person through `macs pause` / the status view); a budget
 * pause carries the reading that reached it (docs/usage.md).
 */
export const PauseReasonSchema = z.object({
  at: z.string().max(64),
  by: z.string().max(64),
  scope: z.enum(['agent', 'session']).optional(),
  percent: z.number().optional(),
  budget: z
    .object({ usd: z.number().optional(), tokens: z.number().optional() })
    .optional(),
  spentTokens: z.number().optional(),
  spentUsd: z.number().nullable().optional(),
});
export type PauseReason = z.infer<typeof PauseReasonSchema>;

/** A control file is read up to this many bytes (it holds one small line). */
const PAUSE_FILE_MAX_BYTES = 4096;

/**
 * Why delivery to an agent is paused; null when it is not. Read bounded and
 * never through a link; a file of an older macs (a bare timestamp) or one
 * that does not parse is a person's pause.
 */
export async function readPauseReason(
  paths: HomePaths,
  agent: string,
): Promise<PauseReason | null> {
  let handle;
  try {
    handle = await open(
      pauseFilePath(paths, agent),
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | constants.O_NONBLOCK,
    );
  } catch {
    return null;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    const buffer = Buffer.alloc(PAUSE_FILE_MAX_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8').trim();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const reason = PauseReasonSchema.safeParse(parsed);
    return reason.success
      ? reason.data
      : { at: info.mtime.toISOString(), by: 'person' };
  } finally {
    await handle.close();
  }
}
