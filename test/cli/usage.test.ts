// `macs usage` and `agents[].usage` of `macs status --json` read what the
// bridge recorded under .macs/usage/ (docs/usage.md), priced with the
// config's table over the defaults.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryOutput } from '../../src/cli/output.js';
import { buildProgram } from '../../src/cli/program.js';
import type { CliDeps } from '../../src/cli/options.js';
import type { LedgerEntry } from '../../src/usage/account.js';
import {
  appendLedger,
  totalsOf,
  writeTotals,
} from '../../src/usage/usage-ledger.js';
import { createHomeFixture } from '../state/home-fixture.js';

function makeDeps(home: string) {
  const output = createMemoryOutput();
  const deps: CliDeps = {
    output,
    env: {},
    cwd: home,
    runTmux: () =>
      Promise.resolve({ exitCode: 1, stdout: '', stderr: 'no server running' }),
    readStdin: () => Promise.resolve(''),
    stdinIsTTY: false,
    interrupted: new Promise(() => undefined),
  };
  return { deps, output };
}

const entry = (
  model: string | null,
  ts: string,
  over: Partial<LedgerEntry> = {},
): LedgerEntry => ({
  ts,
  src: '/records/a.jsonl',
  off: 100,
  model,
  calls: 1,
  inputTokens: 1_000_000,
  outputTokens: 100_000,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  ...over,
});

describe('macs usage and status --json usage', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(async () => {
    fx = createHomeFixture();
    writeFileSync(
      path.join(fx.home, 'macs.config.json'),
      JSON.stringify({ prices: { 'house-model': { input: 2, output: 10 } } }),
    );
    const w1 = [
      entry('house-model', '2026-11-26T10:00:00.000Z'),
      entry('house-model', '2026-11-27T10:00:00.000Z'),
    ];
    const w2 = [
      entry('mystery-model', '2026-11-27T11:00:00.000Z', {
        cacheReadTokens: 50,
      }),
    ];
    await appendLedger(fx.paths, 'worker-1', w1);
    await appendLedger(fx.paths, 'worker-2', w2);
    await writeTotals(fx.paths, totalsOf('worker-1', w1, new Date()));
    await writeTotals(fx.paths, totalsOf('worker-2', w2, new Date()));
    await fx.writeState('worker-1');
    await fx.writeState('worker-2');
    await fx.writeState('worker-3');
  });
  afterEach(() => fx.cleanup());

  const macs = async (...args: string[]) => {
    const { deps, output } = makeDeps(fx.home);
    const code = await buildProgram(deps).run([...args, '--home', fx.home]);
    return { code, output };
  };

  it('status --json: tokens and cost per agent, null cost for a model without a price, null usage when none', async () => {
    const { code, output } = await macs('status', '--json');
    expect(code).toBe(0);
    const snapshot = JSON.parse(output.stdout[0] ?? '') as {
      agents: { name: string; usage: unknown }[];
    };
    const usage = Object.fromEntries(
      snapshot.agents.map((a) => [a.name, a.usage]),
    );
    expect(usage['worker-1']).toEqual({
      model: 'house-model',
      inputTokens: 2_000_000,
      outputTokens: 200_000,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      // 2 × (1M × $2 + 0.1M × $10) per million
      costUsd: 6,
    });
    expect(usage['worker-2']).toMatchObject({
      model: 'mystery-model',
      inputTokens: 1_000_000,
      cacheReadTokens: 50,
      costUsd: null,
    });
    expect(usage['worker-3']).toBeNull();
  });

  it('macs usage --json --by model, and --since', async () => {
    const all = await macs('usage', '--json', '--by', 'model');
    expect(all.code).toBe(0);
    const report = JSON.parse(all.output.stdout[0] ?? '') as {
      rows: { key: string; calls: number; costUsd: number | null }[];
      total: { calls: number; costUsd: number | null };
    };
    expect(report.rows).toMatchObject([
      { key: 'house-model', calls: 2, costUsd: 6 },
      { key: 'mystery-model', calls: 1, costUsd: null },
    ]);
    expect(report.total).toMatchObject({ calls: 3, costUsd: null });
    const since = await macs(
      'usage',
      '--json',
      '--since',
      '2026-11-27T00:00:00Z',
    );
    const recent = JSON.parse(since.output.stdout[0] ?? '') as {
      rows: { key: string; calls: number }[];
    };
    expect(recent.rows).toEqual([
      expect.objectContaining({ key: 'worker-1', calls: 1 }),
      expect.objectContaining({ key: 'worker-2', calls: 1 }),
    ]);
  });

  it('prints a table with a total, and refuses a bad --since or --by', async () => {
    const text = await macs('usage', '--by', 'day');
    expect(text.code).toBe(0);
    expect(text.output.stdout.join('\n')).toMatch(/2026-11-26.*\$3\.00/);
    expect(text.output.stdout.join('\n')).toMatch(/total\s+3\s.*\$\?/);
    await expect(macs('usage', '--since', 'yesterday-ish')).rejects.toThrow(
      /not a duration/,
    );
    const badBy = await macs('usage', '--by', 'planet').then(
      (r) => r.code,
      (error: { exitCode?: number }) => error.exitCode,
    );
    expect(badBy).toBe(2);
  });
});
