/**
 * Files of the macs package itself: its `prompts/`, its built `dist/main.js`
 * and the demo's scripts. Found from the package's directory (the one holding
 * its package.json), never relative to the module asking: built, a module's
 * code lands in a bundle chunk at another depth than its source (scripts/build.mjs).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(import.meta.url);
let found: string | undefined;

/** The package's directory: the nearest one above this module with a package.json. */
export function packageDir(): string {
  if (found !== undefined) return found;
  let dir = path.dirname(HERE);
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${HERE}`);
    dir = parent;
  }
  found = dir;
  return dir;
}

/** `prompts/` of the package (with a trailing separator). */
export function packagedPromptsDir(): string {
  return path.join(packageDir(), 'prompts') + path.sep;
}

/**
 * A file of the build (`dist/<relative>`), when this code runs from the build;
 * undefined when it runs from the TypeScript sources (tests, tsx).
 */
export function builtFile(relative: string): string | undefined {
  const dist = path.join(packageDir(), 'dist') + path.sep;
  return HERE.startsWith(dist) ? path.join(dist, relative) : undefined;
}
