// Codex CLI 0.169.0 reveals a streamed message line by line with its last
// line already drawn below, so for a moment the screen shows a request's
// start and end markers with no body between them (recorded from the pane
// of test/agents/codex.agents.test.ts, 200x49). The reader must report the
// block once, with its whole body, never the empty frame (the empty block
// was reported before: its id then made the real one a duplicate).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ReaderEvent } from '../../src/screen/fingerprint.js';
import { createScreenReader } from '../../src/screen/reader.js';
import { LIVE_STABLE_MS } from '../../src/screen/live.js';

const LOG = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'streams',
  'codex-0.169.0-request.pane',
);
const BODY = 'Which database should the cache use?\nPostgres or SQLite?';

describe('a request block Codex 0.169.0 reveals line by line', () => {
  it('is reported once, with its body, when output pauses between frames', async () => {
    let clock = 0;
    const reader = createScreenReader({
      cols: 200,
      rows: 49,
      now: () => clock,
    });
    const text = readFileSync(LOG, 'utf8');
    // One synchronized-update frame at a time, output quiet after each
    // (the bridge settles the reader 8 ms after output stops).
    const END_FRAME = '\u001b[?2026l';
    const frames = text
      .split(END_FRAME)
      .map((part, i, all) => (i < all.length - 1 ? part + END_FRAME : part));
    const found: ReaderEvent[] = [];
    for (const frame of frames) {
      found.push(...(await reader.write(frame)));
      clock += 10;
      found.push(...reader.settle());
    }
    // Output has stopped: the caller settles again once the block is stable.
    clock += LIVE_STABLE_MS;
    found.push(...reader.settle());
    const requests = found.filter((e) => e.type === 'request');
    expect(requests).toEqual([
      {
        type: 'request',
        attributes: { id: 'q-1', type: 'question' },
        body: BODY,
      },
    ]);
    expect(reader.hasHeld()).toBe(false);
    reader.dispose();
  });
});
