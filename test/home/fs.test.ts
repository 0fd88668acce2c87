import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendPrivateSync,
  ensurePrivateDir,
  ensurePrivateFileSync,
  homePolicy,
  unsafeReason,
  UnsafePathError,
} from '../../src/home/fs.js';
import { makeTempHome } from '../helpers/tmux-server.js';

// Issue 16, items 1 and 2: links planted in macs's folders were followed
// (a root bridge appended a worker's output to a root-only file), and a home
// another user owns or may write to was accepted silently.
describe('runtime files are never reached through a link', () => {
  let home: string;
  let cleanup: () => void;
  let secret: string;
  beforeEach(() => {
    ({ home, cleanup } = makeTempHome('macs-fs-'));
    secret = path.join(home, 'secret');
    writeFileSync(secret, 'root only\n', { mode: 0o600 });
  });
  afterEach(() => {
    homePolicy.allowShared = false;
    cleanup();
  });

  it('appends to an event log, but never through a link or a second name', () => {
    const log = path.join(home, 'w.jsonl');
    appendPrivateSync(log, 'one\n');
    appendPrivateSync(log, 'two\n');
    expect(readFileSync(log, 'utf8')).toBe('one\ntwo\n');
    expect(lstatSync(log).mode & 0o777).toBe(0o600);

    // In a folder only we can write to, what was planted is replaced.
    const warnings: string[] = [];
    homePolicy.warn = (m) => warnings.push(m);
    const planted = path.join(home, 'planted.jsonl');
    symlinkSync(secret, planted);
    appendPrivateSync(planted, 'x\n');
    expect(lstatSync(planted).isSymbolicLink()).toBe(false);
    expect(readFileSync(planted, 'utf8')).toBe('x\n');
    const twin = path.join(home, 'twin.jsonl');
    linkSync(secret, twin);
    appendPrivateSync(twin, 'y\n');
    expect(readFileSync(twin, 'utf8')).toBe('y\n');
    expect(warnings).toHaveLength(2);
    expect(readFileSync(secret, 'utf8')).toBe('root only\n');

    // In a folder others could write to, it is refused.
    const open = path.join(home, 'open');
    mkdirSync(open, { mode: 0o755 });
    chmodSync(open, 0o755);
    symlinkSync(secret, path.join(open, 'w.jsonl'));
    expect(() => appendPrivateSync(path.join(open, 'w.jsonl'), 'z')).toThrow(
      UnsafePathError,
    );
    expect(readFileSync(secret, 'utf8')).toBe('root only\n');
  });

  it('replaces a link planted where a pane log goes with a file of its own', () => {
    const log = path.join(home, 'worker-1.log');
    symlinkSync(secret, log);
    ensurePrivateFileSync(log);
    expect(lstatSync(log).isSymbolicLink()).toBe(false);
    expect(lstatSync(log).isFile()).toBe(true);
    expect(readFileSync(secret, 'utf8')).toBe('root only\n');
  });

  it('never follows a folder that is a link, and tightens one others could write to', async () => {
    const elsewhere = path.join(home, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o755 });
    chmodSync(elsewhere, 0o755);
    // Inside a folder only we can write to: the link is replaced by a folder.
    const day = path.join(home, '2026-11-24');
    symlinkSync(elsewhere, day);
    await ensurePrivateDir(day);
    expect(lstatSync(day).isDirectory()).toBe(true);
    expect(statSync(elsewhere).mode & 0o777).toBe(0o755);
    // Inside one others could write to: refused.
    const shared = path.join(elsewhere, 'day');
    symlinkSync(home, shared);
    await expect(ensurePrivateDir(shared)).rejects.toThrow(
      `${shared} is a symbolic link`,
    );
    const open = path.join(home, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    await ensurePrivateDir(open);
    expect(statSync(open).mode & 0o777).toBe(0o700);
  });

  it.each([
    [{ uid: 4242, mode: 0o40700 }, false, /owned by another user \(uid 4242\)/],
    [{ mode: 0o40777 }, false, /can be written by every user \(mode 777\)/],
    [{ mode: 0o40770 }, false, /can be written by its group \(mode 770\)/],
    [{ mode: 0o40755 }, false, undefined],
    [{ link: true, mode: 0o120777 }, false, /symbolic link/],
  ])('judges %o', (fields, _unused, expected) => {
    const info = {
      isSymbolicLink: () => 'link' in fields,
      uid: 'uid' in fields ? fields.uid : (process.getuid?.() ?? 0),
      mode: fields.mode,
    };
    const reason = unsafeReason(info);
    if (expected) expect(reason?.why).toMatch(expected);
    else expect(reason).toBeUndefined();
  });

  it('--allow-shared-home turns another owner into a warning, never a link', () => {
    homePolicy.allowShared = true;
    const open = path.join(home, 'open');
    mkdirSync(open, { mode: 0o755 });
    chmodSync(open, 0o755);
    const planted = path.join(open, 'planted');
    symlinkSync(secret, planted);
    expect(() => appendPrivateSync(planted, 'x')).toThrow(UnsafePathError);
    expect(existsSync(planted)).toBe(true);
    expect(readFileSync(secret, 'utf8')).toBe('root only\n');
  });
});
