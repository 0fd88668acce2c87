import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { freshAgentState, saveAgentState } from '../../src/state/store.js';
import type { AgentStateFile, RequestRecord } from '../../src/state/types.js';
import { makeTempHome } from '../helpers/tmux-server.js';

/** A temp home with helpers to write what a bridge would have written. */
export function createHomeFixture() {
  const { home, cleanup } = makeTempHome('macs-status-');
  const paths: HomePaths = resolveHomePaths(home);
  return {
    home,
    paths,
    cleanup,
    async writeState(
      agent: string,
      change: (state: AgentStateFile) => void = () => undefined,
      preset = 'claude',
    ): Promise<AgentStateFile> {
      const state = freshAgentState(
        agent,
        preset,
        new Date('2025-03-01T11:59:00.000Z'),
      );
      change(state);
      await saveAgentState(paths, state);
      return state;
    },
    writeInboxMeta(id: string, meta: Record<string, unknown>): void {
      mkdirSync(paths.inbox, { recursive: true });
      writeFileSync(path.join(paths.inbox, `${id}.json`), JSON.stringify(meta));
    },
    writeArchive(record: Omit<RequestRecord, 'body'>): void {
      const dir = path.join(paths.archive, record.detectedAt.slice(0, 10));
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(dir, `${record.id}.json`),
        JSON.stringify(record),
      );
    },
    writeEvents(agent: string, lines: string[]): void {
      mkdirSync(paths.events, { recursive: true });
      writeFileSync(
        path.join(paths.events, `${agent}.jsonl`),
        lines.map((l) => `${l}\n`).join(''),
      );
    },
  };
}

/** A request record as the supervisor keeps it. */
export function makeRecord(over: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id: 'worker-1-q-17',
    agent: 'worker-1',
    workerId: 'q-17',
    type: 'question',
    priority: 'normal',
    attributes: { id: 'q-17' },
    bodyHash: 'abc',
    body: 'Should I migrate now?\nOptions: (a) now (b) later',
    stage: 'routed',
    backend: 'file',
    detectedAt: '2025-03-01T11:58:00.000Z',
    routedAt: '2025-03-01T11:58:00.100Z',
    ...over,
  };
}
