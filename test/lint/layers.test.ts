// The layer and cycle rules of eslint.config.js (issue 14): run ESLint on
// small files written into src/ for the test, so a broken resolver or a
// rule that stopped matching fails here rather than letting cycles in
// unseen. (The source itself is checked by npm run lint, in npm run test:all.)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/macs.js';

const written: string[] = [];

function write(relative: string, text: string): string {
  const file = path.join(REPO_ROOT, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  written.push(file);
  return file;
}

async function ruleIds(files: string[]): Promise<string[]> {
  const eslint = new ESLint({ cwd: REPO_ROOT });
  const results = await eslint.lintFiles(files);
  return results.flatMap((r) => r.messages.map((m) => String(m.ruleId)));
}

afterAll(() => {
  for (const file of written) rmSync(file, { force: true });
  rmSync(path.join(REPO_ROOT, 'src', 'lint-probe'), {
    recursive: true,
    force: true,
  });
});

describe('the import rules of src/', () => {
  it('finds a cycle between two modules', async () => {
    const a = write(
      'src/lint-probe/a.ts',
      "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
    );
    const b = write(
      'src/lint-probe/b.ts',
      "import { a } from './a.js';\nexport const b = (): number => (a.length > 0 ? 1 : 0);\n",
    );
    expect(await ruleIds([a, b])).toContain('import/no-cycle');
  }, 120_000);

  it('refuses an import up the layers and node:child_process, but lets a type import through', async () => {
    const up = write(
      'src/protocol/lint-probe-up.ts',
      "import { createLogTail } from '../bridge/tail.js';\nexport const t = createLogTail;\n",
    );
    const typeOnly = write(
      'src/protocol/lint-probe-type.ts',
      "import type { AgentProfile } from '../bridge/supervisor.js';\nexport type P = AgentProfile;\n",
    );
    const proc = write(
      'src/session/lint-probe-proc.ts',
      "import { execFile } from 'node:child_process';\nexport const e = execFile;\n",
    );
    expect(await ruleIds([up])).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(await ruleIds([typeOnly])).toEqual([]);
    expect(await ruleIds([proc])).toContain('no-restricted-imports');
  }, 120_000);

  it('keeps the doors apart: web/ and mcp/ import no other door, not even a type (issue 30)', async () => {
    // Before issue 30, web/ used mcp/ as a service library and mcp/ took
    // types from cli/; the layer rule lets type imports cross, so a door
    // leaning on another door's types went unseen. DOORS refuses them.
    const webToMcp = write(
      'src/web/lint-probe-door.ts',
      "import type { ToolContext } from '../mcp/tool.js';\nexport type T = ToolContext;\n",
    );
    const mcpToCli = write(
      'src/mcp/lint-probe-door.ts',
      "import type { CliDeps } from '../cli/options.js';\nexport type D = CliDeps;\n",
    );
    const shared = write(
      'src/web/lint-probe-shared.ts',
      "import { Refusal } from '../operations/refusal.js';\nexport const R = Refusal;\n",
    );
    expect(await ruleIds([webToMcp])).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(await ruleIds([mcpToCli])).toContain(
      '@typescript-eslint/no-restricted-imports',
    );
    expect(await ruleIds([shared])).toEqual([]);
  }, 120_000);
});
