import { describe, expect, it } from 'vitest';
import { splitResponse } from '../../src/protocol/response.js';
import { createBridgeParser } from '../../src/protocol/request-parser.js';
import { findResponseBlocks } from '../../src/protocol/response.js';
import {
  DEMO_STEPS,
  actOnAnswer,
  answerDemoRequest,
  demoRequestId,
  formatAnswerText,
  formatRequestBlock,
  formatResponseBlock,
} from '../../src/session/demo/script.js';

describe('the demo script', () => {
  it('asks at least three requests of different types, each a valid request block', () => {
    const types = DEMO_STEPS.map((s) => s.type);
    expect(new Set(types).size).toBeGreaterThanOrEqual(3);
    expect(types).toEqual(
      expect.arrayContaining(['question', 'approval', 'review', 'done']),
    );
    const parser = createBridgeParser({});
    const text = DEMO_STEPS.map((s) =>
      formatRequestBlock(demoRequestId('ab12', s.key), s.type, s.body),
    ).join('\n');
    const found = [...parser.push(`${text}\n`), ...parser.flush()];
    expect(
      found.map((e) =>
        e.type === 'request' ? [e.attributes.id, e.attributes.type] : e.type,
      ),
    ).toEqual(DEMO_STEPS.map((s) => [`demo-ab12-${s.key}`, s.type]));
  });

  it('answers each type with instructions and notes, in both backends’ formats', () => {
    for (const step of DEMO_STEPS) {
      const answer = answerDemoRequest(step);
      const split = splitResponse(formatAnswerText(answer), { noSplit: false });
      expect(split.instructions).toBe(answer.instructions);
      expect(split.notes).toBe(answer.notes);
      const blocks = findResponseBlocks(formatResponseBlock('x-1', answer));
      expect(blocks.map((b) => b.id)).toEqual(['x-1']);
    }
  });

  it.each([
    ['question', 'Use /health (option a).', /mounting the route at \/health/],
    ['question', 'Put it under /api/health.', /\/api\/health/],
    ['approval', 'Yes, run migration 0042 now.', /approved: running migration/],
    ['approval', 'No, do not touch the schema.', /not approved/],
    ['review', 'Looks good. Also add a test for the 503 answer.', /503/],
    ['done', 'Nothing more. Stop here.', /stopping here/],
    ['done', 'Next, write the docs.', /next: Next, write the docs/],
  ])('acts on a %s answer: %j', (type, answer, expected) => {
    expect(actOnAnswer(type, answer).join('\n')).toMatch(expected);
  });

  it('acts on the scripted controller’s own answers as intended', () => {
    for (const step of DEMO_STEPS) {
      const did = actOnAnswer(
        step.type,
        answerDemoRequest(step).instructions,
      ).join('\n');
      expect(did).not.toMatch(/unclear|not approved/);
    }
  });
});
