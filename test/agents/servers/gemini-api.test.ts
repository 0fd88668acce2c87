// The scripted Gemini API server answers in the documented shapes, follows
// its script turn by turn and records every request.
import { afterEach, describe, expect, it } from 'vitest';
import {
  contentText,
  lastUserContent,
  startGeminiApiServer,
  type GeminiApiServer,
} from './gemini-api.js';

const MODEL = 'gemini-2.5-flash';

/** A chat request as the CLI sends it: contents, SSE, the key in a header. */
function chat(server: GeminiApiServer, text: string): Promise<Response> {
  return fetch(
    `${server.url}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
    },
  );
}

/** The JSON objects of an SSE body's `data:` lines. */
async function events(res: Response): Promise<unknown[]> {
  return (await res.text())
    .split(/\r?\n\r?\n/)
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice('data: '.length)) as unknown);
}

describe('scripted Gemini API server', () => {
  let server: GeminiApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('streams text turns as server-sent GenerateContentResponses, in script order, and records the requests', async () => {
    server = await startGeminiApiServer({
      turns: [{ text: ['Hello ', 'there.'] }, { text: 'Second.' }],
    });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const first = await chat(server, 'hi');
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/event-stream');
    const chunks = await events(first);
    expect(chunks).toHaveLength(2);
    expect(chunks[0]).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Hello ' }] } }],
    });
    expect(chunks[1]).toMatchObject({
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'there.' }] },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { totalTokenCount: expect.any(Number) as number },
    });
    expect(await events(await chat(server, 'next'))).toMatchObject([
      { candidates: [{ content: { parts: [{ text: 'Second.' }] } }] },
    ]);
    // No turn left: a short text.
    expect(await events(await chat(server, 'more'))).toMatchObject([
      { candidates: [{ content: { parts: [{ text: 'OK.' }] } }] },
    ]);
    expect(server.chats()).toHaveLength(3);
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      model: MODEL,
      action: 'streamGenerateContent',
      query: '?alt=sse',
      apiKey: 'k',
    });
    expect(contentText(lastUserContent(server.chats()[1]))).toBe('next');
    expect(server.pending()).toBe(0);
  });

  it('sends a function call part, and errors as the documented error JSON for as many requests as asked', async () => {
    server = await startGeminiApiServer({
      turns: [
        {
          functionCall: {
            name: 'run_shell_command',
            args: { command: 'mkdir x' },
          },
        },
        { error: { status: 500, message: 'boom' }, times: 2 },
      ],
    });
    expect(await events(await chat(server, 'go'))).toMatchObject([
      {
        candidates: [
          {
            content: {
              parts: [
                {
                  functionCall: {
                    name: 'run_shell_command',
                    args: { command: 'mkdir x' },
                  },
                },
              ],
            },
          },
        ],
      },
    ]);
    for (let i = 0; i < 2; i++) {
      const res = await chat(server, 'again');
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({
        error: { code: 500, message: 'boom', status: 'INTERNAL' },
      });
    }
    expect((await chat(server, 'third')).status).toBe(200);
  });

  it('answers countTokens and non-streaming generateContent; an unknown path is a 404 error JSON', async () => {
    server = await startGeminiApiServer({
      turns: [
        {
          text: '{"next_speaker":"user"}',
          when: (r) => r.action === 'generateContent',
        },
      ],
    });
    const post = (path: string) =>
      fetch(`${server?.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"contents":[]}',
      });
    const count = await post(`/v1beta/models/${MODEL}:countTokens`);
    expect(await count.json()).toEqual({ totalTokens: expect.any(Number) });
    const gen = await post(`/v1beta/models/${MODEL}:generateContent`);
    expect(await gen.json()).toMatchObject({
      candidates: [
        {
          content: { parts: [{ text: '{"next_speaker":"user"}' }] },
          finishReason: 'STOP',
        },
      ],
    });
    const missing = await post('/v1beta/other');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { code: 404, status: 'NOT_FOUND' },
    });
    expect(server.requests.map((r) => r.action)).toEqual([
      'countTokens',
      'generateContent',
      '',
    ]);
  });

  it('stops by itself after its request budget', async () => {
    server = await startGeminiApiServer({ maxRequests: 1 });
    await (await chat(server, 'one')).text();
    await expect(chat(server, 'two')).rejects.toThrow();
  });
});
