/**
 * The calls the MCP SDK refuses before any tool runs (arguments that do not
 * match a tool's schema, an unknown tool) never reach the registrar, so it
 * cannot record them. This transport wrapper sees every message: when the
 * answer to a `tools/call` goes out for a call no tool took, it reports the
 * call, so that it too becomes an `mcp.call` event.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * A transport that passes every message through and, when the answer to a
 * `tools/call` goes out for a call that never reached a tool, reports it.
 * `reached` holds the ids of the calls a tool took (the registrar adds
 * them); each is forgotten once its answer goes out or it is cancelled.
 */
export function recordRefusedCalls(
  inner: Transport,
  reached: Set<string | number>,
  report: (tool: string, error: string) => Promise<void>,
): Transport {
  const calls = new Map<string | number, string>();
  const outer: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    async send(message, sendOptions) {
      const id = 'id' in message ? message.id : undefined;
      if (id !== undefined && ('result' in message || 'error' in message)) {
        const tool = calls.get(id);
        calls.delete(id);
        if (tool !== undefined && !reached.delete(id)) {
          const text =
            'error' in message
              ? message.error.message
              : ((message.result as { content?: { text?: string }[] })
                  .content?.[0]?.text ?? 'refused');
          await report(tool, text);
        }
      }
      return inner.send(message, sendOptions);
    },
  };
  if (inner.setProtocolVersion)
    outer.setProtocolVersion = (version) => inner.setProtocolVersion?.(version);
  inner.onclose = () => outer.onclose?.();
  inner.onerror = (error) => outer.onerror?.(error);
  inner.onmessage = (message, extra) => {
    if (
      'method' in message &&
      'id' in message &&
      message.method === 'tools/call'
    ) {
      const params = message.params as { name?: unknown } | undefined;
      calls.set(
        message.id,
        typeof params?.name === 'string' ? params.name : '?',
      );
    } else if (
      'method' in message &&
      message.method === 'notifications/cancelled'
    ) {
      const id = (message.params as { requestId?: string | number } | undefined)
        ?.requestId;
      if (id !== undefined) {
        calls.delete(id);
        reached.delete(id);
      }
    }
    outer.onmessage?.(message, extra);
  };
  return outer;
}
