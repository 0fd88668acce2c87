import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerReadTools } from '../../src/mcp/read-tools.js';
import { writeSessionRecord } from '../../src/session/record.js';
import { createHomeFixture, makeRecord } from '../state/home-fixture.js';
import { connectTools, makeToolContext, textOf } from './harness.js';

// The tools that only look: the status snapshot and a pane's screen.
describe('read tools', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  let context: ReturnType<typeof makeToolContext>;
  let conn: Awaited<ReturnType<typeof connectTools>>;
  beforeEach(async () => {
    fx = createHomeFixture();
    context = makeToolContext(fx);
    conn = await connectTools(fx, (tool) => registerReadTools(tool, context));
  });
  afterEach(async () => {
    await conn.close();
    fx.cleanup();
  });

  /** worker-1 (pane %3) with one request waiting in the inbox, worker-2 idle. */
  async function twoWorkers(): Promise<void> {
    await fx.writeState('worker-1', (s) => {
      s.pane = '%3';
      s.state = 'working';
      s.stateSource = 'hook';
      s.requests['worker-1-q-17'] = makeRecord();
      s.requests['worker-1-a-1'] = makeRecord({
        id: 'worker-1-a-1',
        workerId: 'a-1',
        type: 'approval',
        body: 'May I push?',
      });
    });
    fx.writeInboxMeta('worker-1-q-17', {
      id: 'worker-1-q-17',
      context: { branch: 'main' },
    });
    await fx.writeState('worker-2', (s) => {
      s.pane = '%4';
      s.state = 'idle';
    });
  }

  it('list_agents: none yet, then each agent with its pending requests', async () => {
    const none = await conn.call('list_agents');
    expect(textOf(none)).toBe(
      'no agents yet (no bridge has supervised any in this home)',
    );
    expect(none.structuredContent).toEqual({
      session: 'none',
      now: expect.any(String),
      agents: [],
    });

    await twoWorkers();
    const listed = await conn.call('list_agents');
    expect(listed.structuredContent?.agents).toEqual([
      expect.objectContaining({
        name: 'worker-1',
        pane: '%3',
        state: 'working',
        pendingRequests: expect.arrayContaining([
          'worker-1-q-17',
          'worker-1-a-1',
        ]) as unknown,
      }),
      expect.objectContaining({
        name: 'worker-2',
        pane: '%4',
        pendingRequests: [],
      }),
    ]);
    expect(textOf(listed).split('\n')).toHaveLength(2);
    expect(textOf(listed)).toMatch(/^worker-2 {2}preset=claude state=idle/m);
    expect((await conn.calls()).at(-1)?.data).toMatchObject({
      tool: 'list_agents',
      count: 2,
    });
  });

  it('list_requests: every pending request, or those of one agent, stage or type', async () => {
    expect(textOf(await conn.call('list_requests'))).toBe(
      'no pending requests',
    );
    await twoWorkers();
    const all = await conn.call('list_requests');
    expect(
      (all.structuredContent?.requests as { id: string }[])
        .map((r) => r.id)
        .sort(),
    ).toEqual(['worker-1-a-1', 'worker-1-q-17']);
    const approvals = await conn.call('list_requests', { type: 'approval' });
    expect(textOf(approvals)).toMatch(
      /^worker-1-a-1 {2}agent=worker-1 type=approval stage=routed/,
    );
    expect(
      textOf(await conn.call('list_requests', { agent: 'worker-2' })),
    ).toBe('no pending requests');
    expect(
      textOf(await conn.call('list_requests', { stage: 'delivering' })),
    ).toBe('no pending requests');
    // A call about one agent is filed under it.
    expect((await conn.calls()).filter((e) => e.agent === 'worker-2')).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ tool: 'list_requests', count: 0 }),
      }),
    ]);
  });

  it('get_request: a request in full with its context, or why there is none', async () => {
    await twoWorkers();
    const got = await conn.call('get_request', { id: 'worker-1-q-17' });
    expect(got.structuredContent?.request).toMatchObject({
      id: 'worker-1-q-17',
      body: 'Should I migrate now?\nOptions: (a) now (b) later',
      context: { branch: 'main' },
      waitingForAnswer: true,
    });
    expect(textOf(got)).toMatch(/^request worker-1-q-17 from worker-1/);
    const missing = await conn.call('get_request', { id: 'worker-1-q-99' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/no pending request 'worker-1-q-99'/);
  });

  it("read_screen: the pane's last lines, sanitized, without the blank bottom", async () => {
    await twoWorkers();
    context.fakeTmux.addPane({
      id: '%3',
      height: 5,
      screen: 'one\ntwo \x1b[31mred\x1b[0m\nthree   \n\n\n',
    });
    const shown = await conn.call('read_screen', {
      agent: 'worker-1',
      lines: 2,
    });
    expect(textOf(shown)).toBe('two red\nthree');
    expect(shown.structuredContent).toEqual({
      agent: 'worker-1',
      pane: '%3',
      dead: false,
      width: 80,
      height: 5,
      lines: ['two red', 'three'],
    });
    expect((await conn.calls()).at(-1)).toMatchObject({
      agent: 'worker-1',
      data: { tool: 'read_screen', pane: '%3', lines: 2 },
    });
  });

  it('read_screen: finds a pane in the session record, and says when an agent or its pane is gone', async () => {
    await writeSessionRecord(fx.paths, {
      version: 1,
      home: fx.home,
      socket: 'macs-test',
      session: 'macs',
      createdAt: '2025-03-01T11:00:00.000Z',
      backend: 'file',
      panes: { bridge: '%0', status: '%1' },
      agents: [
        {
          name: 'controller',
          role: 'controller',
          preset: 'claude',
          pane: '%2',
          command: ['claude'],
          cwd: fx.home,
        },
      ],
    });
    context.fakeTmux.addPane({ id: '%2', screen: 'hello\n' });
    expect(
      textOf(await conn.call('read_screen', { agent: 'controller' })),
    ).toBe('hello');

    const unknown = await conn.call('read_screen', { agent: 'worker-9' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe(
      "unknown agent 'worker-9'; list_agents shows the agents",
    );
    // Issue 25, point 7: a call naming an unknown agent made
    // events/worker-9.jsonl; it is filed under `mcp`, the name kept as data.
    expect(existsSync(path.join(fx.paths.events, 'worker-9.jsonl'))).toBe(
      false,
    );
    expect(
      readFileSync(path.join(fx.paths.events, 'mcp.jsonl'), 'utf8'),
    ).toContain('"agent":"worker-9"');
    await twoWorkers();
    const gone = await conn.call('read_screen', { agent: 'worker-2' });
    expect(textOf(gone)).toBe(
      "agent 'worker-2' has no pane any more (%4 is gone)",
    );
  });
});
