// Node's own recursive mkdir (Node 20, sync or not) never returns when a
// parent exists but can hold no child, such as a folder deleted while it is
// the process's working folder (or a mount's root): `macs stop` processes
// on test hosts whose home had been removed spun at a full core for half an
// hour. Strategy: a real child process whose working folder is deleted
// under it creates folders by a relative path with makeDirs and
// makeDirsSync; each must end with ENOENT within the time limit (the child
// is killed and the test fails if either hangs).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { makeDirs, makeDirsSync } from '../../src/home/make-dirs.js';

const MODULE = fileURLToPath(
  new URL('../../src/home/make-dirs.ts', import.meta.url),
);

// tsx's loader by its path: the child runs in a temporary folder.
const TSX = pathToFileURL(
  createRequire(import.meta.url).resolve('tsx/esm'),
).href;

const CHILD = `
import { rmdirSync } from 'node:fs';
const { makeDirs, makeDirsSync } = await import(process.env.MODULE);
rmdirSync(process.cwd());
const outcome = async (run) => {
  try { await run(); return 'made'; } catch (error) { return error.code; }
};
console.log(JSON.stringify({
  async: await outcome(() => makeDirs('a/b', 0o700)),
  sync: await outcome(() => makeDirsSync('c/d', 0o700)),
}));
`;

describe('makeDirs', () => {
  it('ends with ENOENT in a working folder that was deleted', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'macs-deleted-cwd-'));
    try {
      const child = await execa(
        process.execPath,
        ['--import', TSX, '--input-type=module', '-e', CHILD],
        {
          cwd: dir,
          env: { ...process.env, MODULE },
          timeout: 60_000,
          reject: false,
        },
      );
      expect(child.timedOut, 'a makeDirs never returned').toBe(false);
      expect(JSON.parse(child.stdout)).toEqual({
        async: 'ENOENT',
        sync: 'ENOENT',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('makes missing parents, private, and accepts a folder that exists', async () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'macs-make-dirs-'));
    try {
      const deep = path.join(base, 'x', 'y', 'z');
      await makeDirs(deep, 0o700);
      await makeDirs(deep, 0o700);
      makeDirsSync(path.join(base, 'x', 'w'), 0o700);
      expect(statSync(deep).isDirectory()).toBe(true);
      expect(statSync(path.join(base, 'x')).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(base, 'x', 'w')).isDirectory()).toBe(true);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('reports a file in the way', async () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'macs-make-dirs-'));
    try {
      const file = path.join(base, 'f');
      await import('node:fs').then((fs) => fs.writeFileSync(file, ''));
      await expect(makeDirs(path.join(file, 'a'), 0o700)).rejects.toMatchObject(
        { code: 'ENOTDIR' },
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
