/**
 * An MCP client transport over a pair of streams: the stdin and stdout of
 * the ssh process of a link. Messages are JSON lines (the stdio framing of
 * MCP), parsed with the SDK's own bounded reader; a line that is not a
 * JSON-RPC message is an error of the link, never something acted on.
 */
import {
  ReadBuffer,
  serializeMessage,
} from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Most bytes one message from a host may have. */
export const MAX_HOST_MESSAGE_BYTES = 8 * 1024 * 1024;

export function createStreamTransport(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Transport {
  const buffer = new ReadBuffer({ maxBufferSize: MAX_HOST_MESSAGE_BYTES });
  let closed = false;
  const transport: Transport = {
    start: () => {
      input.on('data', (chunk: Buffer | string) => {
        try {
          buffer.append(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
          for (;;) {
            const message = buffer.readMessage();
            if (message === null) break;
            transport.onmessage?.(message);
          }
        } catch (error) {
          transport.onerror?.(error as Error);
          void transport.close();
        }
      });
      const end = () => void transport.close();
      input.on('end', end);
      input.on('close', end);
      input.on('error', (error: Error) => transport.onerror?.(error));
      output.on('error', (error: Error) => transport.onerror?.(error));
      return Promise.resolve();
    },
    send: (message: JSONRPCMessage) =>
      new Promise<void>((resolve, reject) => {
        if (closed) return reject(new Error('the link is closed'));
        output.write(serializeMessage(message), (error) =>
          error ? reject(error) : resolve(),
        );
      }),
    close: () => {
      if (closed) return Promise.resolve();
      closed = true;
      buffer.clear();
      output.end();
      transport.onclose?.();
      return Promise.resolve();
    },
  };
  return transport;
}
