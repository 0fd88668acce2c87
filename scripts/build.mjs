// Builds dist/ with esbuild: one bundle of macs and its dependencies, split
// into chunks, so a command loads a handful of files instead of the hundreds
// of modules behind it (Node compiling and linking each module was most of
// a command's start-up, issue 15). Type checking is `npm run typecheck`.
//
// Layout: dist/main.js (the bin); one entry per module that is imported
// lazily (`import('./start-run.js')` becomes dist/cli/start-run.js), so each command
// keeps its own file and loads only the chunks it uses; the demo's scripted
// agents (spawned by path); the shared code in dist/chunks/. ink and react are
// bundled too, in the live status view's own chunks (only it loads them):
// loaded from node_modules they cost the view's start 0.35 s of CPU (Node
// lexing react's CommonJS and opening its files). pino stays in node_modules
// (loaded on the first log line).
import { build } from 'esbuild';
import { readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');

/** Every source file under dir (.ts, .tsx). */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return /\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

/** The modules some source imports lazily by a relative path. */
function lazyModules() {
  const found = new Set();
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(
      /\bimport\(\s*'(\.\.?\/[^']+)\.js'\s*\)/g,
    )) {
      const base = path.resolve(path.dirname(file), match[1]);
      const target = [`${base}.ts`, `${base}.tsx`].find((f) => existsSync(f));
      if (!target)
        throw new Error(`${file}: no source for import('${match[1]}.js')`);
      found.add(target);
    }
  }
  return [...found];
}

const entryPoints = [
  path.join(SRC, 'main.ts'),
  ...lazyModules(),
  // Spawned by path (`macs start --demo`).
  path.join(SRC, 'session', 'demo', 'worker.ts'),
  path.join(SRC, 'session', 'demo', 'controller.ts'),
  // Imported by scripts/bench.mjs and scripts/bench-screen.mjs, and by
  // test/integration/events-concurrency (8 processes writing one event log).
  path.join(SRC, 'config', 'presets', 'index.ts'),
  path.join(SRC, 'screen', 'reader.ts'),
  path.join(SRC, 'events', 'log.ts'),
  path.join(SRC, 'home', 'paths.ts'),
];

rmSync(DIST, { recursive: true, force: true });
await build({
  entryPoints: [...new Set(entryPoints)],
  outdir: DIST,
  outbase: SRC,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // Bundled CommonJS dependencies call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __macsCreateRequire } from 'node:module'; const require = __macsCreateRequire(import.meta.url);",
  },
  // pino: loaded on a command's first log line (src/log/logger.ts).
  external: ['react-devtools-core', 'pino'],
  logLevel: 'warning',
});

// The page of `macs web` (src/web/page/): its script and styles, bundled for
// the browser with xterm.js and served by macs itself (no CDN).
await build({
  entryPoints: {
    page: path.join(SRC, 'web', 'page', 'page-entry.ts'),
  },
  outdir: path.join(DIST, 'web', 'assets'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome110', 'firefox110', 'safari16'],
  minify: true,
  logLevel: 'warning',
});
await build({
  entryPoints: { page: path.join(SRC, 'web', 'page', 'style.css') },
  outdir: path.join(DIST, 'web', 'assets'),
  bundle: true,
  minify: true,
  logLevel: 'warning',
});
