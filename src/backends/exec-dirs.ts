/**
 * The exec backend's private folders: one per run, under the home's
 * `.macs/exec/` (0700), named `<pid>-XXXXXX` after the bridge that made it.
 * A run removes its own folder when it ends; a bridge killed during a run
 * (`kill -9`, a crash) cannot, so the next exec backend of the home removes
 * the folders of bridges that are no longer running. They held a request's
 * context, which stays private to the home's owner meanwhile.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir } from '../home/fs.js';
import { isProcessAlive } from '../state/process.js';

/** A fresh private folder for one run, under `root`. */
export async function makeRunDir(root: string): Promise<string> {
  await ensurePrivateDir(root);
  return mkdtemp(path.join(root, `${process.pid}-`));
}

/**
 * Remove the run folders under `root` left by bridges that are gone.
 * Returns the names removed. A missing `root` holds nothing.
 */
export async function sweepRunDirs(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    await rm(path.join(root, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
