import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliDeps } from '../../src/cli/options.js';
import { createMemoryOutput } from '../../src/cli/output.js';
import { runRespond } from '../../src/cli/respond.js';
import { ConfigError } from '../../src/errors.js';
import { createHomeFixture } from '../state/home-fixture.js';

// runRespond writes through state/outbox.ts (shared with the status view);
// these cases pin the messages and exit codes it had before.
describe('macs respond', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  let deps: CliDeps;
  let output: ReturnType<typeof createMemoryOutput>;
  beforeEach(() => {
    fx = createHomeFixture();
    output = createMemoryOutput();
    deps = {
      output,
      env: {},
      cwd: fx.home,
      runTmux: () => Promise.resolve({ exitCode: 0, stdout: '', stderr: '' }),
      readStdin: () => Promise.resolve('from stdin'),
      stdinIsTTY: true,
      interrupted: new Promise(() => undefined),
    };
  });
  afterEach(() => fx.cleanup());

  const opts = () => ({ home: fx.home, logLevel: 'silent' as const });

  it('writes the answer and says where', async () => {
    fx.writeInboxMeta('w-q1', { id: 'w-q1' });
    expect(await runRespond('w-q1', 'go', opts(), deps)).toBe(0);
    expect(readFileSync(path.join(fx.paths.outbox, 'w-q1.txt'), 'utf8')).toBe(
      'go\n',
    );
    expect(output.stdout).toEqual([
      'answered w-q1 (2 chars) -> outbox/w-q1.txt',
    ]);
  });

  // Issue 29: control characters were removed from an answer silently.
  it('says how many characters of the answer will not be typed, and why', async () => {
    fx.writeInboxMeta('w-q1', { id: 'w-q1' });
    expect(
      await runRespond('w-q1', '\x1b[31mred\x1b[0m answer\x07', opts(), deps),
    ).toBe(0);
    expect(output.stderr).toEqual([
      'macs respond: 10 characters of it will not be typed: escape sequences, control and invisible characters never reach a pane',
    ]);
  });

  it('refuses a request that is not pending, an empty answer, a second answer; --force overrides', async () => {
    await expect(runRespond('w-q1', 'go', opts(), deps)).rejects.toMatchObject({
      message: `no pending request 'w-q1' in ${fx.paths.inbox}`,
      exitCode: 1,
      hint: expect.stringContaining('--force'),
    });
    fx.writeInboxMeta('w-q1', { id: 'w-q1' });
    await expect(runRespond('w-q1', '  ', opts(), deps)).rejects.toBeInstanceOf(
      ConfigError,
    );
    mkdirSync(fx.paths.outbox, { recursive: true });
    writeFileSync(path.join(fx.paths.outbox, 'w-q1.txt'), 'first\n');
    await expect(runRespond('w-q1', 'second', opts(), deps)).rejects.toThrow(
      /already has an answer waiting/,
    );
    expect(
      await runRespond('w-q1', 'second', { ...opts(), force: true }, deps),
    ).toBe(0);
    await expect(runRespond('../etc', 'x', opts(), deps)).rejects.toThrow(
      /is not a request id/,
    );
  });
});
