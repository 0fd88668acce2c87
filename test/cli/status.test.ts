import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  buildAnswerTemplate,
  editorCommand,
  readEditedAnswer,
} from '../../src/operations/answer-template.js';
import type { RunEditor } from '../../src/backends/editor.js';
import { createMemoryOutput } from '../../src/cli/output.js';
import { buildProgram } from '../../src/cli/program.js';
import { createContext } from '../../src/cli/common.js';
import type { CliDeps } from '../../src/cli/options.js';
import { runStatus } from '../../src/cli/status.js';
import { formatStatusText } from '../../src/ui/status-text.js';
import type { StatusTerminal } from '../../src/cli/types.js';
import { createStatusIntents } from '../../src/operations/status-intents.js';
import { createAttentionBell } from '../../src/ui/attention-bell.js';
import { readEvents } from '../../src/events/log.js';
import { isDeliveryPaused } from '../../src/state/person-controls.js';
import { writeSessionRecord } from '../../src/session/record.js';
import {
  AnswerSnapshotSchema,
  SnapshotSchema,
  type EventSnapshot,
} from '../../src/state/snapshot-schema.js';
import type { RunTmux } from '../../src/tmux/run.js';
import { REPO_ROOT } from '../helpers/macs.js';
import { waitFor } from '../helpers/wait-for.js';
import { createHomeFixture, makeRecord } from '../state/home-fixture.js';
import { makeRequest, makeSnapshot } from '../ui/fixtures.js';

function makeDeps(home: string, env: NodeJS.ProcessEnv = {}) {
  const output = createMemoryOutput();
  const runTmux: RunTmux = () =>
    Promise.resolve({ exitCode: 1, stdout: '', stderr: 'no server running' });
  const deps: CliDeps = {
    output,
    env,
    cwd: home,
    runTmux,
    readStdin: () => Promise.resolve(''),
    stdinIsTTY: false,
    interrupted: new Promise(() => undefined),
  };
  return { deps, output };
}

const noTerminal = { interactive: false } as StatusTerminal;

/** Every field path of a zod schema; the answer object is listed once as `<answer>.…`. */
function schemaPaths(
  schema: z.ZodType,
  prefix: string,
  out: Set<string>,
): void {
  if (schema === AnswerSnapshotSchema && prefix !== '<answer>') {
    schemaPaths(schema, '<answer>', out);
    return;
  }
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) {
    schemaPaths(schema.unwrap() as z.ZodType, prefix, out);
    return;
  }
  if (schema instanceof z.ZodArray) {
    schemaPaths(schema.element as z.ZodType, `${prefix}[]`, out);
    return;
  }
  if (schema instanceof z.ZodObject) {
    for (const [key, value] of Object.entries(schema.shape)) {
      const at = prefix ? `${prefix}.${key}` : key;
      out.add(at);
      schemaPaths(value as z.ZodType, at, out);
    }
  }
}

describe('macs status --json', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  it('prints one snapshot that validates against the documented schema', async () => {
    await fx.writeState('worker-1', (s) => {
      s.pane = '%3';
      s.requests['worker-1-q-17'] = makeRecord();
    });
    fx.writeInboxMeta('worker-1-q-17', { context: { branch: 'main' } });
    const { deps, output } = makeDeps(fx.home);
    const code = await buildProgram(deps).run([
      'status',
      '--json',
      '--home',
      fx.home,
    ]);
    expect(code).toBe(0);
    expect(output.stdout).toHaveLength(1);
    const parsed = SnapshotSchema.safeParse(JSON.parse(output.stdout[0] ?? ''));
    expect(parsed.error).toBeUndefined();
    expect(parsed.data?.requests[0]).toMatchObject({
      id: 'worker-1-q-17',
      waitingForPerson: true,
      context: { branch: 'main' },
    });
  });

  it('docs/status.md lists every field of the schema', () => {
    const docs = readFileSync(
      path.join(REPO_ROOT, 'docs', 'status.md'),
      'utf8',
    );
    const fields = new Set<string>();
    schemaPaths(SnapshotSchema, '', fields);
    expect(fields.size).toBeGreaterThan(50);
    const documented = new Set(
      [...docs.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1]),
    );
    const missing = [...fields].filter((f) => !documented.has(f));
    expect(missing).toEqual([]);
  });

  it('the plain-text summary lists requests refused for their size (issue 25, point 5)', () => {
    const text = formatStatusText(
      makeSnapshot({
        refused: [
          {
            agent: 'worker-1',
            reason: 'max-lines',
            at: new Date(Date.now() - 5_000).toISOString(),
            firstLine: '<<CONTROLLER_REQUEST id=big>>',
            lines: 501,
            bytes: 2000,
            message: null,
          },
        ],
      }),
      Date.now(),
    ).join('\n');
    expect(text).toMatch(
      /refused, never raised \(the worker gets no answer; tell it with macs send\):\n<?\d*[smh] {2}worker-1 {2}too many lines {2}<<CONTROLLER_REQUEST id=big>>/,
    );
  });

  it('the plain-text summary lists incomplete requests with what the worker must do (issue 29)', () => {
    // A block without its end marker was shown nowhere; now the state keeps
    // it (bridge/intake/incomplete-watch.ts) and the summary lists it.
    const text = formatStatusText(
      makeSnapshot({
        incomplete: [
          {
            agent: 'worker-1',
            since: new Date(Date.now() - 5_000).toISOString(),
            reason: 'quiet',
            firstLine: '<<CONTROLLER_REQUEST id=x>>',
            head: ['Which port should I use?'],
            lines: 1,
            requestId: 'worker-1-x',
            message: 'worker-1 printed a request without its end marker',
          },
        ],
      }),
      Date.now(),
    ).join('\n');
    expect(text).toContain(
      'incomplete, not raised yet (no end marker; the worker must print the line <<CONTROLLER_REQUEST_END>>, or ask again with a complete block):',
    );
    expect(text).toMatch(
      /<?\d*[smh] {2}worker-1 {2}incomplete {2}will be worker-1-x {2}Which port should I use\?/,
    );
  });

  it('without a terminal prints a plain-text summary', async () => {
    await fx.writeState('worker-1', (s) => {
      s.pane = '%3';
      s.state = 'approval';
      s.requests['worker-1-q-17'] = makeRecord();
    });
    const { deps, output } = makeDeps(fx.home);
    expect(
      await runStatus({ home: fx.home }, deps, { terminal: noTerminal }),
    ).toBe(0);
    const text = output.stdout.join('\n');
    expect(text).toContain('1 agent · 1 pending (1 waiting for you)');
    expect(text).toMatch(/worker-1\s+claude\s+approval/);
    expect(text).toMatch(
      /\*\s+\S+\s+worker-1\s+question\s+needs you\s+worker-1-q-17\s+Should I migrate now\?/,
    );
    expect(text).toContain('macs respond <id>');
  });
});

describe('macs status --watch without a terminal', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  it('prints again on each change until interrupted (--json: one compact snapshot a line)', async () => {
    const { deps, output } = makeDeps(fx.home);
    let interrupt: (signal: 'SIGINT') => void = () => undefined;
    deps.interrupted = new Promise((resolve) => (interrupt = resolve));
    const running = runStatus(
      { home: fx.home, json: true, watch: true },
      deps,
      {
        terminal: noTerminal,
      },
    );
    await waitFor(() => output.stdout.length === 1, {
      message: 'first snapshot',
    });
    await fx.writeState('worker-1');
    await waitFor(() => output.stdout.length === 2, {
      message: 'second snapshot',
    });
    interrupt('SIGINT');
    expect(await running).toBe(130);
    const lines = output.stdout.map((l) => SnapshotSchema.parse(JSON.parse(l)));
    expect(lines.map((s) => s.totals.agents)).toEqual([0, 1]);
    expect(output.stdout[1]).not.toContain('\n');
  });
});

describe('the view intents', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  function intents(
    runEditor: RunEditor = () => ({ exitCode: 0 }),
    env = {},
    tmux: { socket?: string; run?: RunTmux } = {},
  ) {
    const { deps } = makeDeps(fx.home, env);
    if (tmux.run) deps.runTmux = tmux.run;
    let refreshed = 0;
    const ctx = createContext(
      { home: fx.home, logLevel: 'silent', tmuxSocket: tmux.socket },
      deps,
    );
    const made = createStatusIntents({
      ctx,
      env,
      feed: {
        refresh: () => {
          refreshed += 1;
          return Promise.resolve();
        },
      },
      runEditor,
      tmuxSocket: tmux.socket,
      runTmux: deps.runTmux,
    });
    return { intents: made, refreshed: () => refreshed };
  }

  // Regression (issue 25, point 7): `a` in the view ran tmux on the default
  // server when no --tmux-socket was given, although the session's server
  // is in .macs/session.json, so it failed. Strategy: record every tmux
  // argv and check which server each one names.
  it('jumpToPane runs tmux on the session server of .macs/session.json, or on --tmux-socket', async () => {
    const servers: (string | undefined)[] = [];
    const run: RunTmux = (args) => {
      servers.push(args[0] === '-L' ? args[1] : undefined);
      return Promise.resolve({ exitCode: 1, stdout: '', stderr: 'no pane' });
    };
    await writeSessionRecord(fx.paths, {
      version: 1,
      home: fx.home,
      socket: 'macs-session-socket',
      session: 'macs',
      createdAt: new Date().toISOString(),
      backend: 'file',
      panes: { bridge: '%1', status: '%2' },
      agents: [],
    });
    await intents(undefined, {}, { run }).intents.jumpToPane('worker-1', '%3');
    expect(servers.length).toBeGreaterThan(0);
    expect(new Set(servers)).toEqual(new Set(['macs-session-socket']));
    servers.length = 0;
    await intents(
      undefined,
      {},
      { run, socket: 'macs-flag' },
    ).intents.jumpToPane('worker-1', '%3');
    expect(new Set(servers)).toEqual(new Set(['macs-flag']));
  });

  it('answer writes outbox/<id>.txt for a pending request and refreshes the view', async () => {
    fx.writeInboxMeta('worker-1-q-17', { id: 'worker-1-q-17' });
    const { intents: i, refreshed } = intents();
    expect(await i.answer('worker-1-q-17', 'line 1\nline 2')).toEqual({
      ok: true,
      message: expect.stringContaining(
        'answered worker-1-q-17 (13 chars) -> outbox/worker-1-q-17.txt',
      ),
    });
    expect(
      readFileSync(path.join(fx.paths.outbox, 'worker-1-q-17.txt'), 'utf8'),
    ).toBe('line 1\nline 2\n');
    expect(refreshed()).toBe(1);
    expect(await i.answer('worker-1-q-17', 'again')).toMatchObject({
      ok: false,
    });
    expect(await i.answer('worker-1-gone', 'x')).toEqual({
      ok: false,
      message: 'worker-1-gone is no longer pending',
    });
  });

  it('setPaused writes and removes the control file and records the decision', async () => {
    const { intents: i } = intents();
    expect(await i.setPaused('worker-1', true)).toMatchObject({
      ok: true,
      message: expect.stringContaining('paused'),
    });
    expect(isDeliveryPaused(fx.paths, 'worker-1')).toBe(true);
    expect(await i.setPaused('worker-1', false)).toMatchObject({
      ok: true,
      message: 'delivery to worker-1 resumed',
    });
    expect(isDeliveryPaused(fx.paths, 'worker-1')).toBe(false);
    expect(
      (await readEvents(fx.paths, { agent: 'worker-1' })).map((e) => [
        e.type,
        e.data,
      ]),
    ).toEqual([
      ['delivery.paused', { by: 'macs status' }],
      ['delivery.resumed', { by: 'macs status' }],
    ]);
  });

  it('editAnswer runs $EDITOR on a private temp file and writes what was saved', async () => {
    fx.writeInboxMeta('worker-1-q-17', { id: 'worker-1-q-17' });
    let seen: readonly string[] = [];
    const { intents: i } = intents(
      (argv) => {
        seen = argv;
        const file = argv.at(-1) ?? '';
        const template = readFileSync(file, 'utf8');
        writeFileSync(
          file,
          template
            .replace(
              'WORKER INSTRUCTIONS:\n',
              'WORKER INSTRUCTIONS:\nGo ahead.\n',
            )
            .replace('NOTES:\n', 'NOTES:\n# a markdown heading stays\n'),
        );
        return { exitCode: 0 };
      },
      { EDITOR: 'myedit --wait' },
    );
    const result = await i.editAnswer(makeRequest());
    expect(result.ok).toBe(true);
    expect(seen.slice(0, 2)).toEqual(['myedit', '--wait']);
    expect(existsSync(seen.at(-1) ?? '')).toBe(false); // the temp file is gone
    expect(
      readFileSync(path.join(fx.paths.outbox, 'worker-1-q-17.txt'), 'utf8'),
    ).toBe(
      'WORKER INSTRUCTIONS:\nGo ahead.\n\n\nNOTES:\n# a markdown heading stays\n',
    );
  });

  it('editAnswer sends nothing when the template is left empty or the editor fails', async () => {
    fx.writeInboxMeta('worker-1-q-17', { id: 'worker-1-q-17' });
    const untouched = intents(() => ({ exitCode: 0 }));
    expect(await untouched.intents.editAnswer(makeRequest())).toEqual({
      ok: true,
      message: 'nothing written; worker-1-q-17 not answered',
    });
    const failing = intents(
      () => ({ exitCode: null, error: 'spawn nope ENOENT' }),
      { EDITOR: 'nope' },
    );
    expect(await failing.intents.editAnswer(makeRequest())).toMatchObject({
      ok: false,
      message: expect.stringContaining(
        "editor 'nope' failed (spawn nope ENOENT)",
      ),
    });
    expect(existsSync(path.join(fx.paths.outbox, 'worker-1-q-17.txt'))).toBe(
      false,
    );
  });
});

describe('the answer template', () => {
  it('quotes the request as #| lines that are removed again', () => {
    const template = buildAnswerTemplate(makeRequest());
    expect(template).toContain('#|   Should I migrate the users table');
    expect(readEditedAnswer(template)).toBeUndefined();
    expect(readEditedAnswer(`${template}\nplain text`)).toBe(
      'WORKER INSTRUCTIONS:\n\n\nNOTES:\n\nplain text\n',
    );
    expect(readEditedAnswer('just do it')).toBe('just do it\n');
  });

  it.each([
    [{ VISUAL: 'code -w', EDITOR: 'nano' }, ['code', '-w']],
    [{ EDITOR: ' nano ' }, ['nano']],
    [{}, ['vi']],
  ])('editor from %o is %o', (env, argv) => {
    expect(editorCommand(env)).toEqual(argv);
  });
});

describe('attention in the status view', () => {
  const event = (over: Partial<EventSnapshot> = {}): EventSnapshot => ({
    ts: '2025-03-01T12:00:05.000Z',
    agent: 'worker-1',
    type: 'attention',
    requestId: 'worker-1-q-17',
    data: { reason: 'waiting-for-person' },
    ...over,
  });

  function bell(config = { bell: true }) {
    const rings: number[] = [];
    const b = createAttentionBell({
      config: { tmuxMessage: true, notifyTimeoutSec: 10, ...config },
      ringBell: () => rings.push(1),
      since: new Date('2025-03-01T12:00:00.000Z'),
    });
    return { b, rings };
  }

  it('rings once for each batch of new attention events the bridge raised, never twice for one', () => {
    const { b, rings } = bell();
    b.check(makeSnapshot({ events: [event()] }));
    b.check(makeSnapshot({ events: [event()] }));
    expect(rings).toHaveLength(1);
    b.check(
      makeSnapshot({
        events: [
          event(),
          event({ ts: '2025-03-01T12:00:09.000Z', requestId: 'worker-1-q-18' }),
          event({
            ts: '2025-03-01T12:00:09.000Z',
            requestId: null,
            data: { reason: 'dead' },
          }),
        ],
      }),
    );
    expect(rings).toHaveLength(2);
  });

  it('stays quiet about calls from before it started, other events, and with bell off', () => {
    const { b, rings } = bell();
    b.check(
      makeSnapshot({
        events: [
          event({ ts: '2025-03-01T11:59:59.000Z' }),
          event({ type: 'request.detected' }),
        ],
      }),
    );
    expect(rings).toEqual([]);
    const off = bell({ bell: false });
    off.b.check(makeSnapshot({ events: [event()] }));
    expect(off.rings).toEqual([]);
  });
});
