import type {
  AgentSnapshot,
  EventSnapshot,
  RequestSnapshot,
  Snapshot,
} from '../../src/state/snapshot-schema.js';
import type {
  IntentResult,
  StatusIntents,
} from '../../src/operations/view-intents.js';

/** The fixed clock of the view tests: 2025-03-01 12:00:00 UTC. */
export const NOW = Date.parse('2025-03-01T12:00:00.000Z');
export const ago = (ms: number) => new Date(NOW - ms).toISOString();

export function makeAgent(over: Partial<AgentSnapshot> = {}): AgentSnapshot {
  return {
    name: 'worker-1',
    preset: 'claude',
    pane: '%3',
    state: 'idle',
    stateSource: 'screen',
    stateSince: ago(42_000),
    stateAgeMs: 42_000,
    paused: false,
    bridge: { running: true, pid: 4242 },
    counts: {
      pending: 0,
      waitingForPerson: 0,
      detected: 0,
      delivered: 0,
      duplicates: 0,
      malformed: 0,
    },
    lastRoundTripMs: null,
    lastResponse: null,
    hooks: null,
    exit: null,
    usage: null,
    updatedAt: ago(1000),
    ...over,
  };
}

export function makeRequest(
  over: Partial<RequestSnapshot> = {},
): RequestSnapshot {
  const body =
    over.body ??
    'Should I migrate the users table now or after the API change?\nOptions: (a) now (b) later';
  return {
    id: 'worker-1-q-17',
    agent: 'worker-1',
    workerId: 'q-17',
    type: 'question',
    priority: 'normal',
    stage: 'routed',
    backend: 'file',
    waitingForPerson: true,
    detectedAt: ago(125_000),
    ageMs: 125_000,
    firstLine: body.split('\n')[0] ?? '',
    body,
    attributes: { id: 'q-17' },
    context: null,
    answer: null,
    decision: null,
    waits: null,
    ...over,
  };
}

export function makeEvent(over: Partial<EventSnapshot> = {}): EventSnapshot {
  return {
    ts: ago(5000),
    agent: 'worker-1',
    type: 'state.changed',
    requestId: null,
    data: { from: 'working', to: 'idle', source: 'screen' },
    ...over,
  };
}

export function makeSnapshot(over: Partial<Snapshot> = {}): Snapshot {
  const agents = over.agents ?? [];
  const requests = over.requests ?? [];
  return {
    version: 1,
    generatedAt: new Date(NOW).toISOString(),
    home: '/work/proj',
    session: {
      status: 'running',
      id: '20250301-115000-ab12',
      since: ago(600_000),
    },
    totals: {
      agents: agents.length,
      pending: requests.length,
      waitingForPerson: requests.filter((r) => r.waitingForPerson).length,
      paused: agents.filter((a) => a.paused).length,
    },
    agents,
    requests,
    approvals: [],
    events: [],
    ...over,
  };
}

/** A snapshot source that tests can push new snapshots into. */
export function createFixedSource(initial: Snapshot) {
  let current = initial;
  const listeners = new Set<() => void>();
  return {
    current: () => current,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    push(next: Snapshot) {
      current = next;
      for (const l of listeners) l();
    },
  };
}

/** StatusIntents that record what the view asked for. */
export function recordingIntents(
  result: IntentResult = { ok: true, message: 'done' },
) {
  const calls: { intent: string; args: unknown[] }[] = [];
  const intents: StatusIntents = {
    answer: (...args) => {
      calls.push({ intent: 'answer', args });
      return Promise.resolve(result);
    },
    editAnswer: (...args) => {
      calls.push({ intent: 'editAnswer', args });
      return Promise.resolve(result);
    },
    setPaused: (...args) => {
      calls.push({ intent: 'setPaused', args });
      return Promise.resolve(result);
    },
    dismiss: (...args) => {
      calls.push({ intent: 'dismiss', args });
      return Promise.resolve(result);
    },
    jumpToPane: (...args) => {
      calls.push({ intent: 'jumpToPane', args });
      return Promise.resolve(result);
    },
  };
  return { intents, calls };
}
