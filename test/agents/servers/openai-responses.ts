/**
 * A scripted OpenAI Responses API server for the real Codex CLI (the
 * `agents` tests). It listens on 127.0.0.1 only, on a random port, stops by
 * itself after `lifeMs` (10 minutes at most) or `maxRequests` requests, and
 * records every request it gets.
 *
 * Codex is pointed at it with a `model_providers` entry (`base_url` =
 * `server.baseUrl`, `wire_api = "responses"`); see `writeCodexHome` in
 * test/agents/codex-home.ts.
 *
 * The wire format (OpenAI's Responses API streaming reference): `POST
 * /v1/responses` with `stream: true` is answered with server-sent events,
 * each `event: <type>` and `data: <json>` whose `type` repeats the event
 * name, in this order for one answer:
 *
 *   response.created            { response: { id, status: "in_progress" } }
 *   response.output_item.added  { output_index, item }     (per output item)
 *   response.output_text.delta  { item_id, output_index, content_index, delta }
 *   response.output_item.done   { output_index, item }     (the finished item)
 *   response.completed          { response: { id, status: "completed", usage } }
 *
 * An output item is an assistant `message` (its text in `output_text`
 * content parts) or a `function_call` (`name`, `call_id`, `arguments` as a
 * JSON string): Codex runs the tool (asking the person first, as its
 * approval policy says) and sends its output back in the next request as a
 * `function_call_output` input item. A failure is an HTTP error status with
 * an `{ error: { message, type, code } }` body.
 */
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the model does in one turn (one POST /v1/responses). */
export interface Turn {
  /**
   * Which request this turn answers (default: any). Requests no turn is
   * for get `fallback` (Codex also asks the model for things of its own,
   * such as a thread title).
   */
  when?: (request: RecordedRequest) => boolean;
  /** Assistant text, streamed in a few deltas. */
  text?: string;
  /** A shell command the model wants run (a function call after the text). */
  shell?: {
    command: string;
    /** Ask to run outside the sandbox: Codex asks the person first. */
    escalate?: boolean;
    justification?: string;
  };
  /** Answer with this HTTP error instead of a stream. */
  error?: { status: number; message: string; code?: string };
  /** Hold the answer until `release(name)` (the turn then counts as running). */
  holdUntil?: string;
}

/** One request the server got, as it came. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (POST), or undefined. */
  body: Record<string, unknown> | undefined;
  /** Which turn answered it (its index), or 'fallback' / 'other'. */
  answeredBy?: number | 'fallback' | 'other';
  /** The usage its `response.completed` reported, when it got that far. */
  usage?: ResponsesUsage;
}

/** The usage of one response, as the Responses API names it. */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponsesServer {
  /** `http://127.0.0.1:<port>/v1` (what `base_url` is set to). */
  baseUrl: string;
  port: number;
  /** Every request so far, in order. */
  requests: RecordedRequest[];
  /** The POST /v1/responses requests a scripted turn answered. */
  turnRequests(): RecordedRequest[];
  /** Add turns at the end of the script. */
  push(...turns: Turn[]): void;
  /** Let a turn held with `holdUntil: name` answer. */
  release(name: string): void;
  /** How many scripted turns were used. */
  usedTurns(): number;
  close(): Promise<void>;
}

/** The text of the user's messages of a Responses request, in order. */
export function userTexts(request: RecordedRequest): string[] {
  const input = request.body?.input;
  if (!Array.isArray(input)) return [];
  const texts: string[] = [];
  for (const item of input as Record<string, unknown>[]) {
    if (item.type !== 'message' || item.role !== 'user') continue;
    const content = item.content;
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content))
      for (const part of content as Record<string, unknown>[])
        if (typeof part.text === 'string') texts.push(part.text);
  }
  return texts;
}

/** The function_call_output items of a request (the tool results Codex sends back). */
export function toolOutputs(request: RecordedRequest): string[] {
  const input = request.body?.input;
  if (!Array.isArray(input)) return [];
  return (input as Record<string, unknown>[])
    .filter((item) => item.type === 'function_call_output')
    .map((item) =>
      typeof item.output === 'string' ? item.output : JSON.stringify(item),
    );
}

/** The names of the function tools a request offers the model. */
export function toolNames(request: RecordedRequest): string[] {
  const tools = request.body?.tools;
  if (!Array.isArray(tools)) return [];
  return (tools as Record<string, unknown>[]).flatMap((t) =>
    typeof t.name === 'string' ? [t.name] : [],
  );
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Split a text into a few deltas, as a model streams it. */
function deltas(text: string): string[] {
  const parts: string[] = [];
  const size = Math.max(8, Math.ceil(text.length / 4));
  for (let i = 0; i < text.length; i += size)
    parts.push(text.slice(i, i + size));
  return parts;
}

/**
 * The function call the model makes for a shell command, in the form of the
 * shell tool the request offers: `shell_command` takes `command` as one
 * string, `shell` takes an argv, `exec_command` (unified exec) takes `cmd`.
 */
function shellCall(
  request: RecordedRequest,
  shell: NonNullable<Turn['shell']>,
): { name: string; args: Record<string, unknown> } {
  const offered = toolNames(request);
  const escalation = shell.escalate
    ? {
        sandbox_permissions: 'require_escalated',
        justification: shell.justification ?? 'The task needs this command.',
      }
    : {};
  if (offered.includes('shell_command'))
    return {
      name: 'shell_command',
      args: { command: shell.command, ...escalation },
    };
  if (offered.includes('exec_command'))
    return {
      name: 'exec_command',
      args: { cmd: shell.command, ...escalation },
    };
  return {
    name: 'shell',
    args: { command: ['bash', '-lc', shell.command], ...escalation },
  };
}

let idCounter = 0;
const newId = (prefix: string) => `${prefix}_${String(++idCounter)}`;

export async function startResponsesServer(
  options: {
    turns?: Turn[];
    /** The answer to a request no turn is for (default: a short text). */
    fallback?: Turn;
    /** Stop by itself after this long (default and cap: 10 minutes). */
    lifeMs?: number;
    /** Stop answering after this many requests (default 500). */
    maxRequests?: number;
    /**
     * The usage each completed response reports (default: 100 input, 20
     * output, nothing cached); what was sent is kept in `request.usage`.
     */
    usage?: (request: RecordedRequest) => ResponsesUsage;
  } = {},
): Promise<ResponsesServer> {
  const turns: Turn[] = [...(options.turns ?? [])];
  const used = new Set<number>();
  const fallback = options.fallback ?? { text: 'Done.' };
  const maxRequests = options.maxRequests ?? 500;
  const released = new Set<string>();
  const waiting = new Map<string, (() => void)[]>();
  const requests: RecordedRequest[] = [];

  const waitRelease = (name: string) =>
    released.has(name)
      ? Promise.resolve()
      : new Promise<void>((resolve) =>
          waiting.set(name, [...(waiting.get(name) ?? []), resolve]),
        );

  async function answerTurn(
    res: ServerResponse,
    request: RecordedRequest,
    turn: Turn,
  ): Promise<void> {
    if (turn.holdUntil) await waitRelease(turn.holdUntil);
    if (turn.error) {
      res.writeHead(turn.error.status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: turn.error.message,
            type: 'invalid_request_error',
            code: turn.error.code ?? null,
            param: null,
          },
        }),
      );
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const send = (type: string, data: Record<string, unknown>) =>
      res.write(
        `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`,
      );
    const responseId = newId('resp');
    const model =
      typeof request.body?.model === 'string' ? request.body.model : 'test';
    send('response.created', {
      response: {
        id: responseId,
        object: 'response',
        status: 'in_progress',
        model,
      },
    });
    let index = 0;
    if (turn.text !== undefined) {
      const itemId = newId('msg');
      send('response.output_item.added', {
        output_index: index,
        item: {
          type: 'message',
          id: itemId,
          role: 'assistant',
          status: 'in_progress',
          content: [],
        },
      });
      for (const delta of deltas(turn.text))
        send('response.output_text.delta', {
          item_id: itemId,
          output_index: index,
          content_index: 0,
          delta,
        });
      send('response.output_item.done', {
        output_index: index,
        item: {
          type: 'message',
          id: itemId,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: turn.text, annotations: [] }],
        },
      });
      index += 1;
    }
    if (turn.shell) {
      const { name, args } = shellCall(request, turn.shell);
      const item = {
        type: 'function_call',
        id: newId('fc'),
        call_id: newId('call'),
        name,
        arguments: JSON.stringify(args),
        status: 'completed',
      };
      send('response.output_item.added', {
        output_index: index,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      send('response.output_item.done', { output_index: index, item });
      index += 1;
    }
    const usage = options.usage?.(request) ?? {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 120,
    };
    request.usage = usage;
    send('response.completed', {
      response: {
        id: responseId,
        object: 'response',
        status: 'completed',
        model,
        usage,
      },
    });
    res.end();
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const request: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        headers: req.headers,
        body: undefined,
      };
      requests.push(request);
      if (requests.length > maxRequests) {
        res.writeHead(503).end();
        return;
      }
      if (req.method === 'POST') {
        const text = await readBody(req, 16 * 1024 * 1024);
        try {
          request.body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          request.body = undefined;
        }
      }
      if (req.method === 'POST' && url.pathname.endsWith('/responses')) {
        const index = turns.findIndex(
          (turn, i) => !used.has(i) && (!turn.when || turn.when(request)),
        );
        if (index >= 0) {
          used.add(index);
          request.answeredBy = index;
          await answerTurn(res, request, turns[index] as Turn);
        } else {
          request.answeredBy = 'fallback';
          await answerTurn(res, request, fallback);
        }
        return;
      }
      request.answeredBy = 'other';
      if (req.method === 'GET' && url.pathname.endsWith('/models')) {
        // The model list Codex may ask its provider for: none beyond its own.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: 'not found', type: 'not_found' } }),
      );
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const life = Math.min(options.lifeMs ?? 600_000, 600_000);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    for (const name of waiting.keys()) {
      for (const resolve of waiting.get(name) ?? []) resolve();
    }
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const timer = setTimeout(() => void close(), life);
  timer.unref();

  return {
    baseUrl: `http://127.0.0.1:${String(port)}/v1`,
    port,
    requests,
    turnRequests: () =>
      requests.filter((r) => typeof r.answeredBy === 'number'),
    push: (...more) => turns.push(...more),
    release(name) {
      released.add(name);
      for (const resolve of waiting.get(name) ?? []) resolve();
      waiting.delete(name);
    },
    usedTurns: () => used.size,
    close,
  };
}
