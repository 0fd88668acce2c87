import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BackendRequest } from '../../../src/backends/types.js';
import {
  contextArchivePath,
  contextFor,
  type ContextArchiveOptions,
} from '../../../src/bridge/route/context-archive.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { createLogger } from '../../../src/log/logger.js';
import { buildContextPacket } from '../../../src/protocol/context-packet.js';
import { makeTempHome } from '../../helpers/tmux-server.js';

const request: BackendRequest = {
  id: 'worker-1-q1',
  agent: 'worker-1',
  type: 'question',
  priority: 'normal',
  attributes: { id: 'q1' },
  body: 'Which database?',
  bodyHash: 'a'.repeat(64),
  detectedAt: '2026-01-02T03:04:05.000Z',
  preset: 'generic',
};

describe('context archive', () => {
  let cleanup: () => void;
  let paths: HomePaths;
  let collected: number;

  beforeEach(() => {
    let home: string;
    ({ home, cleanup } = makeTempHome('macs-context-archive-'));
    paths = resolveHomePaths(home);
    collected = 0;
  });
  afterEach(() => cleanup());

  function options(fail = false): ContextArchiveOptions {
    return {
      paths,
      contextLines: 40,
      log: createLogger({ level: 'silent' }),
      now: () => Date.parse('2026-01-02T03:04:06.000Z'),
      collectContext: (r) => {
        collected += 1;
        if (fail) return Promise.reject(new Error('tmux is gone'));
        return Promise.resolve(
          buildContextPacket({
            ...r,
            requestId: r.id,
            screenLines: ['screen line'],
            contextLines: 40,
            recent: [],
            now: new Date(),
          }),
        );
      },
    };
  }

  it('files the packet under the day the request was detected', () => {
    expect(contextArchivePath(paths, request)).toBe(
      path.join(paths.archive, '2026-01-02', 'worker-1-q1.context.json'),
    );
  });

  it('collects a packet once, archives it privately, and reuses it', async () => {
    const packet = await contextFor(options(), request);
    expect(packet).toMatchObject({
      requestId: request.id,
      screen: ['screen line'],
    });
    const file = contextArchivePath(paths, request);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(packet);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(await contextFor(options(), request)).toEqual(packet);
    expect(collected).toBe(1);
  });

  it('takes the packet a request carries as it is', async () => {
    const carried = await contextFor(options(), request);
    collected = 0;
    const again = { ...request, id: 'worker-1-q2', context: carried };
    expect(await contextFor(options(), again)).toBe(carried);
    expect(collected).toBe(0);
  });

  it('builds a packet from the request alone when collecting fails', async () => {
    const packet = await contextFor(options(true), request);
    expect(packet).toMatchObject({
      requestId: request.id,
      body: 'Which database?',
      screen: [],
    });
    expect(
      JSON.parse(readFileSync(contextArchivePath(paths, request), 'utf8')),
    ).toEqual(packet);
  });
});
