import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { recordRefusedCalls } from '../../src/mcp/refused-calls.js';
import { createHomeFixture } from '../state/home-fixture.js';
import { connectTools } from './harness.js';

/** A transport that keeps what is sent and lets the test deliver messages. */
function fakeTransport() {
  const sent: JSONRPCMessage[] = [];
  const calls: string[] = [];
  const transport: Transport = {
    start: () => {
      calls.push('start');
      return Promise.resolve();
    },
    close: () => {
      calls.push('close');
      return Promise.resolve();
    },
    send: (message) => {
      sent.push(message);
      return Promise.resolve();
    },
    setProtocolVersion: (version) => calls.push(`version ${version}`),
  };
  return {
    transport,
    sent,
    calls,
    receive: (message: JSONRPCMessage) => transport.onmessage?.(message),
  };
}

const toolCall = (id: number, name: string): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {} },
});

describe('recordRefusedCalls', () => {
  let inner: ReturnType<typeof fakeTransport>;
  let reached: Set<string | number>;
  let reported: [string, string][];
  let outer: Transport;
  let received: JSONRPCMessage[];
  beforeEach(() => {
    inner = fakeTransport();
    reached = new Set();
    reported = [];
    received = [];
    outer = recordRefusedCalls(inner.transport, reached, (tool, error) => {
      reported.push([tool, error]);
      return Promise.resolve();
    });
    outer.onmessage = (message) => received.push(message);
  });

  it('passes every message, start, close and the protocol version through', async () => {
    await outer.start();
    outer.setProtocolVersion?.('2025-06-18');
    inner.receive(toolCall(1, 'list_agents'));
    await outer.send({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    await outer.close();
    expect(inner.calls).toEqual(['start', 'version 2025-06-18', 'close']);
    expect(received).toEqual([toolCall(1, 'list_agents')]);
    expect(inner.sent).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [] } },
    ]);
  });

  it('reports the answer to a tool call no tool took, with its reason', async () => {
    inner.receive(toolCall(1, 'nope'));
    inner.receive(toolCall(2, 'list_agents'));
    await outer.send({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'Tool nope not found' },
    });
    await outer.send({
      jsonrpc: '2.0',
      id: 2,
      result: {
        content: [{ type: 'text', text: 'Input validation error' }],
        isError: true,
      },
    });
    expect(reported).toEqual([
      ['nope', 'Tool nope not found'],
      ['list_agents', 'Input validation error'],
    ]);
  });

  it('leaves out the calls a tool took, other requests, and cancelled calls', async () => {
    inner.receive(toolCall(1, 'list_agents'));
    reached.add(1);
    await outer.send({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    expect(reached.size).toBe(0);
    inner.receive({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await outer.send({ jsonrpc: '2.0', id: 2, result: { tools: [] } });
    inner.receive(toolCall(3, 'wait_for_request'));
    reached.add(3);
    inner.receive({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 3 },
    });
    expect(reached.size).toBe(0);
    await outer.send({ jsonrpc: '2.0', id: 3, result: { content: [] } });
    expect(reported).toEqual([]);
  });

  it('tells of the inner transport closing or failing', () => {
    const events: string[] = [];
    outer.onclose = () => events.push('closed');
    outer.onerror = (error) => events.push(error.message);
    inner.transport.onerror?.(new Error('broken pipe'));
    inner.transport.onclose?.();
    expect(events).toEqual(['broken pipe', 'closed']);
  });
});

// With the SDK's server: the calls it refuses before a tool runs.
describe('recordRefusedCalls with an MCP server', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  afterEach(() => fx.cleanup());

  it('reports an unknown tool and bad arguments, not a call a tool took', async () => {
    fx = createHomeFixture();
    const reported: string[] = [];
    const conn = await connectTools(
      fx,
      (tool) =>
        tool(
          'echo',
          {
            title: 'Echo',
            description: 'says it back',
            inputSchema: { text: z.string() },
          },
          (args) => Promise.resolve({ text: args.text, data: {} }),
        ),
      (transport, reached) =>
        recordRefusedCalls(transport, reached, (tool) => {
          reported.push(tool);
          return Promise.resolve();
        }),
    );
    try {
      expect((await conn.call('echo', { text: 'hi' })).isError).toBeFalsy();
      await conn.call('nope').catch(() => undefined);
      await conn.call('echo', { text: 3 }).catch(() => undefined);
      expect(reported).toEqual(['nope', 'echo']);
      expect(conn.reached.size).toBe(0);
    } finally {
      await conn.close();
    }
  });
});
