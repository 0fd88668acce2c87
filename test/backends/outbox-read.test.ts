import {
  linkSync,
  lstatSync,
  mkdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isForeign,
  lstatSafe,
  readChecked,
} from '../../src/backends/outbox-read.js';
import { homePolicy } from '../../src/home/fs.js';
import { makeTempHome } from '../helpers/tmux-server.js';

describe('reading an outbox file', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ home: dir, cleanup } = makeTempHome('macs-outbox-read-'));
  });
  afterEach(() => cleanup());

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('reads the file that was checked', () => {
    const file = write('a.txt', 'yes, migrate now');
    expect(readChecked(file, lstatSync(file))?.toString('utf8')).toBe(
      'yes, migrate now',
    );
  });

  it('never follows a link', () => {
    const target = write('secret', 'do not type me');
    const link = path.join(dir, 'a.txt');
    symlinkSync(target, link);
    expect(readChecked(link, lstatSync(link))).toBeUndefined();
  });

  it('refuses a second name for another file', () => {
    const target = write('secret', 'do not type me');
    const link = path.join(dir, 'a.txt');
    linkSync(target, link);
    expect(readChecked(link, lstatSync(link))).toBeUndefined();
  });

  it('refuses a file swapped after it was checked', () => {
    const file = write('a.txt', 'checked');
    const checked = lstatSync(file);
    renameSync(write('other', 'swapped in'), file);
    expect(readChecked(file, checked)).toBeUndefined();
  });

  it('does not wait on a FIFO', () => {
    const fifo = path.join(dir, 'a.txt');
    execFileSync('mkfifo', [fifo]);
    expect(readChecked(fifo, lstatSync(fifo))).toBeUndefined();
  });

  it('is undefined for a file that is gone', () => {
    const file = write('a.txt', 'x');
    const checked = lstatSync(file);
    expect(lstatSafe(path.join(dir, 'missing.txt'))).toBeUndefined();
    expect(readChecked(path.join(dir, 'missing.txt'), checked)).toBeUndefined();
  });

  it("sees the link itself, not what it points at, and one's own file as not foreign", () => {
    mkdirSync(path.join(dir, 'sub'));
    const link = path.join(dir, 'a.txt');
    symlinkSync(path.join(dir, 'sub'), link);
    expect(lstatSafe(link)?.isSymbolicLink()).toBe(true);
    expect(isForeign(lstatSync(write('b.txt', 'x')))).toBe(false);
  });

  it('takes a file of another uid as foreign, unless the home is shared on purpose', () => {
    const info = lstatSync(write('a.txt', 'x'));
    const uid = process.getuid?.();
    if (uid === undefined) return;
    const theirs = Object.assign(info, { uid: uid + 1 });
    expect(isForeign(theirs)).toBe(true);
    homePolicy.allowShared = true;
    try {
      expect(isForeign(theirs)).toBe(false);
    } finally {
      homePolicy.allowShared = false;
    }
  });
});
