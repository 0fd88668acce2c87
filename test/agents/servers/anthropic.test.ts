// The scripted Anthropic Messages server speaks the documented wire format:
// checked here with plain HTTP, as a client would read it.
import { afterEach, describe, expect, it } from 'vitest';
import {
  isToolResult,
  lastToolUse,
  lastUserText,
  startAnthropicServer,
  toolNames,
  type AnthropicServer,
  type Script,
} from './anthropic.js';

const TOOLS = [{ name: 'Bash', input_schema: { type: 'object' } }];

/** The events of an SSE body: `[event, data]` pairs. */
function events(body: string): [string, Record<string, unknown>][] {
  return body
    .split('\n\n')
    .filter((chunk) => chunk.trim())
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(chunk)?.[1] ?? '{}';
      return [event, JSON.parse(data) as Record<string, unknown>];
    });
}

describe('the scripted Anthropic server', () => {
  let server: AnthropicServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const post = (body: Record<string, unknown>, path = '/v1/messages') =>
    fetch(`${server?.url ?? ''}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  const user = (text: string) => ({
    model: 'm',
    stream: true,
    tools: TOOLS,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>\nctx\n</system-reminder>' },
          { type: 'text', text },
        ],
      },
    ],
  });

  it('listens on 127.0.0.1 and streams text in the documented event order', async () => {
    const script: Script = (r) => ({
      kind: 'text',
      text: `you said ${lastUserText(r)}`,
    });
    server = await startAnthropicServer({ script });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await post(user('hello'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const got = events(await res.text());
    expect(got.map(([e]) => e)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const [event, data] of got) expect(data.type).toBe(event);
    const text = got
      .filter(([e]) => e === 'content_block_delta')
      .map(([, d]) => (d.delta as { text: string }).text)
      .join('');
    expect(text).toBe('you said hello');
    expect(got[5]?.[1]).toMatchObject({
      delta: { stop_reason: 'end_turn' },
    });
    expect(server.conversation()).toHaveLength(1);
  });

  it('streams a tool call as tool_use with its input as input_json_delta', async () => {
    server = await startAnthropicServer({
      script: () => ({
        kind: 'tool',
        name: 'Bash',
        input: { command: 'touch x' },
      }),
    });
    const got = events(await (await post(user('go'))).text());
    expect(got[1]?.[1]).toMatchObject({
      content_block: { type: 'tool_use', name: 'Bash', input: {} },
    });
    const json = (got[2]?.[1].delta as { partial_json: string }).partial_json;
    expect(JSON.parse(json)).toEqual({ command: 'touch x' });
    expect(got.at(-2)?.[1]).toMatchObject({
      delta: { stop_reason: 'tool_use' },
    });
  });

  it('fails a request with an HTTP error or an error event, as scripted', async () => {
    server = await startAnthropicServer({
      script: (r) =>
        lastUserText(r) === 'http'
          ? {
              kind: 'http-error',
              status: 529,
              type: 'overloaded_error',
              message: 'Overloaded',
            }
          : { kind: 'stream-error', type: 'api_error', message: 'boom' },
    });
    const http = await post(user('http'));
    expect(http.status).toBe(529);
    expect(await http.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    const got = events(await (await post(user('stream'))).text());
    expect(got.map(([e]) => e)).toEqual(['message_start', 'error']);
  });

  it('answers side requests, token counts and other paths minimally, and records them all', async () => {
    server = await startAnthropicServer();
    const side = await post({
      model: 'small',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'title please' }],
    });
    expect(await side.json()).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text' }],
      stop_reason: 'end_turn',
    });
    const count = await post(user('x'), '/v1/messages/count_tokens');
    expect(await count.json()).toEqual({ input_tokens: 100 });
    const other = await fetch(`${server.url}/api/hello`);
    expect(other.status).toBe(200);
    expect(server.requests.map((r) => r.path)).toEqual([
      '/v1/messages',
      '/v1/messages/count_tokens',
      '/api/hello',
    ]);
    expect(server.conversation()).toEqual([]);
  });

  it('holds a turn open until the test releases it', async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    server = await startAnthropicServer({
      script: () => ({ kind: 'text', text: 'partial', hold }),
    });
    const res = await post(user('x'));
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('content_block_stop')) {
      const { value } = await reader.read();
      seen += new TextDecoder().decode(value);
    }
    expect(seen).not.toContain('message_stop');
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    expect(seen).toContain('message_stop');
  });

  it('tells a tool result from a prompt, and refuses requests over its bound', async () => {
    server = await startAnthropicServer({ maxRequests: 1 });
    const result = {
      body: {
        messages: [
          {
            role: 'user',
            content: [{ type: 'tool_result', content: 'done' }],
          },
        ],
      },
    };
    expect(isToolResult(result as never)).toBe(true);
    expect(lastUserText(result as never)).toBe('done');
    // Claude Code may send a system message after the tool result.
    const withSystem = {
      body: {
        tools: [{ name: 'mcp__macs__answer_request' }],
        messages: [
          { role: 'user', content: 'go' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Answering.' },
              {
                type: 'tool_use',
                id: 'toolu_1',
                name: 'mcp__macs__answer_request',
                input: { id: 'w-1' },
              },
            ],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', content: 'answered' }],
          },
          { role: 'system', content: 'a note' },
        ],
      },
    };
    expect(isToolResult(withSystem as never)).toBe(true);
    expect(lastUserText(withSystem as never)).toBe('answered');
    expect(lastToolUse(withSystem as never)).toEqual({
      name: 'mcp__macs__answer_request',
      input: { id: 'w-1' },
    });
    expect(toolNames(withSystem as never)).toEqual([
      'mcp__macs__answer_request',
    ]);
    expect(lastToolUse({ body: user('a') } as never)).toBeUndefined();
    expect((await post(user('a'))).status).toBe(200);
    expect((await post(user('b'))).status).toBe(429);
  });
});
