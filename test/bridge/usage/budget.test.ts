// Budgets (docs/usage.md): at 80% a person is called, at 100% the agent is
// paused (the control file `macs pause` writes) and, with onBudget
// "interrupt", its interrupt key pressed; each level once per session and
// scope, across readings and a second bridge; a dollar budget over a model
// without a price is said once and never guessed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAttention } from '../../../src/bridge/route/attention.js';
import { createBudgetCheck } from '../../../src/bridge/usage/budget.js';
import type { UsageAgent } from '../../../src/bridge/usage/usage-watch.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import { createEventLog, readEvents } from '../../../src/events/log.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { createSilentLogger } from '../../../src/log/logger.js';
import { isDeliveryPaused } from '../../../src/state/person-controls.js';
import { readPauseReason } from '../../../src/state/pause-reason.js';
import type { TmuxClient } from '../../../src/tmux/client.js';
import type { UsageFile } from '../../../src/usage/usage-ledger.js';
import { makeTempHome } from '../../helpers/tmux-server.js';

describe('budgets', () => {
  let cleanup: () => void;
  let paths: HomePaths;
  beforeEach(() => {
    const temp = makeTempHome('macs-budget-');
    cleanup = temp.cleanup;
    paths = resolveHomePaths(temp.home);
  });
  afterEach(() => cleanup());

  const keys: [string, string][] = [];
  const tmux = {
    sendKey: (pane: string, key: string) => {
      keys.push([pane, key]);
      return Promise.resolve();
    },
  } as unknown as TmuxClient;

  function check(config: Record<string, unknown>) {
    const parsed = ConfigSchema.parse(config);
    const events = createEventLog(paths);
    const log = createSilentLogger();
    return createBudgetCheck({
      paths,
      config: parsed,
      events,
      log,
      tmux,
      attention: createAttention({
        paths,
        config: { ...parsed.attention, tmuxMessage: false },
        events,
        log,
      }),
    });
  }

  const file = (agent: string, tokens: number, model = 'gpt-5'): UsageFile => ({
    version: 1,
    agent,
    updatedAt: '2026-11-27T10:00:00.000Z',
    lastModel: model,
    models: [
      {
        model,
        calls: 1,
        inputTokens: tokens,
        outputTokens: 0,
        cacheReadTokens: null,
        cacheWriteTokens: null,
      },
    ],
  });
  const worker: UsageAgent = {
    name: 'worker-1',
    preset: 'claude',
    pane: '%1',
    budget: { tokens: 1000 },
  };
  const session = { id: 's1' };
  const budgetEvents = async () =>
    (await readEvents(paths, { type: 'attention' })).filter(
      (e) => e.data?.reason === 'budget',
    );

  it('calls a person at 80%, pauses and interrupts at 100%, each once', async () => {
    const checkBudgets = check({ onBudget: 'interrupt' });
    const read = (tokens: number) =>
      checkBudgets(
        new Map([['worker-1', file('worker-1', tokens)]]),
        [worker],
        session,
      );
    await read(700);
    expect(await budgetEvents()).toHaveLength(0);
    await read(850);
    await read(900);
    expect((await budgetEvents()).map((e) => e.data?.percent)).toEqual([80]);
    expect(isDeliveryPaused(paths, 'worker-1')).toBe(false);
    await read(1000);
    await read(1200);
    expect((await budgetEvents()).map((e) => e.data?.percent)).toEqual([
      80, 100,
    ]);
    expect(isDeliveryPaused(paths, 'worker-1')).toBe(true);
    const paused = await readEvents(paths, { type: 'delivery.paused' });
    expect(paused.map((e) => [e.agent, e.data?.by])).toEqual([
      ['worker-1', 'budget'],
    ]);
    expect(keys).toEqual([['%1', 'Escape']]);
    // The control file says why, for wait_for_request's notice (docs/mcp.md).
    expect(await readPauseReason(paths, 'worker-1')).toMatchObject({
      by: 'budget',
      scope: 'agent',
      percent: 100,
      budget: { tokens: 1000 },
      spentTokens: 1000,
    });
    // Another bridge (or a restart) reading the same session: nothing again.
    await check({})(
      new Map([['worker-1', file('worker-1', 1500)]]),
      [worker],
      session,
    );
    expect(await budgetEvents()).toHaveLength(2);
  });

  it("the session's budget counts every agent and pauses them all", async () => {
    const checkBudgets = check({ budget: { usd: 1 } });
    const a = { name: 'a', preset: 'codex' };
    const b = { name: 'b', preset: 'gemini' };
    // 400k + 400k input tokens of gpt-5 at $1.25 per million: $1.
    await checkBudgets(
      new Map([
        ['a', file('a', 400_000)],
        ['b', file('b', 400_000)],
      ]),
      [a, b],
      session,
    );
    expect(isDeliveryPaused(paths, 'a')).toBe(true);
    expect(isDeliveryPaused(paths, 'b')).toBe(true);
    const calls = await budgetEvents();
    expect(calls.map((e) => [e.agent, e.data?.percent, e.data?.scope])).toEqual(
      [
        ['bridge', 80, 'session'],
        ['bridge', 100, 'session'],
      ],
    );
  });

  it('a dollar budget over a model without a price is said once, never guessed', async () => {
    const checkBudgets = check({});
    const agent = { ...worker, budget: { usd: 1 } };
    const read = () =>
      checkBudgets(
        new Map([['worker-1', file('worker-1', 10 ** 9, 'unpriced-model')]]),
        [agent],
        session,
      );
    await read();
    await read();
    const warnings = await readEvents(paths, { type: 'warning' });
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.data?.message)).toMatch(/cannot be checked/);
    expect(isDeliveryPaused(paths, 'worker-1')).toBe(false);
  });
});
