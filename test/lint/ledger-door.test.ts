// One door to the ledger (issue 30): 13 of 22 writers of a request's stage
// called the ledger's `recordStep` themselves and ignored a step it refused
// (no `request.step-refused`, the step's own event left all the same); only
// the bridge's `takeStep` applied, saved, emitted and reported in one call.
// Now `state/take-step.ts` is the one door and `recordStep` is private to
// src/state/. Strategy: parse every module of src/ with the TypeScript
// compiler and fail on any import of `recordStep` (or a namespace import or
// `export *` of state/ledger.ts, which would hand it on) from outside
// src/state/, and on any re-export of it from inside.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/macs.js';

const SRC = path.join(REPO_ROOT, 'src');
const STATE = path.join(SRC, 'state');
const LEDGER = path.join(STATE, 'ledger.ts');
const PRIVATE = 'recordStep';

function listModules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listModules(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')
      ? [full]
      : [];
  });
}

/** Does `specifier`, imported by `from`, name state/ledger.ts? */
function namesLedger(from: string, specifier: string): boolean {
  if (!specifier.startsWith('.')) return false;
  const stem = path
    .resolve(path.dirname(from), specifier)
    .replace(/\.(js|ts)$/, '');
  return `${stem}.ts` === LEDGER;
}

function bindingNames(
  elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>,
): string[] {
  return elements.map((e) => (e.propertyName ?? e.name).text);
}

/** The ways `file` takes recordStep past the door, one line each. */
function findLeaks(file: string, text: string): string[] {
  const inState = file.startsWith(`${STATE}${path.sep}`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  const at = (node: ts.Node): string => {
    const { line } = source.getLineAndCharacterOfPosition(
      node.getStart(source),
    );
    return `${path.relative(REPO_ROOT, file)}:${String(line + 1)}`;
  };
  const leaks: string[] = [];
  for (const node of source.statements) {
    if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      namesLedger(file, node.moduleSpecifier.text)
    ) {
      const clause = node.exportClause;
      if (!clause || ts.isNamespaceExport(clause))
        leaks.push(`${at(node)}: re-exports all of state/ledger.ts`);
      else if (bindingNames(clause.elements).includes(PRIVATE))
        leaks.push(`${at(node)}: re-exports ${PRIVATE}`);
    }
    if (
      inState &&
      ts.isExportDeclaration(node) &&
      !node.moduleSpecifier &&
      node.exportClause &&
      ts.isNamedExports(node.exportClause) &&
      bindingNames(node.exportClause.elements).includes(PRIVATE)
    )
      leaks.push(`${at(node)}: re-exports ${PRIVATE}`);
    if (
      inState ||
      !ts.isImportDeclaration(node) ||
      !ts.isStringLiteral(node.moduleSpecifier) ||
      !namesLedger(file, node.moduleSpecifier.text)
    )
      continue;
    const bindings = node.importClause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings))
      leaks.push(`${at(node)}: imports all of state/ledger.ts`);
    else if (bindings && bindingNames(bindings.elements).includes(PRIVATE))
      leaks.push(`${at(node)}: imports ${PRIVATE}`);
  }
  return leaks;
}

describe('the one door to the ledger', () => {
  it('no module outside src/state/ imports recordStep', () => {
    const leaks = listModules(SRC).flatMap((file) =>
      findLeaks(file, readFileSync(file, 'utf8')),
    );
    expect(leaks).toEqual([]);
  });

  it('would see each way past the door (the check itself)', () => {
    const bridge = path.join(SRC, 'bridge', 'probe.ts');
    const state = path.join(STATE, 'probe.ts');
    expect(
      findLeaks(
        bridge,
        [
          "import { applyStep, recordStep as step } from '../state/ledger.js';",
          "import * as ledger from '../state/ledger.js';",
          "export { recordStep } from '../state/ledger.js';",
          "import { takeStep } from '../state/take-step.js';",
          "import { retireRecord } from '../state/ledger.js';",
        ].join('\n'),
      ),
    ).toEqual([
      'src/bridge/probe.ts:1: imports recordStep',
      'src/bridge/probe.ts:2: imports all of state/ledger.ts',
      'src/bridge/probe.ts:3: re-exports recordStep',
    ]);
    expect(
      findLeaks(
        state,
        [
          "import { recordStep } from './ledger.js';",
          'export { recordStep };',
          "export * from './ledger.js';",
        ].join('\n'),
      ),
    ).toEqual([
      'src/state/probe.ts:2: re-exports recordStep',
      'src/state/probe.ts:3: re-exports all of state/ledger.ts',
    ]);
  });
});
