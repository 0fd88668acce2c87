/**
 * Pure: what the demo's scripted agents say. The worker works through a
 * small task and asks four requests of different types; the controller
 * answers each by its type; the worker acts on what the answer says.
 */

export type DemoRequestType = 'question' | 'approval' | 'review' | 'done';

export interface DemoStep {
  key: string;
  type: DemoRequestType;
  /** The busy line while the worker "works" before asking. */
  work: string;
  workMs: number;
  /** What the work produced, printed before the request. */
  progress: readonly string[];
  body: string;
}

export const DEMO_TASK = 'add a health-check endpoint to a small web service';

export const DEMO_STEPS: readonly DemoStep[] = [
  {
    key: 'q1',
    type: 'question',
    work: 'Reading the code',
    workMs: 1200,
    progress: [
      'read src/server.ts (84 lines)',
      'read src/routes.ts (41 lines)',
    ],
    body: [
      'Where should the health check live: /health or /api/health?',
      'Options: (a) /health  (b) /api/health',
      'I would pick (a): load balancers usually probe /health.',
    ].join('\n'),
  },
  {
    key: 'q2',
    type: 'approval',
    work: 'Writing the endpoint',
    workMs: 1500,
    progress: [
      'wrote src/health.ts (22 lines)',
      'the check needs a last_seen column in the instances table',
    ],
    body: [
      'May I run the database migration 0042_add_last_seen now?',
      'It adds one nullable column; it changes the schema of the dev database.',
    ].join('\n'),
  },
  {
    key: 'q3',
    type: 'review',
    work: 'Running the tests',
    workMs: 1200,
    progress: ['12 tests passed'],
    body: [
      'Please review: GET /health answers 200 {"status":"ok"} when the',
      'database answers, and 503 otherwise.',
      'Files: src/health.ts, src/routes.ts, test/health.test.ts',
    ].join('\n'),
  },
  {
    key: 'q4',
    type: 'done',
    work: 'Doing what the review asked',
    workMs: 1000,
    progress: ['13 tests passed'],
    body: [
      'Done: the endpoint, the migration and its tests are in place.',
      'Anything else, or shall I stop here?',
    ].join('\n'),
  },
];

/** The worker's own id for a step; the run id keeps ids new in every demo run. */
export function demoRequestId(runId: string, key: string): string {
  return `demo-${runId}-${key}`;
}

export function formatRequestBlock(
  id: string,
  type: string,
  body: string,
): string {
  return [
    `<<CONTROLLER_REQUEST id=${id} type=${type}>>`,
    body,
    '<<CONTROLLER_REQUEST_END>>',
  ].join('\n');
}

export interface DemoAnswer {
  instructions: string;
  notes: string;
}

/** The scripted controller's answer to a request, by its type. */
export function answerDemoRequest(request: {
  type: string;
  body: string;
}): DemoAnswer {
  switch (request.type) {
    case 'question':
      return {
        instructions:
          'Use /health (option a). Keep it outside /api so the load balancer needs no auth.',
        notes:
          'Scripted answer. A real controller would read the router before deciding.',
      };
    case 'approval':
      return {
        instructions:
          'Yes, run migration 0042_add_last_seen now, then run the tests again.',
        notes: 'Approved because the demo database is disposable.',
      };
    case 'review':
      return {
        instructions:
          'Looks good. Also add a test for the 503 answer when the database is down.',
        notes: 'The happy path was tested; the failure path was not.',
      };
    case 'done':
      return {
        instructions: 'Nothing more. Stop here and summarise what you did.',
        notes: 'The demo ends here.',
      };
    default:
      return {
        instructions: 'Carry on with your plan.',
        notes: `The demo controller has no script for requests of type '${request.type}'.`,
      };
  }
}

/** An answer as the file backend reads it (SPEC §2). */
export function formatAnswerText(answer: DemoAnswer): string {
  return `WORKER INSTRUCTIONS:\n${answer.instructions}\n\nNOTES:\n${answer.notes}\n`;
}

/** An answer as the interactive backend reads it from the controller's pane. */
export function formatResponseBlock(id: string, answer: DemoAnswer): string {
  return [
    `<<CONTROLLER_RESPONSE id=${id}>>`,
    formatAnswerText(answer).trimEnd(),
    '<<CONTROLLER_RESPONSE_END>>',
  ].join('\n');
}

const firstLine = (text: string) => text.trim().split('\n', 1)[0] ?? '';

/** What the worker does with an answer: one line per action. */
export function actOnAnswer(type: string, answer: string): string[] {
  const text = answer.trim();
  switch (type) {
    case 'question':
      if (/\/api\/health/.test(text))
        return ['the controller chose /api/health: mounting the route there'];
      if (/\/health\b/.test(text))
        return ['the controller chose /health: mounting the route at /health'];
      return [`following the answer: ${firstLine(text)}`];
    case 'approval':
      if (/\b(no|don't|do not|denied|deny|wait)\b/i.test(text))
        return [
          'not approved: leaving the schema alone, keeping last_seen in memory',
        ];
      if (/\b(yes|approved?|go ahead|proceed|run it)\b/i.test(text))
        return [
          'approved: running migration 0042_add_last_seen (simulated) ... ok',
          'running the tests again',
        ];
      return ['the answer is unclear: not running the migration'];
    case 'review':
      return /\b503\b/.test(text)
        ? ['review: adding a test for the 503 answer when the database is down']
        : [`review: ${firstLine(text)}`];
    case 'done':
      return /\b(nothing|stop|no more)\b/i.test(text)
        ? ['nothing more to do: stopping here']
        : [`next: ${firstLine(text)}`];
    default:
      return [`following the answer: ${firstLine(text)}`];
  }
}

/** What the demo worker writes when it has finished (read by `macs start --demo`). */
export interface DemoResult {
  runId: string;
  agent: string;
  startedAt: string;
  finishedAt: string;
  protocolReceived: boolean;
  requests: {
    id: string;
    type: string;
    asked: string;
    answer: string;
    did: string[];
  }[];
}
