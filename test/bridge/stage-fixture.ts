/**
 * One agent's supervision context for the unit tests of the bridge's stages
 * (agent-context, request-steps, requests, answers, delivery, agent-state,
 * capture, intake, resume): a temp macs home, a FakeTmuxClient with the
 * agent's pane, an event log whose events are kept in memory, and an
 * AgentContext wired as supervisor.ts wires it, with a fresh state set.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createAgentContext,
  type AgentContext,
  type AgentProfile,
} from '../../src/bridge/agent-context.js';
import { DEFAULT_DELIVERY_RULES } from '../../src/typist/typist.js';
import {
  createRequestSteps,
  type RequestSteps,
} from '../../src/bridge/requests/request-steps.js';
import { ConfigSchema, type MacsConfig } from '../../src/config/schema.js';
import { createEventLog } from '../../src/events/log.js';
import type { EventType, MacsEvent } from '../../src/events/types.js';
import { ensureHomeDirs } from '../../src/home/fs.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { createSilentLogger } from '../../src/log/logger.js';
import { freshAgentState, readAgentState } from '../../src/state/store.js';
import type { AgentStateFile, RequestRecord } from '../../src/state/types.js';
import { FakeTmuxClient, type FakePane } from '../helpers/fake-tmux.js';
import { removeTestDir } from '../helpers/tmux-server.js';

export const AGENT = 'w1';

export interface StageFixtureOptions {
  /** Config file input (parsed with ConfigSchema). */
  config?: Record<string, unknown>;
  profile?: Partial<AgentProfile>;
  session?: string;
  /** Fields of the agent's fake pane. */
  pane?: Partial<FakePane>;
  /** Set a fresh state on the context (default true). */
  withState?: boolean;
  /** The tmux client (default a new FakeTmuxClient). */
  tmux?: FakeTmuxClient;
  /** The agent's preset follows its pane's program (no preset named). */
  followsProgram?: boolean;
}

export interface StageFixture {
  home: string;
  paths: HomePaths;
  config: MacsConfig;
  tmux: FakeTmuxClient;
  pane: FakePane;
  ctx: AgentContext;
  /** Every event emitted, in order. */
  events: MacsEvent[];
  /** The state in memory. */
  state: () => AgentStateFile;
  /** Event types, in order (of one request when given). */
  types: (requestId?: string) => EventType[];
  /** Events of one type. */
  eventsOf: (type: EventType) => MacsEvent[];
  /** An open request of the agent, asked by the pane as it runs now, held in the state. */
  addRecord: (over?: Partial<RequestRecord>) => RequestRecord;
  /** The state file as saved. */
  saved: () => Promise<AgentStateFile | undefined>;
  /** The archived record of a request (`archive/<day>/<id>.json`), if any. */
  archived: (record: RequestRecord) => Record<string, unknown> | undefined;
  /** The request steps wired to this context; called-off deliveries are listed. */
  createSteps: () => { steps: RequestSteps; calledOff: string[] };
  cleanup: () => void;
}

/** A profile whose screen rules read `❯` as idle and `esc to interrupt` as working. */
export function testProfile(over: Partial<AgentProfile> = {}): AgentProfile {
  return {
    preset: 'generic',
    rules: { ...DEFAULT_DELIVERY_RULES, submitDelayMs: 0 },
    classify: (screen) =>
      screen.includes('esc to interrupt')
        ? 'working'
        : screen.includes('❯')
          ? 'idle'
          : 'unknown',
    ...over,
  };
}

let counter = 0;

export async function createStageFixture(
  options: StageFixtureOptions = {},
): Promise<StageFixture> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'macs-stage-'));
  const paths = resolveHomePaths(home);
  await ensureHomeDirs(paths);
  const config = ConfigSchema.parse(options.config ?? {});
  const tmux = options.tmux ?? new FakeTmuxClient();
  const pane = tmux.addPane({ id: '%5', pid: 4242, ...options.pane });
  const events: MacsEvent[] = [];
  const ctx = createAgentContext({
    agent: AGENT,
    pane: pane.id,
    profile: testProfile(options.profile),
    paths,
    config,
    tmux,
    events: createEventLog(paths, { onEvent: (e) => events.push(e) }),
    log: createSilentLogger(),
    ...(options.session ? { session: options.session } : {}),
    ...(options.followsProgram ? { followsProgram: true } : {}),
  });
  ctx.panePid = pane.pid;
  if (options.withState !== false)
    ctx.setState(freshAgentState(AGENT, 'generic'));

  return {
    home,
    paths,
    config,
    tmux,
    pane,
    ctx,
    events,
    state: () => ctx.current(),
    types: (requestId) =>
      events
        .filter((e) => requestId === undefined || e.requestId === requestId)
        .map((e) => e.type),
    eventsOf: (type) => events.filter((e) => e.type === type),
    addRecord(over = {}) {
      counter += 1;
      const now = new Date(Date.UTC(2025, 2, 1, 12, 0, counter));
      const record: RequestRecord = {
        id: `${AGENT}-r${String(counter)}`,
        agent: AGENT,
        type: 'question',
        priority: 'normal',
        attributes: {},
        bodyHash: `hash-${String(counter)}`,
        body: `Question ${String(counter)}?\nmore text`,
        stage: 'routed',
        backend: 'file',
        detectedAt: now.toISOString(),
        routedAt: now.toISOString(),
        pane: pane.id,
        ...(ctx.panePid !== undefined ? { panePid: ctx.panePid } : {}),
        ...(options.session ? { session: options.session } : {}),
        ...over,
      };
      ctx.current().requests[record.id] = record;
      return record;
    },
    saved: () => readAgentState(paths, AGENT),
    archived(record) {
      const file = path.join(
        paths.archive,
        record.detectedAt.slice(0, 10),
        `${record.id}.json`,
      );
      if (!existsSync(file)) return undefined;
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    },
    createSteps() {
      // The deliveries called off, as the answers room would see them.
      const calledOff: string[] = [];
      const { callOff } = ctx.deliveries;
      ctx.deliveries.callOff = (id) => {
        calledOff.push(id);
        callOff(id);
      };
      const steps = createRequestSteps(ctx);
      return { steps, calledOff };
    },
    cleanup() {
      ctx.markStopped();
      // A write the test did not wait for (a state's lazy save, a reading
      // that ends after its capture) can add a file while it is removed.
      removeTestDir(home);
    },
  };
}

/** A stored answer, as answers.ts records one. */
export function storedResponse(
  instructions: string,
  source = 'outbox/x.txt',
): NonNullable<RequestRecord['response']> {
  return {
    instructions,
    notes: '',
    source,
    receivedAt: '2025-03-01T12:00:00.000Z',
    raw: instructions,
  };
}
