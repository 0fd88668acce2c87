/**
 * A request's context packet (SPEC §4), built once and archived with the
 * request as `archive/<day>/<id>.context.json`. A request routed again (a
 * fallback, a restarted bridge) reuses the archived packet, so tmux and git
 * are asked once per request; a packet that cannot be collected in full is
 * built from the request alone rather than holding the request up.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import type { CollectContext } from '../../backends/context-collector.js';
import type { BackendRequest } from '../../backends/types.js';
import { ensurePrivateDir, writeFileAtomic } from '../../home/fs.js';
import type { HomePaths } from '../../home/paths.js';
import type { Logger } from '../../log/logger.js';
import {
  buildContextPacket,
  type ContextPacket,
} from '../../protocol/context-packet.js';

/** `archive/<day>/<id>.context.json`: the packet, archived with the request. */
export function contextArchivePath(
  paths: HomePaths,
  request: { id: string; detectedAt: string },
): string {
  return path.join(
    paths.archive,
    request.detectedAt.slice(0, 10),
    `${request.id}.context.json`,
  );
}

export interface ContextArchiveOptions {
  paths: HomePaths;
  /** Screen lines a packet keeps (config `contextLines`). */
  contextLines: number;
  log: Logger;
  collectContext: CollectContext;
  now: () => number;
}

/**
 * The request's context packet: the one it carries, else the archived one,
 * else one collected now (or, when collecting fails, one without screen
 * lines or recent events) and archived.
 */
export async function contextFor(
  options: ContextArchiveOptions,
  request: BackendRequest,
): Promise<ContextPacket> {
  const { paths, log } = options;
  if (request.context) return request.context;
  const file = contextArchivePath(paths, request);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as ContextPacket;
  } catch {
    // not built yet
  }
  let packet: ContextPacket;
  try {
    packet = await options.collectContext(request);
  } catch (error) {
    log.warn({ err: error, requestId: request.id }, 'context incomplete');
    packet = buildContextPacket({
      requestId: request.id,
      agent: request.agent,
      preset: request.preset,
      type: request.type,
      priority: request.priority,
      attributes: request.attributes,
      detectedAt: request.detectedAt,
      body: request.body,
      screenLines: [],
      contextLines: options.contextLines,
      recent: [],
      now: new Date(options.now()),
    });
  }
  await ensurePrivateDir(paths.archive);
  await ensurePrivateDir(path.dirname(file));
  await writeFileAtomic(file, `${JSON.stringify(packet, null, 2)}\n`);
  return packet;
}
