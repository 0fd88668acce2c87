import { describe, expect, it } from 'vitest';
import {
  clip,
  errorPlan,
  hookEvent,
  parseHookInput,
  record,
  str,
} from '../../src/hooks/hook-input.js';

describe('parseHookInput', () => {
  it.each([
    ['', 'empty input'],
    ['   \n', 'empty input'],
    ['{"session_id":', 'not JSON'],
    ['[1,2]', 'not a JSON object'],
    ['"Stop"', 'not a JSON object'],
    ['null', 'not a JSON object'],
  ])('rejects %j', (raw, message) => {
    const parsed = parseHookInput(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(message);
  });
});

describe('parseHookInput accepts', () => {
  it('one JSON object, surrounding whitespace included', () => {
    expect(parseHookInput(' {"session_id":"s","n":1}\n')).toEqual({
      ok: true,
      value: { session_id: 's', n: 1 },
    });
  });
});

describe('field readers', () => {
  const input = {
    name: 'Bash',
    count: 3,
    tool_input: { command: 'ls' },
    list: ['a'],
    nothing: null,
  };

  it('str takes strings only', () => {
    expect(str(input, 'name')).toBe('Bash');
    expect(str(input, 'count')).toBeUndefined();
    expect(str(input, 'missing')).toBeUndefined();
  });

  it('record takes objects only, else an empty one', () => {
    expect(record(input, 'tool_input')).toEqual({ command: 'ls' });
    expect(record(input, 'list')).toEqual({});
    expect(record(input, 'nothing')).toEqual({});
    expect(record(input, 'name')).toEqual({});
  });

  it('clip keeps short text and cuts long text to the limit with an ellipsis', () => {
    expect(clip('short')).toBe('short');
    expect(clip('x'.repeat(200))).toBe('x'.repeat(200));
    const cut = clip('x'.repeat(201));
    expect(cut).toHaveLength(200);
    expect(cut.endsWith('…')).toBe(true);
    expect(clip('abcdef', 4)).toBe('abc…');
  });
});

describe('events', () => {
  it('hookEvent names the event and carries the session and the request', () => {
    expect(
      hookEvent('Stop', { session_id: 's-1' }, { delivered: true }, 'w1-q1'),
    ).toEqual({
      type: 'hook.Stop',
      requestId: 'w1-q1',
      data: { session: 's-1', delivered: true },
    });
    expect(hookEvent('Stop', { session_id: 7 }, {})).toEqual({
      type: 'hook.Stop',
      data: {},
    });
  });

  it('errorPlan records only an error event', () => {
    expect(errorPlan('Stop', 'empty input')).toEqual({
      events: [
        {
          type: 'error',
          data: { where: 'hook', event: 'Stop', message: 'empty input' },
        },
      ],
    });
  });
});
