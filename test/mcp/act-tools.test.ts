import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerActTools, SEND_DEFAULT_SEC } from '../../src/mcp/act-tools.js';
import type { ToolContext } from '../../src/mcp/tool.js';
import { splitResponse } from '../../src/protocol/response.js';
import { takeAnswerBy } from '../../src/state/outbox.js';
import type { SendOutcome } from '../../src/operations/send-message.js';
import { createHomeFixture, makeRecord } from '../state/home-fixture.js';
import { connectTools, makeToolContext, textOf } from './harness.js';

type Sent = Parameters<ToolContext['send']>[0];

/** What `macs send` reports for a delivery, confirmed or not. */
function delivered(confirmed: boolean): SendOutcome {
  return {
    type: 'delivered',
    data: {
      pane: '%4',
      preset: 'claude',
      method: 'paste',
      chars: 5,
      waitedMs: 10,
      submits: 2,
      confirmed,
      text: 'hello',
    },
    how: 'the prompt cleared',
    shown: 'worker-2 (pane %4, preset claude)',
    submitKey: 'Enter',
  };
}

// The tools that act: answers go to the outbox, messages through `macs send`.
describe('act tools', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  let conn: Awaited<ReturnType<typeof connectTools>>;
  const sent: Sent[] = [];
  let outcome: SendOutcome;
  const outbox = (id: string) =>
    readFileSync(path.join(fx.paths.outbox, `${id}.txt`), 'utf8');

  beforeEach(async () => {
    fx = createHomeFixture();
    sent.length = 0;
    outcome = delivered(true);
    const context = makeToolContext(fx, {
      send: (params) => {
        sent.push(params);
        return Promise.resolve(outcome);
      },
    });
    conn = await connectTools(fx, (tool) => registerActTools(tool, context));
    // Both wait in the inbox; the approval came from a Claude Code hook.
    await fx.writeState('worker-1', (s) => {
      s.requests['worker-1-q-17'] = makeRecord();
      s.requests['worker-1-a-1'] = makeRecord({
        id: 'worker-1-a-1',
        workerId: 'a-1',
        type: 'approval',
        attributes: { id: 'a-1', hook: 'PermissionRequest' },
        body: 'May I push?',
      });
    });
    fx.writeInboxMeta('worker-1-q-17', { id: 'worker-1-q-17' });
    fx.writeInboxMeta('worker-1-a-1', { id: 'worker-1-a-1' });
  });
  afterEach(async () => {
    await conn.close();
    fx.cleanup();
  });

  it('answer_request writes instructions and notes to the outbox, once', async () => {
    const answered = await conn.call('answer_request', {
      id: 'worker-1-q-17',
      instructions: 'Migrate later.',
      notes: 'after the release',
    });
    expect(answered.isError).toBeFalsy();
    expect(textOf(answered)).toBe(
      'answered worker-1-q-17 (worker-1): the bridge types it into the worker once it is idle',
    );
    expect(splitResponse(outbox('worker-1-q-17'))).toMatchObject({
      instructions: 'Migrate later.',
      notes: 'after the release',
    });
    expect(answered.structuredContent).toMatchObject({
      id: 'worker-1-q-17',
      agent: 'worker-1',
      file: path.join(fx.paths.outbox, 'worker-1-q-17.txt'),
    });
    expect(await takeAnswerBy(fx.paths, 'worker-1-q-17')).toBe(
      'mcp:answer_request',
    );
    const again = await conn.call('answer_request', {
      id: 'worker-1-q-17',
      instructions: 'Now.',
    });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/not answered twice/);
    expect(
      (await conn.calls()).map((e) => [e.agent, e.requestId, e.data?.ok]),
    ).toEqual([
      ['worker-1', 'worker-1-q-17', true],
      ['worker-1', 'worker-1-q-17', false],
    ]);
  });

  it('answer_request refuses instructions that hold a notes header', async () => {
    const refused = await conn.call('answer_request', {
      id: 'worker-1-q-17',
      instructions: 'Go.\nNOTES:\nsecret',
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/NOTES: header/);
  });

  it('decide_approval answers an approval with its decision and reason', async () => {
    const decided = await conn.call('decide_approval', {
      id: 'worker-1-a-1',
      decision: 'deny',
      reason: ' not on main ',
    });
    expect(textOf(decided)).toBe(
      "denied worker-1-a-1 (worker-1): the bridge answers the agent's waiting PermissionRequest hook at once, typing nothing",
    );
    expect(splitResponse(outbox('worker-1-a-1'))).toMatchObject({
      instructions: 'deny: not on main',
      notes: 'decided by the controller through MCP: deny',
    });
    expect(await takeAnswerBy(fx.paths, 'worker-1-a-1')).toBe(
      'mcp:decide_approval',
    );
    expect((await conn.calls())[0]?.data).toMatchObject({
      tool: 'decide_approval',
      ok: true,
      decision: 'deny',
    });
  });

  it('decide_approval refuses a request that is no approval', async () => {
    const refused = await conn.call('decide_approval', {
      id: 'worker-1-q-17',
      decision: 'allow',
      reason: 'fine',
    });
    expect(textOf(refused)).toBe(
      "request 'worker-1-q-17' is a question request, not an approval; answer it with answer_request",
    );
  });

  it('send_message goes through macs send, with the default wait', async () => {
    const result = await conn.call('send_message', {
      agent: 'worker-2',
      text: 'hello',
    });
    expect(sent).toEqual([
      {
        agent: 'worker-2',
        text: 'hello',
        timeoutSec: SEND_DEFAULT_SEC,
        signal: expect.any(AbortSignal) as unknown,
      },
    ]);
    expect(textOf(result)).toBe(
      'sent 5 chars to worker-2 (pane %4, preset claude): the prompt cleared',
    );
    expect(result.structuredContent).toMatchObject({
      agent: 'worker-2',
      confirmed: true,
    });
    expect((await conn.calls())[0]).toMatchObject({
      agent: 'worker-2',
      data: { tool: 'send_message', chars: 5, pane: '%4' },
    });
  });

  it('send_message says when nothing was typed, or the agent showed no sign of taking it', async () => {
    outcome = { type: 'cancelled' };
    const cancelled = await conn.call('send_message', {
      agent: 'worker-2',
      text: 'hello',
      timeout_sec: 5,
    });
    expect(sent[0]?.timeoutSec).toBe(5);
    expect(textOf(cancelled)).toBe('cancelled; nothing was typed');
    outcome = delivered(false);
    const unconfirmed = await conn.call('send_message', {
      agent: 'worker-2',
      text: 'hello',
    });
    expect(unconfirmed.isError).toBe(true);
    expect(textOf(unconfirmed)).toBe(
      'typed 5 chars into worker-2 (pane %4, preset claude) and pressed Enter 2 time(s), but saw no sign the agent took them; not typed again (read_screen shows the pane)',
    );
  });
});
