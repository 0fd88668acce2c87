/**
 * A scripted Gemini API server for the real Gemini CLI (test/agents).
 *
 * It answers the few Generative Language API calls the CLI makes, in the
 * shapes the API documents (ai.google.dev/api):
 *
 * - `POST /v1beta/models/<model>:streamGenerateContent?alt=sse`: server-sent
 *   events, one `GenerateContentResponse` JSON per `data:` line;
 * - `POST /v1beta/models/<model>:generateContent`: one such JSON;
 * - `POST /v1beta/models/<model>:countTokens`: `{ totalTokens }`;
 * - an error is an HTTP status with `{ error: { code, message, status } }`.
 *
 * The chat turns (`streamGenerateContent`) follow a script: a list of turns,
 * each taken by the first request it matches (by default, any chat request),
 * so a test says what the model answers to each message. A chat request with
 * no turn left gets a short text. The CLI's helper calls (the non-streaming
 * `generateContent`, used e.g. for its next-speaker check) get a neutral
 * answer unless a turn asks for them. Every request is recorded.
 *
 * The server listens on 127.0.0.1 only, on a random port, and stops by
 * itself after `lifeMs` (default 10 minutes) or `maxRequests` requests.
 * Point the CLI at it with GOOGLE_GEMINI_BASE_URL (`url`).
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A part of a content, as the API writes it. */
export type Part =
  | { text: string; thought?: boolean }
  | { functionCall: { name: string; args: Record<string, unknown> } }
  | {
      functionResponse: { name: string; response: Record<string, unknown> };
    };

export interface Content {
  role?: string;
  parts?: Part[];
}

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  /** The path without the query, e.g. `/v1beta/models/gemini-2.5-flash:countTokens`. */
  path: string;
  query: string;
  /** `streamGenerateContent`, `generateContent`, `countTokens`, … (after the `:`). */
  action: string;
  model: string;
  /** The API key the client sent (`x-goog-api-key` or `?key=`). */
  apiKey: string;
  body: { contents?: Content[]; [key: string]: unknown } | undefined;
  /** The `usageMetadata` its answer reported, when it got that far. */
  usage?: UsageMetadata;
}

/** The usage of one answer, as the API's `usageMetadata` names it. */
export interface UsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

const DEFAULT_USAGE: UsageMetadata = {
  promptTokenCount: 10,
  candidatesTokenCount: 5,
  totalTokenCount: 15,
};

/** What the model does in one turn. */
export type Turn = (
  | { text: string | string[] }
  | {
      functionCall: { name: string; args: Record<string, unknown> };
      text?: string;
    }
  | { error: { status: number; message: string; apiStatus?: string } }
) & {
  /** Which requests this turn answers (default: chat requests). */
  when?: (request: RecordedRequest) => boolean;
  /** How many requests it answers (default 1): the CLI retries a failed call. */
  times?: number;
  /** Hold the answer back this long, so a test can see the turn at work. */
  delayMs?: number;
};

export interface GeminiApiServer {
  /** The base URL for GOOGLE_GEMINI_BASE_URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  requests: RecordedRequest[];
  /** The chat requests (`streamGenerateContent`) in order. */
  chats(): RecordedRequest[];
  /** Add turns to the end of the script. */
  push(...turns: Turn[]): void;
  /** How many turns of the script have not been used yet. */
  pending(): number;
  close(): Promise<void>;
}

/** The text of a content's text parts, joined. */
export function contentText(content: Content | undefined): string {
  return (content?.parts ?? [])
    .map((p) => ('text' in p ? p.text : ''))
    .join('');
}

/** The last content of a request sent by the user (its text and function responses). */
export function lastUserContent(
  request: RecordedRequest | undefined,
): Content | undefined {
  const contents = request?.body?.contents ?? [];
  for (let i = contents.length - 1; i >= 0; i--) {
    if (contents[i]?.role === 'user') return contents[i];
  }
  return undefined;
}

/** The canonical status name of an HTTP error code (google.rpc.Code). */
const API_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

const isChat = (r: RecordedRequest) => r.action === 'streamGenerateContent';

/** One GenerateContentResponse carrying parts; the last one ends the turn. */
function response(
  parts: Part[],
  last: boolean,
  model: string,
  usage: UsageMetadata = DEFAULT_USAGE,
) {
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        index: 0,
        ...(last ? { finishReason: 'STOP' } : {}),
      },
    ],
    ...(last
      ? {
          usageMetadata: usage,
        }
      : {}),
    modelVersion: model,
  };
}

/** The chunks of a turn: text split as given, a function call in the last chunk. */
function turnChunks(turn: Turn): Part[][] {
  if ('functionCall' in turn) {
    return [
      ...(turn.text ? [[{ text: turn.text }]] : []),
      [{ functionCall: turn.functionCall }],
    ];
  }
  if ('text' in turn) {
    const texts = Array.isArray(turn.text) ? turn.text : [turn.text];
    return texts.map((text) => [{ text }]);
  }
  return [];
}

export async function startGeminiApiServer(
  options: {
    turns?: Turn[];
    lifeMs?: number;
    maxRequests?: number;
    /**
     * The `usageMetadata` each answer reports (default: 10 prompt, 5
     * candidates); what was sent is kept in `request.usage`.
     */
    usage?: (request: RecordedRequest) => UsageMetadata;
  } = {},
): Promise<GeminiApiServer> {
  const script: (Turn & { uses?: number })[] = [...(options.turns ?? [])];
  const spent = (t: Turn & { uses?: number }) =>
    (t.uses ?? 0) >= (t.times ?? 1);
  const requests: RecordedRequest[] = [];
  const maxRequests = options.maxRequests ?? 500;

  const server = http.createServer((req, res) => {
    if (requests.length >= maxRequests) {
      // Over budget: refuse, and take no new connections.
      req.socket.destroy();
      server.close();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // `/v1beta/models/<model>:<action>`
      const match = /\/models\/([^/:]+)(?::([A-Za-z]+))?$/.exec(url.pathname);
      let body: RecordedRequest['body'];
      try {
        body = chunks.length
          ? (JSON.parse(
              Buffer.concat(chunks).toString('utf8'),
            ) as RecordedRequest['body'])
          : undefined;
      } catch {
        body = undefined;
      }
      const request: RecordedRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.search,
        action: match?.[2] ?? '',
        model: match?.[1] ?? '',
        apiKey:
          String(req.headers['x-goog-api-key'] ?? '') ||
          (url.searchParams.get('key') ?? ''),
        body,
      };
      requests.push(request);
      answer(request, res);
    });
  });

  function sendError(
    res: http.ServerResponse,
    status: number,
    message: string,
    apiStatus?: string,
  ): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        error: {
          code: status,
          message,
          status: apiStatus ?? API_STATUS[status] ?? 'UNKNOWN',
        },
      }),
    );
  }

  function answer(request: RecordedRequest, res: http.ServerResponse): void {
    if (request.method !== 'POST' || !request.model) {
      sendError(res, 404, `no such method: ${request.path}`);
      return;
    }
    if (request.action === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    const turn = script.find(
      (t) => !spent(t) && (t.when ? t.when(request) : isChat(request)),
    );
    if (turn) turn.uses = (turn.uses ?? 0) + 1;
    if (turn?.delayMs) {
      const timer = setTimeout(() => reply(request, turn, res), turn.delayMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    reply(request, turn, res);
  }

  function reply(
    request: RecordedRequest,
    turn: Turn | undefined,
    res: http.ServerResponse,
  ): void {
    if (turn && 'error' in turn) {
      sendError(
        res,
        turn.error.status,
        turn.error.message,
        turn.error.apiStatus,
      );
      return;
    }
    const chunks = turn
      ? turnChunks(turn)
      : isChat(request)
        ? [[{ text: 'OK.' }]]
        : // A helper call without a script: an empty JSON object answer
          // (the next-speaker check reads `{}` as "nobody speaks next").
          [[{ text: '{}' }]];
    const usage = options.usage?.(request) ?? DEFAULT_USAGE;
    request.usage = usage;
    if (request.action === 'streamGenerateContent') {
      // Server-sent events: one response a `data:` line, a blank line after.
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
      });
      chunks.forEach((parts, i) => {
        res.write(
          `data: ${JSON.stringify(response(parts, i === chunks.length - 1, request.model, usage))}\r\n\r\n`,
        );
      });
      res.end();
      return;
    }
    if (request.action === 'generateContent') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(response(chunks.flat(), true, request.model, usage)),
      );
      return;
    }
    sendError(res, 404, `no such method: ${request.path}`);
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const life = setTimeout(() => server.close(), options.lifeMs ?? 600_000);
  life.unref();

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    chats: () => requests.filter(isChat),
    push: (...turns) => script.push(...turns),
    pending: () => script.filter((t) => !spent(t)).length,
    close: () =>
      new Promise<void>((resolve) => {
        clearTimeout(life);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
