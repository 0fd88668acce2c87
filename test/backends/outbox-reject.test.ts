import {
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BRIDGE_EVENT_AGENT,
  REJECTED_DIR,
  createOutboxRejecter,
} from '../../src/backends/outbox-reject.js';
import type { EventSink } from '../../src/events/log.js';
import type { EventInput } from '../../src/events/types.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { createLogger } from '../../src/log/logger.js';
import { makeTempHome } from '../helpers/tmux-server.js';

describe('refusing an outbox file', () => {
  let paths: HomePaths;
  let cleanup: () => void;
  let emitted: EventInput[];
  let rejecter: ReturnType<typeof createOutboxRejecter>;
  beforeEach(() => {
    const temp = makeTempHome('macs-outbox-reject-');
    cleanup = temp.cleanup;
    paths = resolveHomePaths(temp.home);
    mkdirSync(paths.outbox, { recursive: true });
    emitted = [];
    const events: EventSink = {
      emit(input) {
        emitted.push(input);
        return Promise.resolve({ ts: '', ...input });
      },
    };
    rejecter = createOutboxRejecter({
      paths,
      events,
      log: createLogger({ level: 'silent' }),
    });
  });
  afterEach(() => cleanup());

  /** An outbox file, last written `ageMs` ago. */
  const write = (name: string, text: string, ageMs = 0) => {
    const file = path.join(paths.outbox, name);
    writeFileSync(file, text);
    const when = new Date(Date.now() - ageMs);
    utimesSync(file, when, when);
    const info = statSync(file);
    return { file, info, version: `${info.size}:${info.mtimeMs}` };
  };
  const rejected = (name: string) =>
    path.join(paths.outbox, REJECTED_DIR, name);

  it('moves a settled file aside with a note of why, and says where', async () => {
    const { file, info, version } = write('w1-q1.txt', '', 5000);
    await rejecter.reject('w1-q1.txt', info, version, 'empty', 'w1', 'w1-q1');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(rejected('w1-q1.txt'))).toBe(true);
    expect(readFileSync(rejected('w1-q1.txt.why'), 'utf8')).toMatch(
      /^empty: empty\nmoved from outbox\/ /,
    );
    expect(emitted).toEqual([
      {
        agent: 'w1',
        type: 'outbox.ignored',
        requestId: 'w1-q1',
        data: {
          file: 'outbox/w1-q1.txt',
          reason: 'empty',
          movedTo: `outbox/${REJECTED_DIR}/w1-q1.txt`,
        },
      },
    ]);
  });

  it('only reports a file that may still be being written, once per version', async () => {
    const { file, info, version } = write('w1-q1.txt', '');
    await rejecter.reject('w1-q1.txt', info, version, 'empty');
    await rejecter.reject('w1-q1.txt', info, version, 'empty');
    expect(existsSync(file)).toBe(true);
    expect(emitted).toEqual([
      {
        agent: BRIDGE_EVENT_AGENT,
        type: 'outbox.ignored',
        data: { file: 'outbox/w1-q1.txt', reason: 'empty' },
      },
    ]);
    rejecter.forget('w1-q1.txt');
    await rejecter.reject('w1-q1.txt', info, version, 'empty');
    expect(emitted).toHaveLength(2);
  });

  it('moves a planted answer at once, and never an editor temp file', async () => {
    const planted = write('w1-q1.txt', 'yes');
    await rejecter.reject('w1-q1.txt', planted.info, planted.version, 'early');
    expect(existsSync(planted.file)).toBe(false);
    const temp = write('.w1-q1.txt.swp', 'x', 5000);
    await rejecter.reject(
      '.w1-q1.txt.swp',
      temp.info,
      temp.version,
      'temp-file',
    );
    expect(existsSync(temp.file)).toBe(true);
  });

  it('never moves a file that was filled after it was judged (an empty file, then an answer)', async () => {
    const { file, info, version } = write('w1-q1.txt', '', 5000);
    // The writer fills it between the look and the move.
    writeFileSync(file, 'the real answer');
    await rejecter.reject('w1-q1.txt', info, version, 'empty', 'w1', 'w1-q1');
    expect(readFileSync(file, 'utf8')).toBe('the real answer');
    expect(existsSync(rejected('w1-q1.txt'))).toBe(false);
    expect(emitted).toEqual([]);
  });

  it('keeps an earlier rejected file of the same name', async () => {
    for (const text of ['first', 'second']) {
      const { info, version } = write('w1-q1.txt', text, 5000);
      await rejecter.reject('w1-q1.txt', info, version, 'unknown-request');
    }
    const dir = path.join(paths.outbox, REJECTED_DIR);
    expect(readFileSync(path.join(dir, 'w1-q1.txt'), 'utf8')).toBe('first');
    const moved = emitted.map((e) => e.data?.movedTo);
    expect(moved[0]).toBe(`outbox/${REJECTED_DIR}/w1-q1.txt`);
    expect(moved[1]).toMatch(/^outbox\/rejected\/w1-q1\.txt\.\d+$/);
  });
});
