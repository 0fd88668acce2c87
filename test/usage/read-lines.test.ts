import {
  appendFileSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readNewLines } from '../../src/usage/read-lines.js';
import { parseLedger } from '../../src/usage/usage-ledger.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'macs-usage-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readNewLines', () => {
  it('takes whole lines only: a torn last line waits for its newline', async () => {
    const file = path.join(dir, 'a.jsonl');
    writeFileSync(file, '{"a":1}\n{"b":');
    const first = await readNewLines(file, 0);
    expect(first.ok && first.result.lines.map((l) => l.text)).toEqual([
      '{"a":1}',
    ]);
    const offset = first.ok ? first.result.offset : -1;
    expect(offset).toBe(8);
    appendFileSync(file, '2}\n');
    const next = await readNewLines(
      file,
      offset,
      first.ok ? first.result.ino : 0,
    );
    expect(next.ok && next.result.lines).toEqual([
      { text: '{"b":2}', end: 16 },
    ]);
  });

  it('reads a file again from its start when it was replaced or shrank', async () => {
    const file = path.join(dir, 'a.jsonl');
    writeFileSync(file, 'x\ny\n');
    const first = await readNewLines(file, 0);
    const ino = first.ok ? first.result.ino : 0;
    // Shorter than what was read: another file (rewritten in place).
    writeFileSync(file, 'n\n');
    const again = await readNewLines(file, 4, ino);
    expect(again.ok && again.result.restarted).toBe(true);
    expect(again.ok && again.result.lines.map((l) => l.text)).toEqual(['n']);
    // Another inode: read from the start too.
    const moved = await readNewLines(file, 2, ino + 1);
    expect(moved.ok && moved.result.restarted).toBe(true);
  });

  it('never reads through a link', async () => {
    const target = path.join(dir, 'secret.jsonl');
    writeFileSync(target, '{"usage":1}\n');
    const link = path.join(dir, 'link.jsonl');
    symlinkSync(target, link);
    const outcome = await readNewLines(link, 0);
    expect(outcome.ok).toBe(false);
  });
});

describe('parseLedger', () => {
  it('skips a torn last line and lines that are not entries', () => {
    const entry = {
      ts: '2026-11-27T10:00:00.000Z',
      src: '/x.jsonl',
      off: 10,
      model: 'm',
      calls: 1,
      inputTokens: 1,
      outputTokens: 2,
      cacheReadTokens: null,
      cacheWriteTokens: null,
    };
    const text = `${JSON.stringify(entry)}\nnot json\n{"ts":1}\n${JSON.stringify(entry).slice(0, 20)}`;
    expect(parseLedger(text)).toEqual([entry]);
  });
});
