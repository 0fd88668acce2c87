import {
  appendFileSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  logSize,
  lookAt,
  openLog,
  readChunk,
  type OpenLog,
} from '../../../src/bridge/intake/log-file.js';

let dir: string;
let file: string;
const opened: OpenLog[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'macs-log-file-'));
  file = path.join(dir, 'agent.log');
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((log) => log.handle.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function open(target = file): Promise<OpenLog> {
  const log = await openLog(target);
  if (!log) throw new Error(`no log at ${target}`);
  opened.push(log);
  return log;
}

describe('openLog', () => {
  it('finds no log where there is none, nor in a folder that does not exist', async () => {
    expect(await openLog(file)).toBeUndefined();
    expect(await openLog(path.join(dir, 'none', 'agent.log'))).toBeUndefined();
  });

  it('never opens a log through a link', async () => {
    writeFileSync(file, 'hello');
    const link = path.join(dir, 'link.log');
    symlinkSync(file, link);
    await expect(openLog(link)).rejects.toMatchObject({ code: 'ELOOP' });
  });
});

describe('lookAt', () => {
  it('tells a log with nothing new from one that grew', async () => {
    writeFileSync(file, 'hello');
    const log = await open();
    expect(lookAt(file, log, 5)).toBe('idle');
    expect(lookAt(file, log, 2)).toBe('grown');
    appendFileSync(file, ' world');
    expect(lookAt(file, log, 5)).toBe('grown');
  });

  it('says replaced when the path names another file, or none', async () => {
    writeFileSync(file, 'hello');
    const log = await open();
    renameSync(file, path.join(dir, 'old.log'));
    expect(lookAt(file, log, 5)).toBe('replaced');
    writeFileSync(file, 'hello');
    expect(lookAt(file, log, 5)).toBe('replaced');
  });
});

describe('logSize', () => {
  it('follows the open file as it grows and shrinks', async () => {
    writeFileSync(file, 'hello');
    const log = await open();
    expect(logSize(log)).toBe(5);
    appendFileSync(file, ' world');
    expect(logSize(log)).toBe(11);
    truncateSync(file, 0);
    expect(logSize(log)).toBe(0);
  });
});

describe('readChunk', () => {
  it('reads from the offset, at most a buffer full', async () => {
    writeFileSync(file, 'hello world');
    const log = await open();
    const buffer = Buffer.alloc(4);
    expect(readChunk(log, buffer, 0, false)?.toString()).toBe('hell');
    expect(readChunk(log, buffer, 6, false)?.toString()).toBe('worl');
    expect(readChunk(log, buffer, 10, false)?.toString()).toBe('d');
    expect(readChunk(log, buffer, 11, false)).toBeUndefined();
  });

  it('holds back a character cut at the end until the rest is written', async () => {
    const euro = Buffer.from('€'); // e2 82 ac
    writeFileSync(file, Buffer.concat([Buffer.from('a'), euro.subarray(0, 2)]));
    const log = await open();
    const buffer = Buffer.alloc(16);
    expect(readChunk(log, buffer, 0, false)?.toString()).toBe('a');
    expect(readChunk(log, buffer, 1, false)).toBeUndefined();
    appendFileSync(file, euro.subarray(2));
    expect(readChunk(log, buffer, 1, false)?.toString()).toBe('€');
  });

  it('holds back a character cut by the buffer, even in a final read', async () => {
    writeFileSync(file, 'ab€');
    const log = await open();
    const buffer = Buffer.alloc(4);
    expect(readChunk(log, buffer, 0, true)?.toString()).toBe('ab');
    expect(readChunk(log, buffer, 2, true)?.toString()).toBe('€');
  });

  it('gives up a cut character at the end of a replaced file (final)', async () => {
    writeFileSync(file, Buffer.from([0x61, 0xe2, 0x82]));
    const log = await open();
    const buffer = Buffer.alloc(16);
    const bytes = readChunk(log, buffer, 0, true);
    expect(bytes && [...bytes]).toEqual([0x61, 0xe2, 0x82]);
    expect(new TextDecoder().decode(bytes)).toBe('a\ufffd');
  });
});
