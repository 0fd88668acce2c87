import { describe, expect, it } from 'vitest';
import {
  costOf,
  DEFAULT_PRICES,
  findPrice,
  priceTable,
} from '../../src/usage/prices.js';
import {
  budgetLevel,
  readBudget,
  summarizeUsage,
} from '../../src/usage/summary.js';

describe('prices', () => {
  const table = priceTable({ 'my-model': { input: 1, output: 2 } });

  it('has an entry for the model of each pinned agent', () => {
    // Claude Code 2.1.197, Codex 0.169.0 and Gemini CLI 0.61.0 as the
    // agents tests run them (test/agents/usage.agents.test.ts).
    for (const model of ['claude-opus-4-8', 'gpt-5-codex', 'gemini-2.5-flash'])
      expect(DEFAULT_PRICES[model], model).toBeDefined();
  });

  it('matches a model exactly, or as a dated release of an entry, nothing looser', () => {
    expect(findPrice(table, 'my-model')).toEqual({ input: 1, output: 2 });
    expect(findPrice(table, 'claude-sonnet-4-5-20250929')).toBe(
      DEFAULT_PRICES['claude-sonnet-4-5'],
    );
    expect(findPrice(table, 'gpt-5-2026-04-01')).toBe(DEFAULT_PRICES['gpt-5']);
    // gpt-5-nano is not gpt-5: no price, not a guess.
    expect(findPrice(table, 'gpt-5-nano')).toBeUndefined();
    expect(findPrice(table, null)).toBeUndefined();
  });

  it('the config replaces a default entry', () => {
    expect(priceTable({ 'gpt-5': { input: 9, output: 9 } })['gpt-5']).toEqual({
      input: 9,
      output: 9,
    });
  });

  it('costs dollars per million tokens; a figure without its price makes the cost unknown', () => {
    const f = {
      inputTokens: 1_000_000,
      outputTokens: 500_000,
      cacheReadTokens: 2_000_000,
      cacheWriteTokens: 100_000,
      cacheWrite1hTokens: 40_000,
    };
    const price = DEFAULT_PRICES['claude-opus-4-8'];
    // 5 + 12.5 + 1 + 0.06 × 6.25 + 0.04 × 10
    expect(costOf(f, price)).toBeCloseTo(5 + 12.5 + 1 + 0.375 + 0.4, 9);
    expect(costOf(f, { input: 1, output: 1 })).toBeNull();
    expect(
      costOf(
        {
          ...f,
          cacheReadTokens: 0,
          cacheWriteTokens: null,
          cacheWrite1hTokens: 0,
        },
        { input: 1, output: 1 },
      ),
    ).toBeCloseTo(1.5, 9);
    expect(costOf(f, undefined)).toBeNull();
  });

  it('an agent whose model has no price has its tokens and costUsd null', () => {
    const usage = summarizeUsage(
      {
        version: 1,
        agent: 'w',
        updatedAt: '2026-11-27T10:00:00.000Z',
        lastModel: 'unheard-of',
        models: [
          {
            model: 'unheard-of',
            calls: 2,
            inputTokens: 10,
            outputTokens: 5,
            cacheReadTokens: null,
            cacheWriteTokens: null,
          },
        ],
      },
      table,
    );
    expect(usage).toEqual({
      model: 'unheard-of',
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      costUsd: null,
    });
  });
});

describe('budgets', () => {
  it('reads the larger share of dollars or tokens; 80 and 100 are the levels', () => {
    expect(
      budgetLevel(readBudget({ tokens: 1000 }, { tokens: 799, costUsd: 0 })),
    ).toBeUndefined();
    expect(
      budgetLevel(readBudget({ tokens: 1000 }, { tokens: 800, costUsd: 0 })),
    ).toBe(80);
    expect(
      budgetLevel(
        readBudget({ tokens: 1000, usd: 1 }, { tokens: 10, costUsd: 1 }),
      ),
    ).toBe(100);
  });

  it('a dollar budget over an unpriced model cannot be read', () => {
    const reading = readBudget({ usd: 5 }, { tokens: 10, costUsd: null });
    expect(reading).toEqual({ fraction: null, unpriced: true });
    expect(budgetLevel(reading)).toBeUndefined();
  });
});
