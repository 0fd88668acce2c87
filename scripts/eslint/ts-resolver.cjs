// A resolver for eslint-plugin-import (its resolver interface, version 2):
// our sources import each other as `./x.js` (ESM, as Node runs the build),
// while the files on disk are `x.ts` / `x.tsx`. Only relative imports are
// resolved here; packages and node: built-ins are left to the node resolver
// (core modules count as found, so rules that need the file skip them).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { builtinModules } = require('node:module');

exports.interfaceVersion = 2;

exports.resolve = function resolve(source, file) {
  if (source.startsWith('node:') || builtinModules.includes(source))
    return { found: true, path: null };
  if (!source.startsWith('.')) {
    try {
      return {
        found: true,
        path: require.resolve(source, { paths: [path.dirname(file)] }),
      };
    } catch {
      return { found: false };
    }
  }
  const target = path.resolve(path.dirname(file), source);
  const stem = target.replace(/\.(?:js|mjs|jsx)$/, '');
  for (const candidate of [
    target,
    `${stem}.ts`,
    `${stem}.tsx`,
    path.join(target, 'index.ts'),
  ])
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile())
      return { found: true, path: candidate };
  return { found: false };
};
