/**
 * I/O: the whole lines added to an agent's record file since `offset`,
 * read bounded and never through a link. The file must be a regular file
 * of this user's (opened with O_NOFOLLOW, checked on the descriptor). At
 * most READ_MAX_BYTES are read per call (the rest on the next); a last line
 * without its newline is torn (the agent is still writing it) and left for
 * the next read; a line longer than LINE_MAX_BYTES is skipped whole.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** Bytes read from one file per call. */
export const READ_MAX_BYTES = 4 * 1024 * 1024;
/** A line longer than this is skipped (no record line of interest is). */
export const LINE_MAX_BYTES = READ_MAX_BYTES;

export interface ReadLinesResult {
  /** Whole lines, each with the offset just past its newline. */
  lines: { text: string; end: number }[];
  /** Where the next read starts. */
  offset: number;
  ino: number;
  /** The file was another one, or shorter than `offset`: read from 0. */
  restarted: boolean;
}

export type ReadLinesOutcome =
  { ok: true; result: ReadLinesResult } | { ok: false; reason: string };

export async function readNewLines(
  file: string,
  offset: number,
  ino?: number,
): Promise<ReadLinesOutcome> {
  let handle;
  try {
    handle = await open(
      file,
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | constants.O_NONBLOCK,
    );
  } catch (error) {
    return {
      ok: false,
      reason: (error as NodeJS.ErrnoException).code ?? 'open failed',
    };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, reason: 'not a regular file' };
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid)
      return { ok: false, reason: 'owned by another user' };
    const restarted =
      (ino !== undefined && stats.ino !== ino) || stats.size < offset;
    let start = restarted ? 0 : offset;
    const size = Math.min(READ_MAX_BYTES, stats.size - start);
    const lines: ReadLinesResult['lines'] = [];
    if (size <= 0)
      return {
        ok: true,
        result: { lines, offset: start, ino: stats.ino, restarted },
      };
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, start);
    const chunk = buffer.subarray(0, bytesRead);
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      if (nl < 0) break;
      lines.push({
        text: chunk.subarray(from, nl).toString('utf8'),
        end: start + nl + 1,
      });
      from = nl + 1;
    }
    if (from === 0 && bytesRead >= LINE_MAX_BYTES) {
      // One line longer than we read at once: skip past it.
      from = bytesRead;
    }
    start += from;
    return {
      ok: true,
      result: { lines, offset: start, ino: stats.ino, restarted },
    };
  } finally {
    await handle.close();
  }
}
