import { randomBytes } from 'node:crypto';
import {
  closeSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/** Folders are private to the user (SPEC §4). */
export const DIR_MODE = 0o700;
/** Files are private to the user (SPEC §4). */
export const FILE_MODE = 0o600;

/** Create a folder (and parents) with mode 0700; tighten it if it exists. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  const info = await stat(dir);
  if ((info.mode & 0o777) !== DIR_MODE) await chmod(dir, DIR_MODE);
}

/**
 * Write a file atomically: a temp file in the same folder (mode 0600), then
 * a rename over the target. Readers see the old or the new file, never half
 * of one, and a killed process leaves no torn file. (No fsync: the threat
 * model is a crashed or killed process, not power loss; see
 * docs/reliability.md.)
 */
export async function writeFileAtomic(
  file: string,
  data: string,
): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(
    dir,
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  if (data.length <= SYNC_WRITE_MAX_CHARS) {
    // Small files (state, inbox, archive entries) are written at once: four
    // calls that take microseconds, where the same calls through the thread
    // pool each wait their turn. These writes sit on the detection path.
    writeSmallAtomic(temp, file, data);
    return;
  }
  const handle = await open(temp, 'wx', FILE_MODE);
  try {
    await handle.writeFile(data, 'utf8');
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Up to this many characters are written synchronously. */
const SYNC_WRITE_MAX_CHARS = 256 * 1024;

function writeSmallAtomic(temp: string, file: string, data: string): void {
  const fd = openSync(temp, 'wx', FILE_MODE);
  try {
    writeFileSync(fd, data, 'utf8');
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

export async function fileExists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** Create inbox/, outbox/, archive/ and .macs/ (0700) under a home. */
export async function ensureHomeDirs(paths: {
  inbox: string;
  outbox: string;
  archive: string;
  runtime: string;
}): Promise<void> {
  for (const dir of [paths.runtime, paths.inbox, paths.outbox, paths.archive])
    await ensurePrivateDir(dir);
}
