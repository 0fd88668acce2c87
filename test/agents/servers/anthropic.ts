/**
 * A scripted stand-in for the Anthropic Messages API, for the real Claude
 * Code in the `agents` tests. It listens on 127.0.0.1 on a random port,
 * answers at most `maxRequests` requests and closes itself after `lifeMs`
 * (and when the test calls `close()`), and records every request it gets.
 *
 * `POST /v1/messages` with `stream: true` is answered as a server-sent event
 * stream in the documented order: `message_start`, then per content block
 * `content_block_start`, `content_block_delta` (`text_delta` for text,
 * `input_json_delta` for a tool call's input) and `content_block_stop`, then
 * `message_delta` with the `stop_reason` (`end_turn` or `tool_use`) and
 * `message_stop`. A non-streaming call gets one JSON message. Token counting
 * gets a count; any other path gets an empty JSON object.
 *
 * What the model "says" is decided per request by the test's script: a
 * function of the request (usually of its last user message) that returns a
 * turn: text, a tool call, an HTTP error or an error event mid-stream.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the model does in one request. */
export type Turn =
  | {
      kind: 'text';
      text: string;
      /** Streamed: the message ends only once this settles (a turn still running). */
      hold?: Promise<unknown>;
    }
  | {
      kind: 'tool';
      name: string;
      input: Record<string, unknown>;
      /** Text the model writes before the call. */
      text?: string;
      hold?: Promise<unknown>;
    }
  /** The request fails with this HTTP status and an error body. */
  | { kind: 'http-error'; status: number; type: string; message: string }
  /** The stream starts, then an `error` event ends it. */
  | { kind: 'stream-error'; type: string; message: string };

/** One request as the server received it. */
export interface ModelRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  at: number;
  /** The usage figures the answer reported (a Messages answer that got that far). */
  usage?: Usage;
}

/** The usage figures of one answer, as the Messages API names them. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export type Script = (request: ModelRequest) => Turn;

export interface AnthropicServer {
  /** `http://127.0.0.1:<port>`, for ANTHROPIC_BASE_URL. */
  url: string;
  requests: ModelRequest[];
  /** The Messages requests of the main conversation (those that offer tools). */
  conversation(): ModelRequest[];
  close(): Promise<void>;
}

/** A content block of a message as the client sends it. */
type Block = { type?: string; text?: string; content?: unknown };

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

/** Text of a block list, tool results included (their content is text too). */
function textOf(content: unknown, reminders = false): string {
  return blocksOf(content)
    .map((b) =>
      b.type === 'text'
        ? (b.text ?? '')
        : b.type === 'tool_result'
          ? textOf(b.content, reminders)
          : '',
    )
    .filter(
      (t) => t && (reminders || !t.trimStart().startsWith('<system-reminder>')),
    )
    .join('\n');
}

/**
 * The text of the last user message. Claude Code adds `<system-reminder>`
 * blocks to user messages; they are left out unless `reminders` is set
 * (a Stop hook's additional context comes as one).
 */
export function lastUserText(
  request: ModelRequest,
  options: { reminders?: boolean } = {},
): string {
  const messages = request.body.messages;
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i] as { role?: string; content?: unknown };
    if (m.role === 'user') return textOf(m.content, options.reminders);
  }
  return '';
}

/**
 * True when the last user message carries a tool's result. Claude Code
 * (2.1.197) sometimes sends a `role: "system"` message after it, so the
 * last message is not always the user's.
 */
export function isToolResult(request: ModelRequest): boolean {
  const messages = request.body.messages;
  if (!Array.isArray(messages)) return false;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i] as { role?: string; content?: unknown };
    if (m.role === 'user')
      return blocksOf(m.content).some((b) => b.type === 'tool_result');
  }
  return false;
}

/**
 * The tool call the model made last (the `tool_use` block of the latest
 * assistant message), whose result the request carries: what a script
 * checks to go on after a tool ran. Undefined when there is none.
 */
export function lastToolUse(
  request: ModelRequest,
): { name: string; input: Record<string, unknown> } | undefined {
  const messages = request.body.messages;
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i] as { role?: string; content?: unknown };
    if (m.role !== 'assistant') continue;
    const use = blocksOf(m.content)
      .reverse()
      .find((b) => b.type === 'tool_use') as
      { name?: string; input?: Record<string, unknown> } | undefined;
    return use?.name ? { name: use.name, input: use.input ?? {} } : undefined;
  }
  return undefined;
}

/** The names of the tools a request offers the model. */
export function toolNames(request: ModelRequest): string[] {
  const tools = request.body.tools;
  return Array.isArray(tools)
    ? tools.flatMap((t: { name?: unknown }) =>
        typeof t.name === 'string' ? [t.name] : [],
      )
    : [];
}

/** Requests of the main loop offer tools; titles, summaries and probes do not. */
export function isConversation(request: ModelRequest): boolean {
  return (
    request.path.startsWith('/v1/messages') &&
    !request.path.includes('count_tokens') &&
    Array.isArray(request.body.tools) &&
    request.body.tools.length > 0
  );
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

function sse(res: http.ServerResponse, event: string, data: object): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The content blocks of a successful turn. */
function blocksFor(
  turn: Extract<Turn, { kind: 'text' | 'tool' }>,
): Record<string, unknown>[] {
  if (turn.kind === 'text') return [{ type: 'text', text: turn.text }];
  return [
    ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
    { type: 'tool_use', id: id('toolu'), name: turn.name, input: turn.input },
  ];
}

/** The figures every answer reports unless the test's `usage` option says otherwise. */
const DEFAULT_USAGE: Usage = {
  input_tokens: 10,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

async function writeStream(
  res: http.ServerResponse,
  model: string,
  turn: Exclude<Turn, { kind: 'http-error' }>,
  usage: Usage,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: id('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // As the API does: the input figures at the start, output so far 1.
      usage: { ...usage, output_tokens: 1 },
    },
  });
  if (turn.kind === 'stream-error') {
    sse(res, 'error', {
      type: 'error',
      error: { type: turn.type, message: turn.message },
    });
    res.end();
    return;
  }
  const blocks = blocksFor(turn);
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      // Two deltas, as a model streams text in pieces.
      const text = String(block.text);
      const half = Math.ceil(text.length / 2);
      for (const piece of [text.slice(0, half), text.slice(half)].filter(
        Boolean,
      ))
        sse(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: piece },
        });
    } else {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: {
          type: 'tool_use',
          id: block.id,
          name: block.name,
          input: {},
        },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: {
          type: 'input_json_delta',
          partial_json: JSON.stringify(block.input),
        },
      });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  if (turn.hold) {
    // The blocks are out, the message is not over: the turn is running.
    const ping = setInterval(() => sse(res, 'ping', { type: 'ping' }), 1_000);
    await turn.hold.catch(() => undefined);
    clearInterval(ping);
    if (res.destroyed) return;
  }
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: {
      stop_reason: turn.kind === 'tool' ? 'tool_use' : 'end_turn',
      stop_sequence: null,
    },
    // The final, cumulative figures.
    usage,
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function writeJson(
  res: http.ServerResponse,
  status: number,
  body: object,
): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Start a server; `script` decides each Messages request of the conversation. */
export async function startAnthropicServer(
  options: {
    script?: Script;
    /** Answer to requests outside the main conversation (titles and such). */
    sideScript?: Script;
    lifeMs?: number;
    maxRequests?: number;
    /**
     * The usage figures each Messages answer reports (default: 10 input,
     * 5 output, no cache); what was sent is kept in `request.usage`.
     */
    usage?: (request: ModelRequest) => Usage;
  } = {},
): Promise<AnthropicServer> {
  const script = options.script ?? (() => ({ kind: 'text', text: 'OK.' }));
  const side =
    options.sideScript ?? (() => ({ kind: 'text', text: 'Session' }));
  const maxRequests = options.maxRequests ?? 500;
  const requests: ModelRequest[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 16 * 1024 * 1024) chunks.push(chunk);
    });
    req.on('end', () => {
      if (requests.length >= maxRequests) {
        writeJson(res, 429, {
          type: 'error',
          error: {
            type: 'rate_limit_error',
            message: 'test server: too many requests',
          },
        });
        return;
      }
      let body: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString());
        if (parsed && typeof parsed === 'object')
          body = parsed as Record<string, unknown>;
      } catch {
        // not JSON (a GET): an empty body
      }
      const request: ModelRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0] ?? '/',
        headers: req.headers,
        body,
        at: Date.now(),
      };
      requests.push(request);
      respond(request, res);
    });
  });

  function respond(request: ModelRequest, res: http.ServerResponse): void {
    if (request.method !== 'POST' || !request.path.startsWith('/v1/messages')) {
      writeJson(res, 200, {});
      return;
    }
    if (request.path.endsWith('/count_tokens')) {
      writeJson(res, 200, { input_tokens: 100 });
      return;
    }
    const turn = isConversation(request) ? script(request) : side(request);
    const model =
      typeof request.body.model === 'string'
        ? request.body.model
        : 'test-model';
    if (turn.kind === 'http-error') {
      writeJson(res, turn.status, {
        type: 'error',
        error: { type: turn.type, message: turn.message },
      });
      return;
    }
    const usage = options.usage?.(request) ?? DEFAULT_USAGE;
    if (turn.kind !== 'stream-error') request.usage = usage;
    if (request.body.stream === true) {
      void writeStream(res, model, turn, usage).catch(() => res.destroy());
      return;
    }
    if (turn.kind === 'stream-error') {
      writeJson(res, 500, {
        type: 'error',
        error: { type: turn.type, message: turn.message },
      });
      return;
    }
    writeJson(res, 200, {
      id: id('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content: blocksFor(turn),
      stop_reason: turn.kind === 'tool' ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage,
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      clearTimeout(timer);
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
  // Bounded life: the server goes by itself however the test ends.
  const timer = setTimeout(() => void close(), options.lifeMs ?? 10 * 60_000);
  timer.unref();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    conversation: () => requests.filter(isConversation),
    close,
  };
}
