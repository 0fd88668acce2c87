import { existsSync } from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import {
  logSize,
  lookAt,
  openLog,
  readChunk,
  type OpenLog,
} from './log-file.js';

/** What a log tail reports, in file order. */
export type TailEvent =
  /** Bytes [start, end) of the file decoded as UTF-8; `end` is the offset to resume from. */
  | { type: 'data'; text: string; start: number; end: number }
  /** The file shrank below our offset: we restart at 0. */
  | { type: 'truncated'; previousOffset: number; size: number }
  /**
   * The path now names a different file (rename, rotate, delete + create) or
   * none: the old file has been read to its end; the next data starts at 0 of
   * the new file once it exists.
   */
  | { type: 'replaced' }
  | { type: 'error'; error: Error };

export interface LogTailOptions {
  file: string;
  /** Byte offset to resume from (0 for a new log). */
  offset: number;
  /** Awaited before the next read (backpressure). A throw is reported as an `error` event. */
  onEvent: (event: TailEvent) => void | Promise<void>;
  /** Backstop poll for lost or coalesced change notifications (default 2 s). */
  backstopMs?: number;
  /** Largest read; at least 4 so a whole UTF-8 sequence always fits. */
  readChunkBytes?: number;
  /**
   * The path no longer names the open file (deleted, renamed, replaced).
   * Awaited before that file is read to its end and left, so an owner whose
   * writer still holds the old file (tmux's `pipe-pane` child) can point the
   * writer at the path again first: what the old writer wrote until then is
   * still read. A throw is reported as an `error` event.
   */
  beforeLeave?: () => void | Promise<void>;
}

export interface LogTail {
  /** Starts watching; resolves once the watcher is ready and the first read has run. */
  start(): Promise<void>;
  /** Closes watcher, timer and file; resolves after an in-flight read (and its `onEvent`) finishes. */
  stop(): Promise<void>;
  /** Byte offset just after the last emitted data (0 after `truncated` or `replaced`). */
  readonly offset: number;
  /** Read now (e.g. a caller knows data arrived). */
  poke(): void;
}

export const DEFAULT_BACKSTOP_MS = 2000;
export const DEFAULT_READ_CHUNK_BYTES = 1024 * 1024;
const MIN_READ_CHUNK_BYTES = 4;
const READY_TIMEOUT_MS = 2_000;

/**
 * Tails one append-only log by byte offset. chokidar notifications trigger a
 * read at once; a poll timer is the backstop for notifications that are lost
 * or coalesced (chokidar throttles `change` per path). Reads never overlap: a
 * request during a read schedules one more pass after it, and each pass reads
 * to end of file, awaiting `onEvent` after every chunk.
 */
export function createLogTail(options: LogTailOptions): LogTail {
  const file = path.resolve(options.file);
  const backstopMs = options.backstopMs ?? DEFAULT_BACKSTOP_MS;
  const chunkBytes = Math.max(
    MIN_READ_CHUNK_BYTES,
    options.readChunkBytes ?? DEFAULT_READ_CHUNK_BYTES,
  );
  // ignoreBOM keeps a U+FEFF at the start of a chunk, so text matches bytes.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let buffer: Buffer | undefined;

  let offset = options.offset;
  let current: OpenLog | undefined;
  // A saved offset names the file that was there when it was saved.
  let missingAtStart = false;
  let firstOpen = true;

  let started = false;
  let stopped = false;
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  const pendingErrors: Error[] = [];
  let lastReportedError: string | undefined;

  async function emit(event: TailEvent): Promise<void> {
    try {
      await options.onEvent(event);
    } catch (error) {
      if (event.type === 'error') return;
      try {
        await options.onEvent({ type: 'error', error: toError(error) });
      } catch {
        // the handler failed on its own error report; nothing left to tell
      }
    }
  }

  async function reportError(error: Error): Promise<void> {
    // A persistent failure (say EACCES) would repeat on every poll: say it once.
    if (error.message === lastReportedError) return;
    lastReportedError = error.message;
    await emit({ type: 'error', error });
  }

  async function closeLog(): Promise<void> {
    const log = current;
    current = undefined;
    await log?.handle.close();
  }

  /**
   * Reads the open file from `offset` to its end. An incomplete UTF-8 sequence
   * at the end is left unread for the next pass, unless `final` (the file has
   * been replaced and will not grow), when it decodes to U+FFFD.
   */
  async function drain(log: OpenLog, final: boolean): Promise<void> {
    buffer ??= Buffer.allocUnsafe(chunkBytes);
    while (!stopped) {
      const size = logSize(log);
      if (size < offset) {
        const previousOffset = offset;
        offset = 0;
        await emit({ type: 'truncated', previousOffset, size });
        if (stopped) return;
      }
      const bytes = readChunk(log, buffer, offset, final);
      // Nothing complete (end of file, or 1-3 bytes of a sequence there).
      if (!bytes) return;
      const start = offset;
      offset += bytes.length;
      await emit({
        type: 'data',
        text: decoder.decode(bytes),
        start,
        end: offset,
      });
    }
  }

  async function readPass(): Promise<void> {
    while (pendingErrors.length > 0 && !stopped) {
      const error = pendingErrors.shift();
      if (error) await emit({ type: 'error', error });
    }
    while (!stopped) {
      if (!current) {
        current = await openLog(file);
        if (!current) {
          if (firstOpen) missingAtStart = true;
          return;
        }
        // A new file (the log replaced, or created after the tail started):
        // watch it; the watch on the old one followed the old file.
        if (!firstOpen || missingAtStart) {
          watcher?.unwatch(file);
          watcher?.add(file);
        }
        if (firstOpen) {
          firstOpen = false;
          if (missingAtStart && offset > 0) {
            offset = 0;
            await emit({ type: 'replaced' });
            if (stopped) return;
          }
        }
      }
      const seen = lookAt(file, current, offset);
      if (seen === 'idle') return;
      const replaced = seen === 'replaced';
      if (replaced && options.beforeLeave) {
        try {
          await options.beforeLeave();
        } catch (error) {
          await emit({ type: 'error', error: toError(error) });
        }
        if (stopped) return;
      }
      // A replaced file is finished (a writer may still hold it), then left.
      await drain(current, replaced);
      if (stopped || !replaced) return;
      await closeLog();
      offset = 0;
      await emit({ type: 'replaced' });
    }
  }

  async function runReads(): Promise<void> {
    try {
      while (again && !stopped) {
        again = false;
        try {
          await readPass();
          lastReportedError = undefined;
        } catch (error) {
          await reportError(toError(error));
        }
      }
    } finally {
      // Cleared in the same tick as the last `again` check, so no request is lost.
      running = undefined;
    }
  }

  function requestRead(): void {
    if (!started || stopped) return;
    again = true;
    running ??= runReads();
  }

  function isOurs(candidate: string): boolean {
    return path.resolve(candidate) === file;
  }

  function onRaw(_event: string, evPath: string, details: unknown): void {
    const watched = watchedPathOf(details);
    if (watched === undefined) return;
    if (isOurs(watched) || (evPath && isOurs(path.join(watched, evPath)))) {
      requestRead();
    }
  }

  return {
    get offset() {
      return offset;
    },

    async start() {
      if (started || stopped) return;
      started = true;
      // The file itself when it exists: a watched folder is read again
      // (an lstat of every entry) on each change in it, and many bridges'
      // logs share one folder. A missing file is waited for in its folder.
      const w = watch(existsSync(file) ? file : path.dirname(file), {
        // The tail is a long-lived reader; its owner decides when to stop.
        persistent: true,
        // We read once ourselves after `ready`.
        ignoreInitial: true,
        // fs.watch, not stat polling: a notification must arrive at once.
        usePolling: false,
        // Off: `atomic` delays `unlink` by 100 ms and folds unlink + add into
        // `change`; we tell files apart by inode ourselves.
        atomic: false,
        // Off: it holds events until the size is stable for 2 s.
        awaitWriteFinish: false,
        // Only the log and the folders leading to it (when the folder does not
        // exist yet chokidar watches the nearest existing ancestor).
        ignored: (candidate: string) => !isOnPathTo(file, candidate),
      });
      watcher = w;
      w.on('all', (_event, changed) => {
        if (isOurs(changed)) requestRead();
      });
      // `change` is throttled per path (50 ms, no trailing event); raw events
      // are not, so the last write of a burst is read without waiting for the poll.
      w.on('raw', onRaw);
      w.on('error', (error) => {
        pendingErrors.push(toError(error));
        requestRead();
      });
      await new Promise<void>((resolve) => {
        // A missing folder may never report ready; the poll covers that case.
        const fallback = setTimeout(resolve, READY_TIMEOUT_MS);
        w.once('ready', () => {
          clearTimeout(fallback);
          resolve();
        });
      });
      if (stopped) return;
      timer = setInterval(requestRead, backstopMs);
      requestRead();
      await running;
    },

    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      try {
        await watcher?.close();
      } catch {
        // closing is best effort
      }
      watcher = undefined;
      await running;
      try {
        await closeLog();
      } catch {
        // the fd is gone either way
      }
    },

    poke() {
      requestRead();
    },
  };
}

// True for the file itself and each folder above it.
function isOnPathTo(file: string, candidate: string): boolean {
  const resolved = path.resolve(candidate);
  if (resolved === file) return true;
  const prefix = resolved.endsWith(path.sep) ? resolved : resolved + path.sep;
  return file.startsWith(prefix);
}

function watchedPathOf(details: unknown): string | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const watched = (details as { watchedPath?: unknown }).watchedPath;
  return typeof watched === 'string' ? watched : undefined;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
