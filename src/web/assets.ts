/**
 * The page's script and styles, built by scripts/build.mjs into
 * `dist/web/assets/` and served from there (read once, kept in memory).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { packageDir } from '../config/package.js';

/** The files the page loads, with their content types. */
export const PAGE_ASSETS: Record<string, string> = {
  'page.js': 'text/javascript; charset=utf-8',
  'page.css': 'text/css; charset=utf-8',
};

/** Where the built assets are. */
export function assetsDir(): string {
  return path.join(packageDir(), 'dist', 'web', 'assets');
}

/** Reads an asset once; undefined when it is not one or not built. */
export function createAssetReader(
  dir: string = assetsDir(),
): (name: string) => Promise<string | undefined> {
  const cache = new Map<string, Promise<string | undefined>>();
  return (name) => {
    if (!Object.hasOwn(PAGE_ASSETS, name)) return Promise.resolve(undefined);
    let found = cache.get(name);
    if (!found) {
      found = readFile(path.join(dir, name), 'utf8').catch(() => undefined);
      cache.set(name, found);
    }
    return found;
  };
}
