import {
  appendFileSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createLogTail,
  type LogTail,
  type TailEvent,
} from '../../../src/bridge/intake/tail.js';
import { waitFor } from '../../helpers/wait-for.js';

let dir: string;
let file: string;
const tails: LogTail[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'macs-tail-'));
  file = path.join(dir, 'agent.log');
});

afterEach(async () => {
  await Promise.all(tails.splice(0).map((tail) => tail.stop()));
  rmSync(dir, { recursive: true, force: true });
});

interface Harness {
  tail: LogTail;
  events: TailEvent[];
  /** Text of all data events so far. */
  text(): string;
  /** Data events since the last `replaced`, i.e. of the current file. */
  dataOfCurrentFile(): Extract<TailEvent, { type: 'data' }>[];
}

async function startTail(
  options: {
    offset?: number;
    readChunkBytes?: number;
    backstopMs?: number;
    target?: string;
    onEvent?: (event: TailEvent) => void | Promise<void>;
  } = {},
): Promise<Harness> {
  const events: TailEvent[] = [];
  const tail = createLogTail({
    file: options.target ?? file,
    offset: options.offset ?? 0,
    readChunkBytes: options.readChunkBytes,
    backstopMs: options.backstopMs,
    onEvent: async (event) => {
      events.push(event);
      await options.onEvent?.(event);
    },
  });
  tails.push(tail);
  await tail.start();
  return {
    tail,
    events,
    text: () => dataText(events),
    dataOfCurrentFile() {
      const last = events.map((e) => e.type).lastIndexOf('replaced');
      return events.slice(last + 1).filter(isData);
    },
  };
}

function isData(
  event: TailEvent,
): event is Extract<TailEvent, { type: 'data' }> {
  return event.type === 'data';
}

function dataText(events: readonly TailEvent[]): string {
  return events
    .filter(isData)
    .map((e) => e.text)
    .join('');
}

// Each data event starts where the previous one ended (within one file).
function expectContiguous(events: readonly TailEvent[], from = 0): void {
  let expected = from;
  for (const event of events) {
    if (event.type === 'truncated' || event.type === 'replaced') expected = 0;
    if (!isData(event)) continue;
    expect(event.start).toBe(expected);
    expect(event.end).toBeGreaterThan(event.start);
    expected = event.end;
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('createLogTail', () => {
  it('reads appends in order with exact byte offsets', async () => {
    writeFileSync(file, 'hello\n');
    const h = await startTail();
    expect(h.events).toEqual([
      { type: 'data', text: 'hello\n', start: 0, end: 6 },
    ]);

    appendFileSync(file, 'wörld\n');
    await waitFor(() => h.tail.offset === 13, { message: 'second append' });
    appendFileSync(file, 'third\n');
    await waitFor(() => h.tail.offset === 19, { message: 'third append' });

    expect(h.text()).toBe('hello\nwörld\nthird\n');
    expectContiguous(h.events);
    expect(h.events.at(-1)).toMatchObject({ end: 19 });
  });

  it('resumes from a saved offset and reads only what follows', async () => {
    writeFileSync(file, 'already seen\n');
    const saved = statSync(file).size;
    appendFileSync(file, 'new line\n');

    const h = await startTail({ offset: saved });

    expect(h.events).toEqual([
      { type: 'data', text: 'new line\n', start: saved, end: saved + 9 },
    ]);
  });

  it('reads every byte of a burst of small appends', async () => {
    writeFileSync(file, '');
    const h = await startTail();
    let expected = '';
    for (let i = 0; i < 2000; i += 1) {
      const line = `line ${i} ${'é'.repeat(i % 3)}\n`;
      appendFileSync(file, line);
      expected += line;
    }
    const size = statSync(file).size;

    await waitFor(() => h.tail.offset === size, {
      message: 'whole burst read',
    });

    expect(h.text()).toBe(expected);
    expectContiguous(h.events);
  });

  it('reads the last write of a burst on notifications alone', async () => {
    // chokidar throttles `change` per path with no trailing event; the tail
    // also listens to raw events, so it never waits for the backstop poll.
    writeFileSync(file, '');
    const h = await startTail({ backstopMs: 600_000 });
    for (let round = 1; round <= 20; round += 1) {
      for (let i = 0; i < 10; i += 1) appendFileSync(file, `${round}.${i} `);
      const size = statSync(file).size;
      await waitFor(() => h.tail.offset === size, {
        timeout: 2_000,
        message: `round ${round}`,
      });
    }
  });

  it('decodes multi-byte characters written one byte per append', async () => {
    writeFileSync(file, '');
    const h = await startTail();
    const text = 'a😀b é!';
    for (const byte of Buffer.from(text)) {
      appendFileSync(file, Buffer.from([byte]));
      h.tail.poke();
    }
    const size = Buffer.byteLength(text);

    await waitFor(() => h.tail.offset === size, { message: 'all bytes read' });

    expect(h.text()).toBe(text);
    expect(h.text()).not.toContain('\uFFFD');
    expectContiguous(h.events);
  });

  it('holds back a partial character across restarts and resumes exactly', async () => {
    // Each restart's first read runs to completion inside start(), so every
    // byte of the emoji is seen by a separate read.
    writeFileSync(file, 'x');
    const bytes = Buffer.from('😀ü');
    let offset = 0;
    const seen: TailEvent[] = [];
    for (const byte of bytes) {
      appendFileSync(file, Buffer.from([byte]));
      const h = await startTail({ offset });
      await h.tail.stop();
      seen.push(...h.events);
      offset = h.tail.offset;
    }

    expect(dataText(seen)).toBe('x😀ü');
    expect(seen.filter(isData).map((e) => [e.start, e.end])).toEqual([
      [0, 1],
      [1, 5],
      [5, 7],
    ]);
  });

  it('splits reads at chunk boundaries without breaking characters', async () => {
    const text = 'ab😀cé€d😀😀\n'.repeat(20);
    writeFileSync(file, text);

    const h = await startTail({ readChunkBytes: 5 });

    expect(h.text()).toBe(text);
    expect(h.tail.offset).toBe(Buffer.byteLength(text));
    expectContiguous(h.events);
    for (const event of h.events.filter(isData)) {
      expect(event.end - event.start).toBeLessThanOrEqual(5);
    }
  });

  it('decodes invalid bytes as U+FFFD and counts them', async () => {
    writeFileSync(file, Buffer.from([0x61, 0xff, 0x62, 0xc3, 0x28, 0x0a]));

    const h = await startTail();

    expect(h.events).toEqual([
      { type: 'data', text: 'a\uFFFDb\uFFFD(\n', start: 0, end: 6 },
    ]);
  });

  it('restarts at 0 when the file is truncated', async () => {
    writeFileSync(file, 'abcdef');
    const h = await startTail();

    truncateSync(file, 0);
    await waitFor(() => h.events.some((e) => e.type === 'truncated'), {
      message: 'truncated event',
    });
    appendFileSync(file, 'xy');
    await waitFor(() => h.text().endsWith('xy'), {
      message: 'data after truncation',
    });

    expect(h.events).toEqual([
      { type: 'data', text: 'abcdef', start: 0, end: 6 },
      { type: 'truncated', previousOffset: 6, size: 0 },
      { type: 'data', text: 'xy', start: 0, end: 2 },
    ]);
  });

  it('reports truncation below a saved offset at start', async () => {
    writeFileSync(file, 'ab');

    const h = await startTail({ offset: 10 });

    expect(h.events).toEqual([
      { type: 'truncated', previousOffset: 10, size: 2 },
      { type: 'data', text: 'ab', start: 0, end: 2 },
    ]);
  });

  it('finishes a renamed file, then reads its replacement from 0', async () => {
    // The writer (tmux pipe-pane) keeps its fd to the renamed file.
    const fd = openSync(file, 'a');
    try {
      writeSync(fd, 'old1\n');
      const h = await startTail();
      expect(h.text()).toBe('old1\n');

      // All in one tick: the tail sees the rename only after these writes.
      writeSync(fd, 'old2 ');
      writeSync(fd, Buffer.from([0xf0, 0x9f])); // a cut-off emoji at the very end
      renameSync(file, `${file}.1`);
      writeFileSync(file, 'new\n');

      await waitFor(
        () =>
          h
            .dataOfCurrentFile()
            .map((e) => e.text)
            .join('') === 'new\n',
        {
          message: 'new file read',
        },
      );
      expect(h.events).toEqual([
        { type: 'data', text: 'old1\n', start: 0, end: 5 },
        { type: 'data', text: 'old2 \uFFFD', start: 5, end: 12 },
        { type: 'replaced' },
        { type: 'data', text: 'new\n', start: 0, end: 4 },
      ]);
    } finally {
      closeSync(fd);
    }
  });

  it('emits replaced on delete and reads the recreated file from 0', async () => {
    writeFileSync(file, 'first\n');
    const h = await startTail();

    unlinkSync(file);
    await waitFor(() => h.events.some((e) => e.type === 'replaced'), {
      message: 'replaced after delete',
    });
    expect(h.tail.offset).toBe(0);
    writeFileSync(file, 'second\n');
    await waitFor(() => h.text() === 'first\nsecond\n', {
      message: 'recreated file',
    });

    expect(h.events).toEqual([
      { type: 'data', text: 'first\n', start: 0, end: 6 },
      { type: 'replaced' },
      { type: 'data', text: 'second\n', start: 0, end: 7 },
    ]);
  });

  it('calls beforeLeave on a delete, then reads what the old writer wrote meanwhile', async () => {
    // tmux's pipe-pane child keeps writing to a deleted log; the bridge
    // points a new pipe at the path in beforeLeave.
    const fd = openSync(file, 'a');
    try {
      writeSync(fd, 'before\n');
      const events: TailEvent[] = [];
      let calls = 0;
      const tail = createLogTail({
        file,
        offset: 0,
        onEvent: (event) => {
          events.push(event);
        },
        beforeLeave: () => {
          calls += 1;
          writeSync(fd, 'late\n'); // the old writer, until the switch
          writeFileSync(file, 'new\n'); // the new writer
        },
      });
      tails.push(tail);
      await tail.start();
      unlinkSync(file);
      await waitFor(() => dataText(events).endsWith('new\n'), {
        message: 'new file read',
      });
      expect(calls).toBe(1);
      expect(events).toEqual([
        { type: 'data', text: 'before\n', start: 0, end: 7 },
        { type: 'data', text: 'late\n', start: 7, end: 12 },
        { type: 'replaced' },
        { type: 'data', text: 'new\n', start: 0, end: 4 },
      ]);
    } finally {
      closeSync(fd);
    }
  });

  it('notices a delete and recreate that happen at once', async () => {
    writeFileSync(file, 'first\n');
    const h = await startTail();

    unlinkSync(file);
    writeFileSync(file, 'xy\n');
    await waitFor(() => h.text() === 'first\nxy\n', {
      message: 'recreated file',
    });

    expect(h.events.map((e) => e.type)).toEqual(['data', 'replaced', 'data']);
    expect(h.events.at(-1)).toEqual({
      type: 'data',
      text: 'xy\n',
      start: 0,
      end: 3,
    });
  });

  it('waits for a file created after start', async () => {
    const h = await startTail();
    expect(h.events).toEqual([]);

    writeFileSync(file, 'hi\n');
    await waitFor(() => h.tail.offset === 3, { message: 'created file' });
    appendFileSync(file, 'more\n');
    await waitFor(() => h.tail.offset === 8, {
      message: 'append to created file',
    });

    expect(h.text()).toBe('hi\nmore\n');
    expect(h.events.every((e) => e.type === 'data')).toBe(true);
  });

  it('waits for a folder and file created after start', async () => {
    const target = path.join(dir, 'panes', 'agent.log');
    const h = await startTail({ target });

    mkdirSync(path.dirname(target));
    writeFileSync(target, 'one\n');
    await waitFor(() => h.tail.offset === 4, { message: 'file in new folder' });
    appendFileSync(target, 'two\n');
    await waitFor(() => h.tail.offset === 8, {
      message: 'append in new folder',
    });

    expect(h.text()).toBe('one\ntwo\n');
  });

  it('reads a file from 0 when a saved offset named a file that is gone', async () => {
    const h = await startTail({ offset: 100 });
    expect(h.events).toEqual([]);

    writeFileSync(file, 'fresh\n');
    await waitFor(() => h.tail.offset === 6, { message: 'fresh file' });

    expect(h.events).toEqual([
      { type: 'replaced' },
      { type: 'data', text: 'fresh\n', start: 0, end: 6 },
    ]);
  });

  it('awaits onEvent before reading on, never calling it twice at once', async () => {
    writeFileSync(file, '');
    let active = 0;
    let maxActive = 0;
    const gate = deferred();
    const h = await startTail({
      readChunkBytes: 16,
      onEvent: async () => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await gate.promise;
        active -= 1;
      },
    });

    appendFileSync(file, 'x'.repeat(100));
    await waitFor(() => h.events.length === 1, {
      message: 'first chunk delivered',
    });
    h.tail.poke();
    h.tail.poke();
    expect(h.events).toHaveLength(1); // blocked on onEvent
    gate.resolve();
    await waitFor(() => h.tail.offset === 100, {
      message: 'rest read after release',
    });

    expect(maxActive).toBe(1);
    expect(h.text()).toBe('x'.repeat(100));
  });

  it('stop() waits for the in-flight onEvent and then reads no more', async () => {
    writeFileSync(file, '');
    const gate = deferred();
    const h = await startTail({ onEvent: () => gate.promise });

    appendFileSync(file, 'abc');
    await waitFor(() => h.events.length === 1, { message: 'event in flight' });
    let stopped = false;
    const stopping = h.tail.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;

    appendFileSync(file, 'def');
    h.tail.poke();
    expect(h.events).toHaveLength(1);
    expect(h.tail.offset).toBe(3);
  });

  it('reports a throwing onEvent as an error event and keeps reading', async () => {
    writeFileSync(file, 'a');
    const h = await startTail({
      onEvent: (event) => {
        if (event.type === 'data' && event.text === 'a')
          throw new Error('handler broke');
      },
    });

    appendFileSync(file, 'b');
    await waitFor(() => h.tail.offset === 2, { message: 'read after error' });

    expect(h.events).toEqual([
      { type: 'data', text: 'a', start: 0, end: 1 },
      { type: 'error', error: new Error('handler broke') },
      { type: 'data', text: 'b', start: 1, end: 2 },
    ]);
  });
});
