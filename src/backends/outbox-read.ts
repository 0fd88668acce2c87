/**
 * Reading an outbox file without being tricked: a file is read only if it
 * is still the one that was checked (no link swapped in, no second name
 * for another file, no other user's file), and it is opened so that a FIFO
 * never blocks the bridge. What the file backend takes as an answer is
 * typed into a worker, so these checks guard what a worker is told.
 */
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  type Stats,
} from 'node:fs';
import { homePolicy } from '../home/fs.js';

// The reads here are small files read synchronously: they sit between an
// answer being written and it being typed, and a call through the thread
// pool waits its turn on a busy machine.

/**
 * Read the file the checks were made on: opened without following a link
 * (and without waiting on a FIFO), then checked again on the open handle,
 * so a file swapped for a link between the check and the read is refused,
 * not read. Undefined when the file is no longer the one checked.
 */
export function readChecked(file: string, checked: Stats): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(
      file,
      fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK,
    );
  } catch {
    return undefined;
  }
  try {
    const now = fstatSync(fd);
    if (
      !now.isFile() ||
      now.nlink > 1 ||
      now.ino !== checked.ino ||
      now.dev !== checked.dev ||
      isForeign(now)
    )
      return undefined;
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Another user's file (unless the home is shared on purpose). */
export function isForeign(info: Stats): boolean {
  const uid = process.getuid?.();
  return uid !== undefined && info.uid !== uid && !homePolicy.allowShared;
}

/** The file's own status (a link's, not its target's), or undefined when it is gone. */
export function lstatSafe(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}
