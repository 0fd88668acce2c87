/**
 * `macs mcp` assembled: the server of mcp-server.ts on stdin/stdout, with
 * a hub's live fleet of its hosts, served until the client closes stdin or
 * the process is told to end.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createRemoteFleet } from '../remote/remote-fleet.js';
import { createMacsMcpServer, type MacsMcpOptions } from './mcp-server.js';

export interface StdioServe extends Omit<MacsMcpOptions, 'fleet'> {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  /** Resolves when the process is interrupted (SIGINT) or told to end. */
  interrupted: Promise<'SIGINT' | 'SIGTERM'>;
}

/**
 * Serve the controller's tools over MCP on `stdin`/`stdout` until the
 * client closes stdin (`closed`) or `interrupted` resolves (its signal).
 * Nothing else is written to `stdout` (it carries the protocol).
 */
export async function serveMcpOnStdio(
  serve: StdioServe,
): Promise<'closed' | 'SIGINT' | 'SIGTERM'> {
  const { env, stdin, stdout, interrupted, ...options } = serve;
  const { config, paths, log, version } = options;
  // At a hub, the links to its hosts live as long as the server (docs/remote.md).
  const fleet =
    Object.keys(config.hosts).length === 0
      ? undefined
      : createRemoteFleet({ config, env, paths, version, log }, { live: true });
  const { server, recording } = createMacsMcpServer({
    ...(fleet ? { fleet } : {}),
    ...options,
  });
  const transport = new StdioServerTransport(stdin as never, stdout as never);
  const closed = new Promise<'closed'>((resolve) => {
    transport.onclose = () => resolve('closed');
    stdin.once('end', () => resolve('closed'));
    stdin.once('close', () => resolve('closed'));
  });
  await server.connect(recording(transport));
  log.info({ home: paths.home }, 'mcp server started');
  const how = await Promise.race([closed, interrupted]);
  await server.close().catch(() => undefined);
  await fleet?.close();
  log.info({ how }, 'mcp server stopped');
  return how;
}
