// No import cycles in src/, type-only imports included (issue 23). ESLint's
// import/no-cycle skips `import type`, so two modules could lean on each
// other's types and nothing said so. This test reads every module of src/
// with the TypeScript compiler's import scanner (static imports, re-exports,
// `import type`, `import('…')` types and calls), resolves the relative ones
// to files, and fails naming each cycle it finds.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/macs.js';

const SRC = path.join(REPO_ROOT, 'src');

function listModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listModules(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')
      ? [full]
      : [];
  });
}

// `./x.js` names `x.ts` (or `x.tsx`); a folder import names its index.
function resolveImport(
  from: string,
  specifier: string,
  known: Set<string>,
): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|ts|tsx|mjs)$/, '');
  const candidates = [
    `${stem}.ts`,
    `${stem}.tsx`,
    path.join(base, 'index.ts'),
    path.join(base, 'index.tsx'),
  ];
  return candidates.find((c) => known.has(c));
}

/** Each module's imports (by absolute path) among the given modules. */
function buildImportGraph(
  modules: string[],
  read: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): Map<string, string[]> {
  const known = new Set(modules);
  const graph = new Map<string, string[]>();
  for (const file of modules) {
    const info = ts.preProcessFile(read(file), true, true);
    const targets = info.importedFiles
      .map((ref) => resolveImport(file, ref.fileName, known))
      .filter((t): t is string => t !== undefined && t !== file);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of more than one module (Tarjan). */
function findCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

function describeCycles(cycles: string[][]): string[] {
  return cycles.map((c) =>
    c.map((f) => path.relative(REPO_ROOT, f)).join(' <-> '),
  );
}

/**
 * The graph of src/'s folders (a module at the top, like errors.ts, is its
 * own): an edge where any module of one imports any module of the other.
 */
function folderGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const folderOf = (file: string): string =>
    path.relative(SRC, file).split(path.sep)[0] ?? file;
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const edges = folders.get(from) ?? new Set<string>();
    folders.set(from, edges);
    for (const target of targets)
      if (folderOf(target) !== from) edges.add(folderOf(target));
  }
  return new Map([...folders].map(([f, edges]) => [f, [...edges]]));
}

describe('the import graph of src/', () => {
  it('has no cycle, counting type-only imports', () => {
    const cycles = findCycles(buildImportGraph(listModules(SRC)));
    expect(describeCycles(cycles)).toEqual([]);
  });

  // Folders had a cycle of type-only imports (issue 30): protocol/ took
  // `DecidedBy` from state/, which imports protocol/. Strategy: fold the
  // module graph into folders and fail naming each cycle between them.
  it('has no cycle between folders, counting type-only imports', () => {
    const cycles = findCycles(folderGraph(buildImportGraph(listModules(SRC))));
    const named = cycles.map((c) => c.join(' <-> '));
    expect(named).toEqual([]);
  });

  it('finds a cycle made only of type imports (the check itself)', () => {
    const a = path.join(SRC, 'probe', 'a.ts');
    const b = path.join(SRC, 'probe', 'b.ts');
    const c = path.join(SRC, 'probe', 'c.ts');
    const texts: Record<string, string> = {
      [a]: "import type { B } from './b.js';\nexport type A = B[];\n",
      [b]: "export type { C } from './c.js';\nexport type B = number;\n",
      [c]: "export type C = import('./a.js').A;\n",
    };
    const graph = buildImportGraph(Object.keys(texts), (f) => texts[f]!);
    expect(describeCycles(findCycles(graph))).toEqual([
      'src/probe/a.ts <-> src/probe/b.ts <-> src/probe/c.ts',
    ]);
  });
});
