import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ConfigError } from '../../src/errors.js';
import { Refusal } from '../../src/operations/refusal.js';
import { agentName, MCP_EVENT_AGENT, requestId } from '../../src/mcp/tool.js';
import { createHomeFixture } from '../state/home-fixture.js';
import { connectTools, textOf } from './harness.js';

// Every tool goes through the registrar: each call becomes an `mcp.call`
// event, and whatever a handler throws becomes a tool error with a reason.
describe('createToolRegistrar', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  let conn: Awaited<ReturnType<typeof connectTools>>;
  beforeEach(async () => {
    fx = createHomeFixture();
    conn = await connectTools(fx, (tool) => {
      tool(
        'echo',
        {
          title: 'Echo',
          description: 'says it back',
          inputSchema: {
            agent: agentName.optional(),
            id: requestId.optional(),
          },
        },
        (args) =>
          Promise.resolve({
            text: `echo ${args.agent ?? '-'}`,
            data: { agent: args.agent ?? null },
            ...(args.agent ? { agent: args.agent } : {}),
            ...(args.id ? { requestId: args.id } : {}),
            event: { extra: 1 },
          }),
      );
      tool(
        'fail',
        {
          title: 'Fail',
          description: 'fails in the way asked',
          inputSchema: {
            how: z.enum(['refusal', 'refusal-about', 'macs', 'bug']),
            agent: z.string().optional(),
            id: z.string().optional(),
          },
        },
        (args) => {
          switch (args.how) {
            case 'refusal':
              throw new Refusal('not like that');
            case 'refusal-about':
              throw new Refusal('not for them', 'worker-2');
            case 'macs':
              throw new ConfigError('bad setting', { hint: 'fix it' });
            case 'bug':
              throw new TypeError('oops');
          }
        },
      );
    });
  });
  afterEach(async () => {
    await conn.close();
    fx.cleanup();
  });

  it('answers with text and structured content, and records the call under its agent', async () => {
    const result = await conn.call('echo', {
      agent: 'worker-1',
      id: 'worker-1-q-1',
    });
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'echo worker-1' }],
      structuredContent: { agent: 'worker-1' },
    });
    expect(result.isError).toBeFalsy();
    const [event] = await conn.calls();
    expect(event).toMatchObject({
      agent: 'worker-1',
      type: 'mcp.call',
      requestId: 'worker-1-q-1',
      data: { by: 'mcp', tool: 'echo', ok: true, extra: 1 },
    });
    expect(event?.data?.ms).toEqual(expect.any(Number));
  });

  it('files a call about no agent under the mcp agent', async () => {
    await conn.call('echo');
    const [event] = await conn.calls();
    expect(event?.agent).toBe(MCP_EVENT_AGENT);
    expect(event?.requestId).toBeUndefined();
  });

  it('turns a refusal into a tool error with its reason, filed under the agent it names', async () => {
    // Agents the home knows (their state files).
    mkdirSync(fx.paths.state, { recursive: true });
    for (const agent of ['worker-1', 'worker-2'])
      writeFileSync(path.join(fx.paths.state, `${agent}.json`), '{}');
    const plain = await conn.call('fail', {
      how: 'refusal',
      agent: 'worker-1',
    });
    expect(plain.isError).toBe(true);
    expect(textOf(plain)).toBe('not like that');
    await conn.call('fail', { how: 'refusal-about', agent: 'worker-1' });
    // An agent argument that is no agent name is not an events file.
    await conn.call('fail', { how: 'refusal', agent: '../x', id: '../y' });
    // Sorted: events of different agents are in different files.
    const recorded = (await conn.calls())
      .map((e) => [e.agent, e.requestId, e.data?.ok, e.data?.error])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(recorded).toEqual([
      [MCP_EVENT_AGENT, undefined, false, 'not like that'],
      ['worker-1', undefined, false, 'not like that'],
      ['worker-2', undefined, false, 'not for them'],
    ]);
  });

  // Issue 25, point 7: a call naming an agent the home does not know made
  // `.macs/events/<that name>.jsonl`. It is filed under `mcp` instead, the
  // name kept in its data.
  it('files a call about an unknown agent under mcp, making no events file for the name', async () => {
    await conn.call('fail', { how: 'refusal', agent: 'made-up' });
    expect(existsSync(path.join(fx.paths.events, 'made-up.jsonl'))).toBe(false);
    expect(
      (await conn.calls()).map((e) => [e.agent, e.data?.agent, e.data?.ok]),
    ).toEqual([[MCP_EVENT_AGENT, 'made-up', false]]);
  });

  it("gives a macs error's hint, and a bug's message, as the reason", async () => {
    const macs = await conn.call('fail', { how: 'macs', id: 'w-q1' });
    expect(textOf(macs)).toBe('bad setting (hint: fix it)');
    const bug = await conn.call('fail', { how: 'bug' });
    expect(bug.isError).toBe(true);
    expect(textOf(bug)).toBe('oops');
    expect(
      (await conn.calls()).map((e) => [e.requestId, e.data?.error]),
    ).toEqual([
      ['w-q1', 'bad setting (hint: fix it)'],
      [undefined, 'oops'],
    ]);
  });

  it('notes the id of each call that reached a tool', async () => {
    await conn.call('echo');
    expect(conn.reached.size).toBe(1);
  });
});
