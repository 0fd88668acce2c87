/**
 * The log file a tail reads, apart from watching it (`tail.ts` keeps
 * the offset and decides when to read). The file is opened without
 * following a link and known by its inode, so a path that comes to name
 * another file (rotated, deleted and created again) is noticed; it is read
 * from a byte offset in chunks that end on a whole character. Reads and
 * stats are synchronous: one of a log takes microseconds, and each sits
 * between a pane's output and its reading.
 */
import { constants, fstatSync, readSync, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { incompleteUtf8TailLength } from './utf8-boundary.js';

/** An open log, and which file it is (its path may come to name another). */
export interface OpenLog {
  handle: FileHandle;
  dev: number;
  ino: number;
}

/** Opens the log at `file`; undefined when there is none (yet). */
export async function openLog(file: string): Promise<OpenLog | undefined> {
  let handle: FileHandle;
  try {
    // Never through a link: what is read is what the pane printed.
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    const stats = await handle.stat();
    return { handle, dev: stats.dev, ino: stats.ino };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/**
 * What `file` names now: `replaced` when it is no longer the open log,
 * `idle` when it is and holds nothing past `offset` (the usual answer of
 * a backstop poll, found with one stat).
 */
export function lookAt(
  file: string,
  log: OpenLog,
  offset: number,
): 'replaced' | 'idle' | 'grown' {
  const stats = statSync(file, { throwIfNoEntry: false });
  if (!stats || stats.ino !== log.ino || stats.dev !== log.dev)
    return 'replaced';
  return stats.size === offset ? 'idle' : 'grown';
}

/** The open log's size now (below the offset read so far: truncated). */
export function logSize(log: OpenLog): number {
  return fstatSync(log.handle.fd).size;
}

/**
 * Reads the open log from `offset` into `buffer` (at most its length) and
 * returns the bytes read up to the last whole character: an incomplete
 * UTF-8 sequence at the end is left unread for the next read, unless
 * `final` (the file has been replaced and will not grow) and the read
 * reached the end of the file, when it is returned to decode as U+FFFD.
 * Undefined when there is nothing complete to read (end of file, or 1-3
 * bytes of a sequence there: wait for more).
 */
export function readChunk(
  log: OpenLog,
  buffer: Buffer,
  offset: number,
  final: boolean,
): Buffer | undefined {
  const bytesRead = readSync(log.handle.fd, buffer, 0, buffer.length, offset);
  if (bytesRead === 0) return undefined;
  const bytes = buffer.subarray(0, bytesRead);
  const atEnd = bytesRead < buffer.length;
  const held = final && atEnd ? 0 : incompleteUtf8TailLength(bytes);
  const used = bytesRead - held;
  return used === 0 ? undefined : bytes.subarray(0, used);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
