// Approvals from screens (issue 13, part 3): a permission dialog on a
// worker's screen becomes one type=approval request; a decision is applied
// with the preset's keys (Enter, Escape) only on a fresh look at the same
// dialog, never typed; a dialog that changed or left is never answered.
// The fake agent draws Codex's approval modal; the bridge reads it with the
// codex preset.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  MACS_BIN,
  findEvents,
  readRecord,
  runMacs,
  waitForEvents,
  type MacsEvent,
} from '../helpers/macs.js';
import { useTmuxHarness } from '../helpers/harness.js';
import { childEnv, type TestTmuxServer } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';

const AGENT = 'w-1';

describe('approvals from screen dialogs', () => {
  const harness = useTmuxHarness();
  let server: TestTmuxServer;
  let home: string;
  beforeEach(() => ({ server, home } = harness));

  const file = (name: string) => path.join(home, name);

  async function startDialog(dialog: Record<string, unknown>): Promise<{
    pane: string;
    record: string;
  }> {
    const worker = await harness.startWorker([{ dialog }], { name: AGENT });
    harness.startBridge([
      '--worker-pane',
      worker.pane,
      '--agent',
      AGENT,
      '--preset',
      'codex',
    ]);
    return worker;
  }

  async function detected(count = 1): Promise<MacsEvent[]> {
    const found = await waitForEvents(home, 'request.detected', {
      count,
      timeout: 20_000,
      message: `${String(count)} request(s) detected`,
    });
    return found;
  }

  // A request's body in the inbox, once the file backend wrote it.
  const inboxText = (id: string) =>
    waitFor(
      () => {
        const inbox = file(`inbox/${id}.txt`);
        return existsSync(inbox) ? readFileSync(inbox, 'utf8') : undefined;
      },
      { message: `inbox/${id}.txt` },
    );

  // What the fake agent read: its dialog's choice, and anything typed.
  const dialogChoices = (record: string) =>
    readRecord(record).filter((e) => e.type === 'dialog') as unknown as {
      choice: string;
      key?: string;
      command: string;
    }[];
  const typed = (record: string) =>
    readRecord(record).filter((e) =>
      ['submit', 'paste-start', 'submit-ignored'].includes(e.type),
    );

  it('raises one request for a dialog and allows it with Enter, typing nothing', async () => {
    const { record } = await startDialog({ command: 'touch cache.db' });
    const [event] = await detected();
    const id = event?.requestId ?? '';
    expect(event?.data).toMatchObject({
      type: 'approval',
      origin: 'screen',
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    const body = await inboxText(id);
    expect(body).toContain('Would you like to run the following command?');
    expect(body).toContain('$ touch cache.db');

    await harness.respond(id, 'allow: creating the cache is fine');
    const [delivered] = await waitForEvents(home, 'request.delivered', {
      requestId: id,
      timeout: 20_000,
    });
    expect(delivered?.data).toMatchObject({
      method: 'dialog-keys',
      keys: ['Enter'],
      decision: 'allow',
      decidedBy: 'person',
    });
    await waitForEvents(home, 'request.confirmed', { requestId: id });
    expect(dialogChoices(record)).toEqual([
      {
        type: 'dialog',
        choice: 'allow',
        key: 'Enter',
        command: 'touch cache.db',
        during: 'approval',
        ts: expect.any(Number),
      },
    ]);
    // The answer's words never reached the agent.
    expect(typed(record)).toEqual([]);
    expect(JSON.stringify(readRecord(record))).not.toContain('creating');
    // One request for the dialog, however often the screen was read.
    await waitForEvents(home, 'request.archived', { requestId: id });
    expect(
      findEvents(home, 'request.detected').filter(
        (e) => e.data?.origin === 'screen',
      ),
    ).toHaveLength(1);
    const archived = JSON.parse(
      readFileSync(
        path.join(
          home,
          'archive',
          id.length ? dayOf(delivered) : '',
          `${id}.json`,
        ),
        'utf8',
      ),
    ) as { decision?: Record<string, unknown>; stage: string };
    expect(archived.stage).toBe('confirmed');
    expect(archived.decision).toMatchObject({
      decision: 'allow',
      decidedBy: 'person',
      via: 'outbox',
    });
  });

  it('denies with Escape', async () => {
    const { record } = await startDialog({ command: 'touch other.db' });
    const [event] = await detected();
    const id = event?.requestId ?? '';
    await harness.respond(id, 'deny: not now');
    const [delivered] = await waitForEvents(home, 'request.delivered', {
      requestId: id,
      timeout: 20_000,
    });
    expect(delivered?.data).toMatchObject({
      method: 'dialog-keys',
      keys: ['Escape'],
      decision: 'deny',
    });
    await waitFor(() => dialogChoices(record).length > 0, {
      message: 'the dialog answered',
    });
    expect(dialogChoices(record)[0]).toMatchObject({
      choice: 'deny',
      key: 'Escape',
    });
    expect(typed(record)).toEqual([]);
  });

  it('presses nothing when the dialog changed between the request and the decision', async () => {
    const change = file('change.flag');
    const { pane, record } = await startDialog({
      command: 'touch safe.db',
      changeFile: change,
      changedCommand: 'touch other-place.db',
    });
    const [event] = await detected();
    const id = event?.requestId ?? '';
    writeFileSync(change, 'go');
    await waitFor(
      async () => (await server.capture(pane)).includes('other-place.db'),
      { message: 'the dialog redrawn with another command' },
    );
    // Exit status not checked: the bridge may have expired it already.
    await runMacs(['respond', id, 'allow'], {
      home,
      socket: server.socket,
    });
    const [expired] = await waitForEvents(home, 'request.expired', {
      requestId: id,
      timeout: 20_000,
    });
    expect(String(expired?.data?.reason)).toMatch(/changed/);
    expect(String(expired?.data?.reason)).toMatch(/nothing was pressed/);
    expect(findEvents(home, 'request.delivered', id)).toEqual([]);
    // The changed dialog is a new question of its own.
    const [, second] = await detected(2);
    expect(second?.requestId).not.toBe(id);
    expect(await inboxText(second?.requestId ?? '')).toContain(
      'touch other-place.db',
    );
    expect(dialogChoices(record)).toEqual([]);
    expect(readRecord(record).filter((e) => e.type === 'control')).toEqual([]);
    expect(typed(record)).toEqual([]);
  });

  it('expires the request when the dialog is answered at the screen', async () => {
    const closed = file('closed.flag');
    const { record } = await startDialog({
      command: 'touch answered.db',
      untilFile: closed,
    });
    const [event] = await detected();
    const id = event?.requestId ?? '';
    writeFileSync(closed, 'go');
    const [expired] = await waitForEvents(home, 'request.expired', {
      requestId: id,
      timeout: 20_000,
    });
    expect(String(expired?.data?.reason)).toMatch(/left the screen/);
    await waitForEvents(home, 'request.archived', { requestId: id });
    expect(existsSync(file(`inbox/${id}.txt`))).toBe(false);
    // An answer now is refused and presses nothing.
    const late = await runMacs(['respond', id, 'allow'], {
      home,
      socket: server.socket,
    });
    expect(late.exitCode).not.toBe(0);
    expect(findEvents(home, 'request.delivered', id)).toEqual([]);
    expect(dialogChoices(record)).toMatchObject([{ choice: 'closed' }]);
    expect(typed(record)).toEqual([]);
  });

  it('after a bridge restart, an answer to a pending dialog is applied only on a fresh look', async () => {
    const { pane, record } = await startDialog({ command: 'touch later.db' });
    const [event] = await detected();
    const id = event?.requestId ?? '';
    // In the inbox (its metadata is written last) before the bridge dies.
    await waitFor(() => existsSync(file(`inbox/${id}.json`)), {
      message: 'the request in the inbox',
    });
    const [first] = harness.bridges;
    first?.child.kill('SIGKILL');
    await first?.exited;
    await harness.respond(id, 'allow');
    harness.startBridge([
      '--worker-pane',
      pane,
      '--agent',
      AGENT,
      '--preset',
      'codex',
    ]);
    const [delivered] = await waitForEvents(home, 'request.delivered', {
      requestId: id,
      timeout: 20_000,
    });
    expect(delivered?.data).toMatchObject({
      method: 'dialog-keys',
      keys: ['Enter'],
    });
    await waitFor(() => dialogChoices(record).length > 0, {
      message: 'the dialog answered',
    });
    expect(dialogChoices(record)[0]).toMatchObject({ choice: 'allow' });
    expect(typed(record)).toEqual([]);
    // Still one request: the restarted bridge did not raise the dialog again.
    expect(
      findEvents(home, 'request.detected').filter(
        (e) => e.data?.origin === 'screen',
      ),
    ).toHaveLength(1);
  });

  it('holds the keys while a person paused delivery to the agent', async () => {
    const { record } = await startDialog({ command: 'touch paused.db' });
    const [event] = await detected();
    const id = event?.requestId ?? '';
    const macs = (args: string[]) =>
      runMacs(args, { home, socket: server.socket });
    expect((await macs(['pause', AGENT])).exitCode).toBe(0);
    await harness.respond(id, 'allow');
    await waitForEvents(home, 'delivery.held', {
      requestId: id,
      timeout: 20_000,
    });
    expect(dialogChoices(record)).toEqual([]);
    expect((await macs(['resume', AGENT])).exitCode).toBe(0);
    await waitForEvents(home, 'request.delivered', {
      requestId: id,
      timeout: 20_000,
    });
    await waitFor(() => dialogChoices(record).length > 0, {
      message: 'the dialog answered',
    });
    expect(dialogChoices(record)[0]).toMatchObject({ choice: 'allow' });
  });

  it('the controller decides it through MCP decide_approval: Escape, decided by the controller', async () => {
    const { record } = await startDialog({ command: 'touch mcp.db' });
    const [event] = await detected();
    const id = event?.requestId ?? '';
    await inboxText(id);
    const env = childEnv({ MACS_HOME: home, MACS_TMUX_SOCKET: server.socket });
    const client = new Client({ name: 'macs-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MACS_BIN, 'mcp'],
        env: Object.fromEntries(
          Object.entries(env).filter(
            (e): e is [string, string] => e[1] !== undefined,
          ),
        ),
        cwd: home,
        stderr: 'pipe',
      }),
    );
    try {
      const result = await client.callTool({
        name: 'decide_approval',
        arguments: { id, decision: 'deny', reason: 'use the existing db' },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const [delivered] = await waitForEvents(home, 'request.delivered', {
      requestId: id,
      timeout: 20_000,
    });
    expect(delivered?.data).toMatchObject({
      method: 'dialog-keys',
      keys: ['Escape'],
      decision: 'deny',
      decidedBy: 'controller',
      via: 'mcp:decide_approval',
    });
    await waitFor(() => dialogChoices(record).length > 0, {
      message: 'the dialog answered',
    });
    expect(dialogChoices(record)[0]).toMatchObject({ choice: 'deny' });
    expect(typed(record)).toEqual([]);
  });

  it('a deny rule decides first: the default rm-everything rule presses Escape', async () => {
    const { record } = await startDialog({ command: 'rm -rf ~' });
    const [event] = await detected();
    const id = event?.requestId ?? '';
    const [delivered] = await waitForEvents(home, 'request.delivered', {
      requestId: id,
      timeout: 20_000,
    });
    expect(delivered?.data).toMatchObject({
      method: 'dialog-keys',
      keys: ['Escape'],
      decision: 'deny',
      decidedBy: 'rule',
      via: 'rm-everything',
    });
    await waitFor(() => dialogChoices(record).length > 0, {
      message: 'the dialog answered',
    });
    expect(dialogChoices(record)[0]).toMatchObject({ choice: 'deny' });
    expect(findEvents(home, 'request.routed', id)).toEqual([]);
  });
});

function dayOf(event: MacsEvent | undefined): string {
  return (event?.ts ?? new Date().toISOString()).slice(0, 10);
}
