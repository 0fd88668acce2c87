/**
 * The recent events a snapshot carries: the newest lines of every
 * `events/<agent>.jsonl`, merged by time. Only the end of each file is
 * read, and a file whose size and mtime have not changed is not read
 * again, so a live view reading often stays cheap however long the logs.
 */
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseEventLines } from '../events/log.js';
import type { MacsEvent } from '../events/types.js';

/** How much of the end of each events file is read for recent events. */
export const EVENT_TAIL_BYTES = 64 * 1024;

/**
 * Reads the newest `limit` events of the `events/` folder; `kept()` gives,
 * as of the last read, every event `keep` selects in the files' ends (older
 * than the newest `limit` too: rare events a view must not lose).
 */
export type RecentEventsReader = (() => Promise<MacsEvent[]>) & {
  kept(): MacsEvent[];
};

/** A reader of the newest `limit` events of the `events/` folder. */
export function createRecentEventsReader(
  eventsDir: string,
  limit: number,
  keep: (event: MacsEvent) => boolean = () => false,
): RecentEventsReader {
  const tails = new Map<
    string,
    { size: number; mtimeMs: number; events: MacsEvent[]; kept: MacsEvent[] }
  >();
  let kept: MacsEvent[] = [];

  async function readEventTail(file: string): Promise<{
    events: MacsEvent[];
    kept: MacsEvent[];
  }> {
    const info = await stat(file).catch(() => undefined);
    if (!info) return { events: [], kept: [] };
    const cached = tails.get(file);
    if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs)
      return cached;
    const start = Math.max(0, info.size - EVENT_TAIL_BYTES);
    const handle = await open(file, 'r');
    let text: string;
    try {
      const buffer = Buffer.alloc(info.size - start);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
    // Reading from the middle: the first (partial) line is not an event.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    const parsed = parseEventLines(text);
    const tail = {
      size: info.size,
      mtimeMs: info.mtimeMs,
      events: parsed.slice(-limit),
      kept: parsed.filter(keep),
    };
    tails.set(file, tail);
    return tail;
  }

  const byTime = (a: MacsEvent, b: MacsEvent) =>
    a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0;

  const read = async (): Promise<MacsEvent[]> => {
    let files: string[];
    try {
      files = (await readdir(eventsDir)).filter((f) => f.endsWith('.jsonl'));
    } catch {
      kept = [];
      return [];
    }
    const all: MacsEvent[] = [];
    const keptNow: MacsEvent[] = [];
    for (const file of files.sort()) {
      const tail = await readEventTail(path.join(eventsDir, file));
      all.push(...tail.events);
      keptNow.push(...tail.kept);
    }
    kept = keptNow.sort(byTime);
    return all.sort(byTime).slice(-limit);
  };
  return Object.assign(read, { kept: () => kept });
}
