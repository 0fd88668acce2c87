// The scripted Responses server on its own: the event stream Codex reads,
// turns chosen per request, errors, held turns, what it records, its bounds.
import { afterEach, describe, expect, it } from 'vitest';
import {
  startResponsesServer,
  userTexts,
  type ResponsesServer,
} from './openai-responses.js';
import { waitFor } from '../../helpers/wait-for.js';

/** POST /v1/responses; the SSE events as parsed objects (or the error body). */
async function post(
  server: ResponsesServer,
  body: Record<string, unknown>,
): Promise<{ status: number; events: Record<string, unknown>[]; raw: string }> {
  const res = await fetch(`${server.baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, ...body }),
  });
  const raw = await res.text();
  const events: Record<string, unknown>[] = [];
  for (const chunk of raw.split('\n\n')) {
    const name = /^event: (.+)$/m.exec(chunk)?.[1];
    const data = /^data: (.+)$/m.exec(chunk)?.[1];
    if (!name || !data) continue;
    const parsed = JSON.parse(data) as Record<string, unknown>;
    expect(parsed.type).toBe(name);
    events.push(parsed);
  }
  return { status: res.status, events, raw };
}

const said = (text: string) => ({
  input: [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  ],
});

describe('scripted OpenAI Responses server', () => {
  let server: ResponsesServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('listens on 127.0.0.1 and streams a text turn in the documented order', async () => {
    server = await startResponsesServer({
      turns: [{ text: 'Hello there, person.' }],
    });
    expect(server.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const { status, events } = await post(server, said('hi'));
    expect(status).toBe(200);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.output_item.added',
      ...events
        .filter((e) => e.type === 'response.output_text.delta')
        .map(() => 'response.output_text.delta'),
      'response.output_item.done',
      'response.completed',
    ]);
    const deltas = events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta as string);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello there, person.');
    const done = events.find((e) => e.type === 'response.output_item.done');
    expect(done?.item).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Hello there, person.' }],
    });
    expect(server.usedTurns()).toBe(1);
  });

  it('a shell turn is a function call in the form of the tool offered', async () => {
    server = await startResponsesServer({
      turns: [{ shell: { command: 'ls -la', escalate: true } }],
    });
    const { events } = await post(server, {
      ...said('list'),
      tools: [{ type: 'function', name: 'exec_command' }],
    });
    const done = events.find((e) => e.type === 'response.output_item.done');
    const item = done?.item as Record<string, unknown>;
    expect(item).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(typeof item.call_id).toBe('string');
    expect(JSON.parse(item.arguments as string)).toMatchObject({
      cmd: 'ls -la',
      sandbox_permissions: 'require_escalated',
    });
  });

  it('turns are chosen per request; others get the fallback; all are recorded', async () => {
    server = await startResponsesServer({
      turns: [
        { when: (r) => userTexts(r).includes('second'), text: 'two' },
        { when: (r) => userTexts(r).includes('first'), text: 'one' },
      ],
      fallback: { text: 'title' },
    });
    const text = async (input: string) =>
      (await post(server as ResponsesServer, said(input))).events
        .filter((e) => e.type === 'response.output_text.delta')
        .map((e) => e.delta as string)
        .join('');
    expect(await text('first')).toBe('one');
    expect(await text('a title please')).toBe('title');
    expect(await text('second')).toBe('two');
    expect(server.requests.map((r) => r.answeredBy)).toEqual([
      1,
      'fallback',
      0,
    ]);
    expect(server.turnRequests().map((r) => userTexts(r))).toEqual([
      ['first'],
      ['second'],
    ]);
  });

  it('an error turn is an HTTP error with an OpenAI error body', async () => {
    server = await startResponsesServer({
      turns: [{ error: { status: 400, message: 'nope' } }],
    });
    const { status, raw } = await post(server, said('x'));
    expect(status).toBe(400);
    expect(JSON.parse(raw)).toMatchObject({
      error: { message: 'nope', type: 'invalid_request_error' },
    });
  });

  it('a held turn answers once released', async () => {
    server = await startResponsesServer({
      turns: [{ text: 'late', holdUntil: 'go' }],
    });
    let answered = false;
    const pending = post(server, said('x')).then((r) => {
      answered = true;
      return r;
    });
    await waitFor(() => server?.requests.length === 1);
    expect(answered).toBe(false);
    server.release('go');
    expect((await pending).status).toBe(200);
  });

  it('models: an empty list; anything else: 404', async () => {
    server = await startResponsesServer();
    const models = await fetch(`${server.baseUrl}/models`);
    expect(models.status).toBe(200);
    expect(await models.json()).toMatchObject({ data: [] });
    expect((await fetch(`${server.baseUrl}/other`)).status).toBe(404);
  });

  it('is bounded in requests: past maxRequests, 503', async () => {
    server = await startResponsesServer({ maxRequests: 1 });
    expect((await post(server, said('a'))).status).toBe(200);
    expect((await post(server, said('b'))).status).toBe(503);
  });

  it('is bounded in time: it stops by itself after lifeMs', async () => {
    server = await startResponsesServer({ lifeMs: 200 });
    const url = server.baseUrl;
    await waitFor(() =>
      fetch(`${url}/models`).then(
        () => false,
        () => true,
      ),
    );
  });
});
