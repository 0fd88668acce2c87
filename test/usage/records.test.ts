// The readers of each agent's own usage records, on real records: the
// samples in test/fixtures/usage/ were written by the pinned agents
// against the scripted model servers of test/agents/usage.agents.test.ts
// (MACS_SAVE_USAGE_SAMPLES=1), which report known figures per call.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newCursor, accountRecord } from '../../src/usage/account.js';
import { recordsOfLines } from '../../src/usage/collect.js';
import {
  readClaudeLine,
  readCodexLine,
  readGeminiLine,
} from '../../src/usage/records.js';
import {
  addFigures,
  emptyTotals,
  type UsageSourceKind,
} from '../../src/usage/types.js';
import { REPO_ROOT } from '../helpers/macs.js';

const SAMPLES = path.join(REPO_ROOT, 'test', 'fixtures', 'usage');

/** The one sample file of an agent, as lines with their end offsets. */
function sampleLines(agent: string): { text: string; end: number }[] {
  const dir = path.join(SAMPLES, agent);
  const [name] = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  if (!name) throw new Error(`no sample in ${dir}`);
  const text = readFileSync(path.join(dir, name), 'utf8');
  let end = 0;
  return text
    .split('\n')
    .slice(0, -1)
    .map((line) => {
      end += Buffer.byteLength(line) + 1;
      return { text: line, end };
    });
}

/** Totals, calls and models of a sample, through the reader and the accounting. */
function account(kind: UsageSourceKind, agent: string) {
  const cursor = newCursor();
  let totals = emptyTotals();
  const models = new Set<string | null>();
  for (const { record, end } of recordsOfLines(kind, sampleLines(agent))) {
    const entry = accountRecord(cursor, 'f', record, end, '');
    if (!entry) continue;
    totals = addFigures(totals, entry, entry.calls);
    models.add(entry.model);
  }
  return { totals, models: [...models] };
}

describe('Claude Code 2.1.197 transcript', () => {
  it('counts each answer once though it has a line per content block', () => {
    // Three calls: n = 1..3 reported 100+n input, 20+n output, 1000+n cache
    // write, 3000+n cache read; the first answer (text and a tool call) is
    // written on two lines.
    const { totals, models } = account('claude', 'claude');
    expect(totals).toEqual({
      calls: 3,
      inputTokens: 306,
      outputTokens: 66,
      cacheWriteTokens: 3006,
      cacheReadTokens: 9006,
    });
    expect(models).toEqual(['claude-opus-4-8']);
  });

  it('leaves out what is not a model answer', () => {
    expect(
      readClaudeLine({ type: 'user', message: { id: 'x' } }),
    ).toBeUndefined();
    expect(
      readClaudeLine({
        type: 'assistant',
        message: {
          id: 'm',
          model: '<synthetic>',
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }),
    ).toBeUndefined();
    // A figure of the wrong type: the line is not taken, not half-read.
    expect(
      readClaudeLine({
        type: 'assistant',
        message: { id: 'm', usage: { input_tokens: '5', output_tokens: 1 } },
      }),
    ).toBeUndefined();
  });

  it('keeps the one-hour part of the cache writes when the transcript splits it', () => {
    const record = readClaudeLine({
      type: 'assistant',
      timestamp: '2026-11-27T10:00:00.000Z',
      message: {
        id: 'm',
        model: 'claude-opus-4-8',
        usage: {
          input_tokens: 1,
          output_tokens: 2,
          cache_creation_input_tokens: 30,
          cache_read_input_tokens: 4,
          cache_creation: { ephemeral_1h_input_tokens: 10 },
        },
      },
    });
    expect(record).toMatchObject({
      type: 'call',
      key: 'm',
      figures: { cacheWriteTokens: 30, cacheWrite1hTokens: 10 },
    });
  });
});

describe('Codex 0.169.0 rollout', () => {
  it('counts each answer of the person’s thread from its token_usage_record, with the turn’s model', () => {
    // Two calls: n = 1..2 reported 500+n input of which 200+n cached, 40+n
    // output; the running totals beside them are not counted again.
    const { totals, models } = account('codex', 'codex');
    expect(totals).toEqual({
      calls: 2,
      inputTokens: 600,
      cacheReadTokens: 403,
      outputTokens: 83,
      cacheWriteTokens: 0,
    });
    expect(models).toEqual(['gpt-5-codex']);
  });

  it('reads a running total as the thread so far (before 0.169)', () => {
    expect(
      readCodexLine({
        type: 'event_msg',
        payload: {
          type: 'token_count',
          info: {
            total_token_usage: {
              input_tokens: 50,
              cached_input_tokens: 20,
              output_tokens: 5,
            },
          },
        },
      }),
    ).toMatchObject({
      type: 'total',
      figures: {
        inputTokens: 30,
        cacheReadTokens: 20,
        outputTokens: 5,
        cacheWriteTokens: null,
      },
    });
    expect(
      readCodexLine({
        type: 'event_msg',
        payload: { type: 'token_count', info: null },
      }),
    ).toBeUndefined();
  });
});

describe('Gemini CLI 0.61.0 session file', () => {
  it('counts each answer once though its message is written again; thoughts are output', () => {
    // Calls n = 1..: 700+n prompt of which 300+n cached, 30+n candidates,
    // 7 thoughts; Gemini reports no cache writes (null).
    const { totals, models } = account('gemini', 'gemini');
    const n = totals.calls;
    expect(n).toBe(2);
    const sumN = (n * (n + 1)) / 2;
    expect(totals).toEqual({
      calls: n,
      inputTokens: 400 * n,
      cacheReadTokens: 300 * n + sumN,
      outputTokens: 37 * n + sumN,
      cacheWriteTokens: null,
    });
    expect(models).toEqual(['gemini-2.5-flash']);
  });

  it('leaves out a message without tokens (an answer still being written)', () => {
    expect(
      readGeminiLine({ id: 'a', type: 'gemini', content: '', tokens: null }),
    ).toBeUndefined();
    expect(
      readGeminiLine({ id: 'a', type: 'user', content: 'hi' }),
    ).toBeUndefined();
  });
});
