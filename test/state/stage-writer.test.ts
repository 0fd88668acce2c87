// One writer of a request's stage (issue 23): every change of a request's
// stage goes through the ledger's transition table (state/ledger.ts
// `recordStep`). The bug was direct assignments of `record.stage` in four
// modules of the bridge, which could move a request back in a race.
// Strategy: read every source file and fail on any assignment to a `stage`
// property outside the ledger.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const WRITER = path.join('state', 'ledger.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** `x.stage = …`, `x['stage'] = …`, `x.stage ??= …` (not `===`). */
const ASSIGNS_STAGE =
  /(?:\.stage|\[\s*['"`]stage['"`]\s*\])\s*(?:\?\?|\|\||&&)?=(?!=)/;

describe('the one writer of a request stage', () => {
  it('no file of src/ but the ledger assigns a stage', () => {
    const offenders = sourceFiles(SRC).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({
          line,
          at: `${path.relative(SRC, file)}:${String(i + 1)}`,
        }))
        .filter(
          ({ line, at }) =>
            ASSIGNS_STAGE.test(line) && !at.startsWith(`${WRITER}:`),
        )
        .map(({ line, at }) => `${at}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the ledger assigns it in one place', () => {
    const text = readFileSync(path.join(SRC, WRITER), 'utf8');
    expect(text.split('\n').filter((l) => ASSIGNS_STAGE.test(l))).toHaveLength(
      1,
    );
  });

  it('would see the assignments it forbids', () => {
    for (const line of [
      "record.stage = 'delivered';",
      'r.stage=next;',
      "record['stage'] = 'expired';",
      'record.stage ??= x;',
    ])
      expect(ASSIGNS_STAGE.test(line)).toBe(true);
    for (const line of [
      "if (record.stage === 'answered')",
      'stage: record.stage,',
    ])
      expect(ASSIGNS_STAGE.test(line)).toBe(false);
  });
});
