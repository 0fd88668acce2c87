import { describe, expect, it } from 'vitest';
import {
  HostAgentListSchema,
  HostRequestListSchema,
  parseHostData,
  parseHostEventLine,
} from '../../src/remote/host-data.js';
import { qualifyName, splitRemoteName } from '../../src/remote/names.js';

const agent = (name: string) => ({
  name,
  state: 'idle',
  pane: '%3',
  paused: false,
  bridgeRunning: true,
  pendingRequests: [],
});

describe('host data is checked as local input is', () => {
  it('takes a well-formed list', () => {
    const parsed = parseHostData(HostAgentListSchema, {
      agents: [agent('worker-1')],
    });
    expect(parsed).toMatchObject({
      ok: true,
      value: { agents: [{ name: 'worker-1' }] },
    });
  });

  it.each([
    'w;rm -rf ~',
    '$(reboot)',
    'a\nb',
    '\u001b]0;x\u0007',
    '../x',
    'x'.repeat(65),
    '',
  ])('refuses the whole list for the agent name %j', (name) => {
    expect(
      parseHostData(HostAgentListSchema, { agents: [agent('ok'), agent(name)] })
        .ok,
    ).toBe(false);
  });

  it('refuses a pane that is not a pane id and a request id that is not safe', () => {
    expect(
      parseHostData(HostAgentListSchema, {
        agents: [{ ...agent('a'), pane: '%1;x' }],
      }).ok,
    ).toBe(false);
    expect(
      parseHostData(HostRequestListSchema, {
        requests: [
          {
            id: '../../etc/passwd',
            agent: 'a',
            stage: 'routed',
            waitingForAnswer: true,
            firstLine: '',
          },
        ],
      }).ok,
    ).toBe(false);
  });

  it('cleans control characters and bounds text', () => {
    const parsed = parseHostData(HostRequestListSchema, {
      requests: [
        {
          id: 'a-q1',
          agent: 'a',
          type: 'x;y',
          stage: 'routed',
          waitingForAnswer: true,
          firstLine: '\u001b[31mred\nline\u0007',
        },
      ],
    });
    expect(parsed).toMatchObject({
      ok: true,
      value: { requests: [{ firstLine: '[31mred line', type: 'question' }] },
    });
    expect(
      parseHostData(HostRequestListSchema, {
        requests: [
          { id: 'a-q1', agent: 'a', stage: 'r', firstLine: 'x'.repeat(600) },
        ],
      }).ok,
    ).toBe(true); // an oversized first line falls back to empty, never passes whole
  });
});

describe('names at the hub', () => {
  it('qualifies and splits', () => {
    expect(qualifyName('gpu1', 'worker-1')).toBe('gpu1/worker-1');
    expect(splitRemoteName('gpu1/worker-1', 'agent')).toEqual({
      host: 'gpu1',
      name: 'worker-1',
    });
    expect(splitRemoteName('worker-1', 'agent')).toBeUndefined();
    expect(splitRemoteName('gpu1/a/b', 'agent')).toBe('invalid');
    expect(splitRemoteName('-x/a', 'agent')).toBe('invalid');
    expect(splitRemoteName('gpu1/worker-1-q:1', 'request')).toEqual({
      host: 'gpu1',
      name: 'worker-1-q:1',
    });
  });
});

describe("a host's event lines (events --follow at a hub)", () => {
  const ts = '2026-11-27T10:00:00.123Z';
  it.each([
    ['an agent name with ;', { ts, agent: 'w;rm -rf /', type: 'x' }],
    [
      'a request id with $()',
      { ts, agent: 'w', type: 'x', requestId: '$(id)' },
    ],
    ['a time that is not one', { ts: 'now', agent: 'w', type: 'x' }],
    ['a type with a newline', { ts, agent: 'w', type: 'a\nb' }],
  ])('refuses %s', (_, event) => {
    expect(parseHostEventLine(JSON.stringify(event)).ok).toBe(false);
  });

  it('refuses a line that is not JSON or is over 64 KiB', () => {
    expect(parseHostEventLine('{').ok).toBe(false);
    const big = JSON.stringify({
      ts,
      agent: 'w',
      type: 'x',
      data: { s: 'y'.repeat(70_000) },
    });
    expect(parseHostEventLine(big)).toEqual({
      ok: false,
      error: 'an event line over 64 KiB',
    });
  });

  it('takes a good event and cleans every string of its data, however deep', () => {
    const parsed = parseHostEventLine(
      JSON.stringify({
        ts,
        agent: 'w-1',
        type: 'state.changed',
        requestId: 'w-1-q1',
        data: { a: 'x\u001b[2Jy', b: [{ c: 'z\u009bq' }], ['k\u0007']: 1 },
      }),
    );
    expect(parsed).toEqual({
      ok: true,
      value: {
        ts,
        agent: 'w-1',
        type: 'state.changed',
        requestId: 'w-1-q1',
        data: { a: 'x[2Jy', b: [{ c: 'zq' }], k: 1 },
      },
    });
  });
});
