/**
 * One MCP session with a host: `ssh <host> macs mcp --home <home>`, with the
 * SDK's client speaking over the ssh process's stdin and stdout. The host's
 * macs serves the tools a controller uses (docs/mcp.md); the hub calls them
 * and checks what comes back (host-data.ts). A session that fails to start
 * says why in one line (ssh-errors.ts); a host whose macs is not this
 * version is refused.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { errorMessage } from '../errors.js';
import { ChangeNoticeSchema } from './change-notice.js';
import { cleanHostText, HostVersion } from './host-data.js';
import { startSshChannel, type SshTarget } from './ssh.js';
import {
  classifySshFailure,
  RemoteError,
  versionMismatch,
} from './ssh-errors.js';
import { createStreamTransport } from './stream-transport.js';

/** How long a session may take to start (ssh, then MCP's initialize). */
export const SESSION_START_TIMEOUT_MS = 20_000;
/** How long one tool call may take (a host's wait_for_request is asked for less: HOST_WAIT_SEC). */
export const TOOL_CALL_TIMEOUT_MS = 30_000;

/** A host as the hub reaches it. */
export interface HostTarget extends SshTarget {
  /** The host's macs home (an absolute path on the host). */
  home: string;
}

/** A tool the host refused (its reason, cleaned), or a call that failed. */
export class HostRefusal extends Error {
  constructor(
    readonly host: string,
    message: string,
  ) {
    super(message);
    this.name = 'HostRefusal';
  }
}

export interface HostSession {
  host: string;
  /** The host's macs version. */
  version: string;
  /**
   * Call a tool; resolves to its structured data, throws `HostRefusal`.
   * `signal` cancels the call (the host hears it: MCP's cancellation).
   */
  call: (
    tool: string,
    args: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ) => Promise<unknown>;
  ping: (timeoutMs: number) => Promise<void>;
  /**
   * Call `listener` at each change notice the host sends (its agents or
   * requests changed: read it again); returns the unsubscribe.
   */
  onChange: (listener: () => void) => () => void;
  /** Resolves when the session ended (the ssh process ended or was closed). */
  ended: Promise<string>;
  close: () => Promise<void>;
  /** The ssh process (tests stop it to play a hung link). */
  pid: number | undefined;
}

/** Open a session; throws a `RemoteError` naming the host and the fix. */
export async function openHostSession(
  target: HostTarget,
  options: { version: string; timeoutMs?: number },
): Promise<HostSession> {
  const channel = await startSshChannel(target, [
    'macs',
    'mcp',
    '--from-hub',
    '--home',
    target.home,
  ]);
  const transport = createStreamTransport(channel.stdout, channel.stdin);
  const client = new Client({ name: 'macs-hub', version: options.version });
  const changeListeners = new Set<() => void>();
  client.setNotificationHandler(ChangeNoticeSchema, () => {
    for (const listener of [...changeListeners]) listener();
  });
  const failed = channel.ended.then((r) => {
    throw classifySshFailure(target.name, r);
  });
  failed.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(classifySshFailure(target.name, { stderr: '', timedOut: true })),
      options.timeoutMs ?? SESSION_START_TIMEOUT_MS,
    );
  });
  try {
    await Promise.race([client.connect(transport), failed, timeout]);
  } catch (error) {
    if (error instanceof RemoteError) {
      channel.kill();
      throw error;
    }
    // The connect failed first (its output closed): how ssh ends by itself
    // is the better reason, so it is given a moment before it is ended.
    const ended = await Promise.race([
      channel.ended,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 2000)),
    ]);
    channel.kill();
    if (ended) throw classifySshFailure(target.name, ended);
    throw new RemoteError(
      target.name,
      'failed',
      `no MCP session: ${errorMessage(error)}`,
      'run `macs mcp --home <home>` on the host to see more',
    );
  } finally {
    clearTimeout(timer);
  }
  const reported = client.getServerVersion();
  const version = HostVersion.safeParse(reported?.version);
  if (reported?.name !== 'macs' || !version.success) {
    channel.kill();
    throw new RemoteError(
      target.name,
      'no-macs',
      "the program run as `macs` there is not macs's MCP server",
      'check `ssh <host> macs --version` (docs/remote.md)',
    );
  }
  if (version.data !== options.version) {
    channel.kill();
    throw versionMismatch(target.name, version.data, options.version);
  }
  const ended = channel.ended.then(
    (r) => cleanHostText(r.stderr).trim().split('\n').pop() || 'ssh ended',
  );
  return {
    host: target.name,
    version: version.data,
    pid: channel.pid,
    ended,
    call: async (tool, args, callOptions) => {
      let result;
      try {
        result = await client.callTool(
          { name: tool, arguments: args },
          undefined,
          {
            timeout: TOOL_CALL_TIMEOUT_MS,
            ...(callOptions?.signal ? { signal: callOptions.signal } : {}),
          },
        );
      } catch (error) {
        throw new HostRefusal(
          target.name,
          cleanHostText(errorMessage(error)).slice(0, 500),
        );
      }
      if (result.isError) {
        const content = Array.isArray(result.content) ? result.content : [];
        const first = content[0] as
          { type?: unknown; text?: unknown } | undefined;
        const text = typeof first?.text === 'string' ? first.text : 'refused';
        throw new HostRefusal(target.name, cleanHostText(text).slice(0, 500));
      }
      return result.structuredContent;
    },
    ping: async (timeoutMs) => {
      await client.ping({ timeout: timeoutMs });
    },
    onChange: (listener) => {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    close: async () => {
      await client.close().catch(() => undefined);
      channel.kill();
      await channel.ended;
    },
  };
}
