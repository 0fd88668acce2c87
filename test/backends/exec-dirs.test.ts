import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRunDir, sweepRunDirs } from '../../src/backends/exec-dirs.js';

/** The pid of a process that has ended (and been reaped). */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? 0;
}

describe('exec run folders', () => {
  let root: string;
  beforeEach(() => {
    root = path.join(
      mkdtempSync(path.join(os.tmpdir(), 'macs-exec-dirs-')),
      'exec',
    );
  });
  afterEach(() => rmSync(path.dirname(root), { recursive: true, force: true }));

  it('makes a private folder per run, named after this process', async () => {
    const a = await makeRunDir(root);
    const b = await makeRunDir(root);
    expect(a).not.toBe(b);
    expect(path.basename(a)).toMatch(new RegExp(`^${process.pid}-`));
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(a).mode & 0o777).toBe(0o700);
  });

  it('removes only the folders of processes that are gone', async () => {
    const gone = await endedPid();
    const running = spawn(process.execPath, [
      '-e',
      'setTimeout(() => {}, 60000)',
    ]);
    try {
      const mine = await makeRunDir(root);
      for (const name of [`${gone}-abc123`, `${running.pid}-def456`, 'notes'])
        mkdirSync(path.join(root, name));
      expect(await sweepRunDirs(root)).toEqual([`${gone}-abc123`]);
      expect(readdirSync(root).sort()).toEqual(
        [path.basename(mine), `${running.pid}-def456`, 'notes'].sort(),
      );
    } finally {
      running.kill();
    }
  });

  it('finds nothing to remove where no folder was made yet', async () => {
    expect(await sweepRunDirs(root)).toEqual([]);
  });
});
