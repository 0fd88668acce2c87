import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/macs.js';
import { makeTempHome } from '../helpers/tmux-server.js';

const WRITERS = 8;
const EACH = 1000;

describe('event log under concurrent writers', () => {
  let home: string;
  let cleanup: () => void;
  beforeEach(() => ({ home, cleanup } = makeTempHome()));
  afterEach(() => cleanup());

  it(`${WRITERS} processes appending ${EACH} events each leave ${WRITERS * EACH} whole lines`, async () => {
    const logModule = pathToFileURL(
      path.join(REPO_ROOT, 'dist', 'events', 'log.js'),
    ).href;
    const pathsModule = pathToFileURL(
      path.join(REPO_ROOT, 'dist', 'home', 'paths.js'),
    ).href;
    const script = `
      const { createEventLog } = await import(${JSON.stringify(logModule)});
      const { resolveHomePaths } = await import(${JSON.stringify(pathsModule)});
      const log = createEventLog(resolveHomePaths(process.argv[1]));
      const writer = process.argv[2];
      await Promise.all(Array.from({ length: ${EACH} }, (_, i) =>
        log.emit({ agent: 'shared', type: 'warning', data: { writer, i, pad: 'x'.repeat(i % 300) } })));
    `;
    await Promise.all(
      Array.from(
        { length: WRITERS },
        (_, w) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(
              process.execPath,
              ['--input-type=module', '-e', script, home, String(w)],
              { stdio: 'inherit' },
            );
            child.on('exit', (code) =>
              code === 0
                ? resolve()
                : reject(new Error(`writer ${w} exited ${code}`)),
            );
          }),
      ),
    );
    const lines = readFileSync(
      path.join(home, '.macs', 'events', 'shared.jsonl'),
      'utf8',
    )
      .split('\n')
      .filter(Boolean);
    expect(lines).toHaveLength(WRITERS * EACH);
    const seen = new Set(
      lines.map((l) => {
        const e = JSON.parse(l) as { data: { writer: string; i: number } };
        return `${e.data.writer}:${e.data.i}`;
      }),
    );
    expect(seen.size).toBe(WRITERS * EACH);
  });
});
