/**
 * `mkdir -p` that always ends. Node's own (`mkdir` with `recursive: true`,
 * sync or not, Node 20) never returns when a parent exists but can hold no
 * child: a folder deleted while it is a process's working folder or a
 * mount's root (a container's bind mount whose source was removed). Its
 * walk steps back on ENOENT and forward on EEXIST, forever, at a full core
 * (found as `macs stop` processes spinning for half an hour on test hosts
 * whose home had been removed). Here the walk goes back once per level, and
 * once a parent exists the child's ENOENT is final.
 */
import { mkdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

function code(error: unknown): unknown {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Create `dir` and its missing parents with `mode`; an existing one is fine. */
export async function makeDirs(dir: string, mode: number): Promise<void> {
  try {
    await mkdir(dir, { mode });
    return;
  } catch (error) {
    if (code(error) === 'EEXIST') return;
    if (code(error) !== 'ENOENT' || path.dirname(dir) === dir) throw error;
  }
  await makeDirs(path.dirname(dir), mode);
  try {
    await mkdir(dir, { mode });
  } catch (error) {
    if (code(error) !== 'EEXIST') throw error;
  }
}

/** `makeDirs`, blocking (for the logger, set up before anything else runs). */
export function makeDirsSync(dir: string, mode: number): void {
  try {
    mkdirSync(dir, { mode });
    return;
  } catch (error) {
    if (code(error) === 'EEXIST') return;
    if (code(error) !== 'ENOENT' || path.dirname(dir) === dir) throw error;
  }
  makeDirsSync(path.dirname(dir), mode);
  try {
    mkdirSync(dir, { mode });
  } catch (error) {
    if (code(error) !== 'EEXIST') throw error;
  }
}
