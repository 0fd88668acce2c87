// Issue 13, part 1: `macs mcp` driven by the MCP SDK's own client over stdio,
// against a private tmux server, the fake agent and a real bridge.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { useTmuxHarness } from '../helpers/harness.js';
import {
  findEvents,
  loadedSources,
  MACS_BIN,
  REPO_ROOT,
  runMacs,
  readRecord,
  REQ,
  waitForEvents,
} from '../helpers/macs.js';
import { childEnv } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

describe('macs mcp: the controller tools over stdio (issue 13)', () => {
  const harness = useTmuxHarness({ gracefulStop: true });
  const clients: Client[] = [];
  const file = (name: string) => path.join(harness.home, name);

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  });

  /** `macs mcp` for the harness's home, as an MCP client starts it. */
  async function connect(): Promise<Client> {
    const env = childEnv({
      MACS_HOME: harness.home,
      MACS_TMUX_SOCKET: harness.server.socket,
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MACS_BIN, 'mcp'],
      env: Object.fromEntries(
        Object.entries(env).filter(
          (e): e is [string, string] => e[1] !== undefined,
        ),
      ),
      cwd: harness.home,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'macs-test', version: '0.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (
    client: Client,
    name: string,
    args: Record<string, unknown> = {},
    options: {
      signal?: AbortSignal;
      timeout?: number;
      onprogress?: () => void;
    } = {},
  ): Promise<ToolResult> =>
    (await client.callTool({ name, arguments: args }, undefined, {
      timeout: options.timeout ?? 120_000,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onprogress ? { onprogress: options.onprogress } : {}),
    })) as ToolResult;

  const text = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n');
  const submits = (record: string) =>
    readRecord(record)
      .filter((e) => e.type === 'submit')
      .map((e) => e.text ?? '');
  const mcpCalls = () => findEvents(harness.home, 'mcp.call');

  /** A fake worker under a bridge; it asks once `go` exists. */
  async function workerAsking(
    request: string,
    then: Record<string, unknown>[] = [{ wait: 'submit' }],
  ) {
    const { pane, record } = await harness.startWorker([
      { waitFile: file('go') },
      { print: request },
      ...then,
    ]);
    harness.startBridge(['--worker-pane', pane, '--agent', 'worker-1']);
    return { pane, record };
  }

  it('lists, waits for, reads and answers a request; the answer reaches the worker exactly once', async () => {
    const { pane, record } = await workerAsking(
      REQ('q1', 'Migrate the users table now?', ' type=question'),
    );
    const client = await connect();
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual([
      'answer_request',
      'decide_approval',
      'get_request',
      'list_agents',
      'list_requests',
      'read_screen',
      'send_message',
      'wait_for_request',
    ]);

    await waitFor(
      async () => text(await call(client, 'list_agents')).includes('worker-1'),
      { timeout: 20_000, message: 'the bridge supervises worker-1' },
    );
    const agents = await call(client, 'list_agents');
    expect(agents.isError).toBeFalsy();
    expect(agents.structuredContent?.agents).toEqual([
      expect.objectContaining({
        name: 'worker-1',
        pane,
        pendingRequests: [],
      }),
    ]);

    // Blocks until the worker asks.
    const waiting = call(client, 'wait_for_request', { timeout_sec: 60 });
    await waitForEvents(harness.home, 'bridge.started', { timeout: 20_000 });
    writeFileSync(file('go'), '');
    const arrived = await waiting;
    expect(arrived.isError).toBeFalsy();
    expect(arrived.structuredContent).toMatchObject({
      timedOut: false,
      request: {
        id: 'worker-1-q1',
        agent: 'worker-1',
        type: 'question',
        body: 'Migrate the users table now?',
      },
    });
    expect(text(arrived)).toContain('Migrate the users table now?');

    const listed = await call(client, 'list_requests', {
      agent: 'worker-1',
      type: 'question',
    });
    expect(listed.structuredContent?.requests).toEqual([
      expect.objectContaining({ id: 'worker-1-q1', waitingForAnswer: true }),
    ]);
    expect(
      (await call(client, 'list_requests', { type: 'approval' }))
        .structuredContent?.requests,
    ).toEqual([]);

    const got = await call(client, 'get_request', { id: 'worker-1-q1' });
    expect(got.structuredContent?.request).toMatchObject({
      id: 'worker-1-q1',
      body: 'Migrate the users table now?',
    });
    // The context packet follows the request into the inbox a moment later.
    const context = await waitFor(
      async () =>
        (
          (await call(client, 'get_request', { id: 'worker-1-q1' }))
            .structuredContent?.request as { context: unknown }
        ).context,
      { message: 'the context packet' },
    );
    expect(context).toMatchObject({
      requestId: 'worker-1-q1',
      agent: 'worker-1',
    });

    const screen = await call(client, 'read_screen', {
      agent: 'worker-1',
      lines: 10,
    });
    expect(screen.isError).toBeFalsy();
    expect(text(screen)).toContain('Migrate the users table now?');
    expect(
      (screen.structuredContent?.lines as string[]).length,
    ).toBeLessThanOrEqual(10);

    const answered = await call(client, 'answer_request', {
      id: 'worker-1-q1',
      instructions: 'Migrate after the API change.',
      notes: 'for the person only',
    });
    expect(answered.isError, text(answered)).toBeFalsy();
    await waitForEvents(harness.home, 'request.confirmed', {
      requestId: 'worker-1-q1',
      timeout: 30_000,
    });
    // A second answer to the same request is refused: it is not pending.
    const again = await call(client, 'answer_request', {
      id: 'worker-1-q1',
      instructions: 'Migrate now.',
    });
    expect(again.isError).toBe(true);
    expect(text(again)).toMatch(
      /no pending request 'worker-1-q1': the request of worker-1 is finished/,
    );
    expect(submits(record)).toEqual(['Migrate after the API change.']);
    expect(
      findEvents(harness.home, 'request.delivered', 'worker-1-q1'),
    ).toHaveLength(1);

    // Every call is recorded, by mcp, with the agent it was about.
    const calls = mcpCalls();
    expect(calls.every((e) => e.data?.by === 'mcp')).toBe(true);
    // (get_request was called until the context came: repeats folded.)
    const about = calls
      .filter((e) => e.requestId === 'worker-1-q1')
      .map((e) => [e.agent, e.data?.tool, e.data?.ok])
      .filter(
        (c, i, all) =>
          i === 0 || JSON.stringify(c) !== JSON.stringify(all[i - 1]),
      );
    expect(about).toEqual([
      ['worker-1', 'wait_for_request', true],
      ['worker-1', 'get_request', true],
      ['worker-1', 'answer_request', true],
      ['worker-1', 'answer_request', false],
    ]);
  });

  it('an answer already waiting is not replaced; decide_approval answers only approvals', async () => {
    const { record } = await workerAsking(
      REQ('a1', 'May I drop the cache table?', ' type=approval') +
        REQ('q2', 'Which branch?', ' type=question'),
      [{ wait: 'submit' }, { wait: 'submit' }],
    );
    writeFileSync(file('go'), '');
    const client = await connect();
    await waitFor(
      async () =>
        (
          (await call(client, 'list_requests')).structuredContent
            ?.requests as unknown[]
        ).length === 2,
      { timeout: 30_000, message: 'both requests pending' },
    );

    const wrong = await call(client, 'decide_approval', {
      id: 'worker-1-q2',
      decision: 'allow',
      reason: 'fine',
    });
    expect(wrong.isError).toBe(true);
    expect(text(wrong)).toMatch(/not an approval/);

    const decided = await call(client, 'decide_approval', {
      id: 'worker-1-a1',
      decision: 'deny',
      reason: 'the cache table is shared with staging',
    });
    expect(decided.isError, text(decided)).toBeFalsy();
    await waitForEvents(harness.home, 'request.confirmed', {
      requestId: 'worker-1-a1',
      timeout: 30_000,
    });
    expect(submits(record)).toEqual([
      'deny: the cache table is shared with staging',
    ]);
    // Who decided: the controller, through its tool call (a person's
    // `macs respond` would say person).
    const answered = findEvents(harness.home, 'request.answered').find(
      (e) => e.requestId === 'worker-1-a1',
    );
    expect(answered?.data).toMatchObject({
      by: 'mcp:decide_approval',
      decidedBy: 'controller',
      via: 'mcp:decide_approval',
    });
    const status = await runMacs(['status', '--json'], {
      home: harness.home,
      socket: harness.server.socket,
    });
    expect(
      (JSON.parse(status.stdout) as { approvals: unknown[] }).approvals,
    ).toContainEqual(
      expect.objectContaining({
        id: 'worker-1-a1',
        decision: 'deny',
        decidedBy: 'controller',
        via: 'mcp:decide_approval',
      }),
    );

    // Delivery held: the answer waits, and a second one is refused.
    const paused = await runMacs(['pause', 'worker-1'], {
      home: harness.home,
      socket: harness.server.socket,
    });
    expect(paused.exitCode, paused.stderr).toBe(0);
    const first = await call(client, 'answer_request', {
      id: 'worker-1-q2',
      instructions: 'Use main.',
    });
    expect(first.isError, text(first)).toBeFalsy();
    await waitFor(
      async () =>
        (
          (await call(client, 'get_request', { id: 'worker-1-q2' }))
            .structuredContent?.request as { answer: unknown }
        ).answer,
      { timeout: 20_000, message: 'the bridge took the answer' },
    );
    const second = await call(client, 'answer_request', {
      id: 'worker-1-q2',
      instructions: 'Use develop.',
    });
    expect(second.isError).toBe(true);
    expect(text(second)).toMatch(/already answered/);
    const resumed = await runMacs(['resume', 'worker-1'], {
      home: harness.home,
      socket: harness.server.socket,
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    await waitForEvents(harness.home, 'request.confirmed', {
      requestId: 'worker-1-q2',
      timeout: 30_000,
    });
    expect(submits(record)).toEqual([
      'deny: the cache table is shared with staging',
      'Use main.',
    ]);

    const unknown = await call(client, 'get_request', { id: 'worker-1-nope' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(
      /no pending request 'worker-1-nope': no agent of this home made it/,
    );

    // Bad input: the SDK's schema check, reported as a tool error.
    const bad = await call(client, 'read_screen', {
      agent: 'worker-1',
      lines: -3,
    });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/lines/);
    const missing = await call(client, 'answer_request', { id: 'worker-1-q2' });
    expect(missing.isError).toBe(true);
    // Refused by the SDK before any tool ran, and still recorded.
    await waitFor(
      () =>
        mcpCalls().filter(
          (e) =>
            e.agent === 'mcp' &&
            e.data?.ok === false &&
            ['read_screen', 'answer_request'].includes(String(e.data?.tool)),
        ).length === 2,
      { message: 'the refused calls are recorded' },
    );
    expect(submits(record)).toHaveLength(2);
  });

  it('send_message types into an idle worker once, and refuses a dead one', async () => {
    const { pane, record } = await harness.startWorker([{ wait: 'submit' }]);
    await harness.tagAgent(pane, 'worker-2');
    const dead = await harness.server.spawnPane(['sh', '-c', 'exit 3']);
    await harness.tagAgent(dead, 'worker-3');
    await waitFor(
      async () =>
        (
          await harness.server.tmux('display', '-p', '-t', dead, '#{pane_dead}')
        ).trim() === '1',
      { message: 'worker-3 exited' },
    );
    await waitFor(
      async () =>
        (await harness.server.capture(pane)).includes('fake-agent ready'),
      { message: 'worker-2 ready' },
    );
    const client = await connect();
    const sent = await call(client, 'send_message', {
      agent: 'worker-2',
      text: 'Run the tests again.',
      timeout_sec: 60,
    });
    expect(sent.isError, text(sent)).toBeFalsy();
    expect(sent.structuredContent).toMatchObject({
      agent: 'worker-2',
      confirmed: true,
    });
    expect(submits(record)).toEqual(['Run the tests again.']);

    const refused = await call(client, 'send_message', {
      agent: 'worker-3',
      text: 'hello?',
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/has exited/);
    const nobody = await call(client, 'send_message', {
      agent: 'worker-9',
      text: 'hello?',
    });
    expect(nobody.isError).toBe(true);
    expect(text(nobody)).toMatch(/unknown agent 'worker-9'/);
    expect(
      mcpCalls()
        .filter((e) => e.data?.tool === 'send_message')
        .map((e) => [e.agent, e.data?.ok])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      // A name the home has no record of (worker-3 is only a tagged pane,
      // worker-9 nothing) gets no events file (issue 25, point 7).
      ['mcp', false],
      ['mcp', false],
      ['worker-2', true],
    ]);
    expect(findEvents(harness.home, 'send.delivered')).toHaveLength(1);
  });

  it('other commands do not load the MCP SDK', async () => {
    const trace = file('imports.txt');
    const run = await runMacs(['inbox', '--json'], {
      home: harness.home,
      socket: harness.server.socket,
      env: {
        NODE_OPTIONS: `--import=${path.join(REPO_ROOT, 'test', 'fixtures', 'trace-imports.mjs')}`,
        MACS_TRACE_IMPORTS: trace,
      },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const loaded = loadedSources(readFileSync(trace, 'utf8'));
    expect(loaded).toContain('src/cli/inbox.ts');
    expect(loaded.join('\n')).not.toContain('@modelcontextprotocol');
    expect(loaded.join('\n')).not.toMatch(/^src\/mcp\//m);
  });

  it('wait_for_request times out cleanly and stops when the client cancels', async () => {
    const client = await connect();
    const empty = await call(client, 'wait_for_request', { timeout_sec: 1 });
    expect(empty.isError).toBeFalsy();
    expect(empty.structuredContent).toEqual({ request: null, timedOut: true });

    // The server says (progress) that it is waiting; then the client cancels.
    const cancel = new AbortController();
    let waitingSaid = false;
    const pending = call(
      client,
      'wait_for_request',
      { timeout_sec: 600 },
      { signal: cancel.signal, onprogress: () => (waitingSaid = true) },
    );
    pending.catch(() => undefined);
    await waitFor(() => waitingSaid, { message: 'progress: waiting' });
    cancel.abort('the test cancels');
    await expect(pending).rejects.toThrow();
    await waitFor(
      () =>
        mcpCalls().find(
          (e) =>
            e.data?.tool === 'wait_for_request' &&
            e.data?.ok === false &&
            String(e.data?.error).includes('cancelled'),
        ),
      { timeout: 10_000, message: 'the cancelled call is recorded' },
    );
    // The server still answers after the cancellation.
    const after = await call(client, 'list_requests');
    expect(after.isError).toBeFalsy();
    expect(text(after)).toBe('no pending requests');
  });

  it('wait_for_request returns a notice when a budget pauses a worker, once per pause (issue 24 point 1)', async () => {
    // Issue 24 point 1: at 100% of a budget the controller was only able
    // to read that the worker is paused (list_agents, a usage.budget
    // event); the call it waits on went on waiting. Strategy: a fake worker
    // under the codex preset with a 1000-token budget; the test writes the
    // Codex rollout record the bridge reads usage from (1500 tokens) while
    // a wait_for_request runs, which must return with the notice; a second
    // call does not repeat it, and a new server (a controller that was busy
    // when the pause came) hears it at once. (That a paused agent's answers
    // wait, never typed, is the pause's own test: bridge/usage/budget.test.ts
    // and the pause tests.)
    writeFileSync(
      file('macs.config.json'),
      JSON.stringify({
        workers: [
          { name: 'worker-1', preset: 'codex', budget: { tokens: 1000 } },
        ],
      }),
    );
    const { record } = await workerAsking(
      REQ('b1', 'Which table first?', ' type=question'),
    );
    const client = await connect();
    await waitForEvents(harness.home, 'bridge.started', { timeout: 20_000 });
    const waiting = call(client, 'wait_for_request', { timeout_sec: 60 });
    const day = path.join(
      harness.home,
      '.macs',
      'codex',
      'worker-1',
      'sessions',
      '2026',
      '11',
      '27',
    );
    mkdirSync(day, { recursive: true });
    writeFileSync(
      path.join(day, 'rollout-2026-11-27T10-00-00-budget.jsonl'),
      [
        { type: 'turn_context', payload: { model: 'gpt-5' } },
        {
          type: 'token_usage_record',
          timestamp: new Date().toISOString(),
          payload: {
            response_id: 'resp-1',
            usage: { input_tokens: 1200, output_tokens: 300 },
          },
        },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const told = await waiting;
    expect(told.isError, text(told)).toBeFalsy();
    expect(told.structuredContent).toMatchObject({
      request: null,
      timedOut: false,
      notice: {
        notice: 'budget',
        agent: 'worker-1',
        scope: 'agent',
        percent: 100,
        paused: true,
        spentTokens: 1500,
        budget: { tokens: 1000 },
      },
    });
    expect(text(told)).toContain('worker-1 was paused by its budget');

    // Told once: the next call waits for a request, which comes.
    const next = call(client, 'wait_for_request', { timeout_sec: 60 });
    writeFileSync(file('go'), '');
    const asked = await next;
    expect(asked.structuredContent).toMatchObject({
      request: { id: 'worker-1-b1' },
    });
    // A controller that was not waiting when the pause came hears it at
    // its next call (a new server: what it has told is its own).
    const other = await connect();
    const late = await call(other, 'wait_for_request', {
      timeout_sec: 30,
      agent: 'worker-1',
    });
    expect(late.structuredContent).toMatchObject({
      notice: { notice: 'budget', agent: 'worker-1' },
    });

    expect(submits(record)).toEqual([]);
  });
});
