// The real Claude Code (pinned) and the work it does inside its pane:
// subagents and the compaction of its context (issue 32; docs/hooks.md
// "Subagents and compaction"). A compacted worker used to keep the
// protocol only through the SessionStart context, and macs counted
// nothing; a subagent's end was recorded as a bare `hook.SubagentStop`,
// and only by `macs hooks install`ed settings that had none. Strategy:
// `macs start` with one real Claude Code worker against the scripted model
// server; a person types `/compact`, then a prompt: the model request after
// the compaction must carry the request protocol and macs's note, and
// `macs status --json` must count the compaction. A model that calls the
// Agent tool runs a real subagent: `subagent.stopped` names its kind and
// the snapshot lists it finished.
import { afterEach, describe, expect, it } from 'vitest';
import { findEvents, waitForEvents } from '../helpers/macs.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  startClaudeSession,
  submitPrompt,
  type ClaudeSession,
} from './claude-session.js';
import { agent } from './pins.js';
import {
  isToolResult,
  lastUserText,
  type ModelRequest,
  type Script,
} from './servers/anthropic.js';

const VERSION = agent('claude').version;

/** Everything a request sends, as text: system prompt and every message. */
function wholeText(request: ModelRequest): string {
  return JSON.stringify([request.body.system, request.body.messages]);
}

describe(`the real Claude Code ${VERSION}: subagents and compaction`, () => {
  let session: ClaudeSession | undefined;

  afterEach(async () => {
    await session?.stop();
    session = undefined;
  });

  async function explained<T>(wait: Promise<T>): Promise<T> {
    try {
      return await wait;
    } catch (error) {
      throw new Error(
        `${(error as Error).message}\n${(await session?.explain()) ?? ''}`,
      );
    }
  }

  async function snapshotAgent(s: ClaudeSession) {
    const status = await s.macs(['status', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    const snapshot = JSON.parse(status.stdout) as {
      agents: {
        name: string;
        compactions?: number;
        lastCompaction?: { trigger: string } | null;
        subagents?: {
          running: unknown[];
          finished: { kind: string; stoppedAt: string | null }[];
          finishedTotal: number;
        } | null;
      }[];
    };
    return snapshot.agents.find((a) => a.name === 'worker-1');
  }

  it('/compact: counted, and the next model call carries the protocol again', async () => {
    const script: Script = (request) => {
      const text = lastUserText(request);
      if (text.includes('create a detailed summary'))
        return {
          kind: 'text',
          text: '<summary>The user asked to start the report.</summary>',
        };
      if (text.includes('What is next?'))
        return { kind: 'text', text: 'Next I write the report.' };
      return { kind: 'text', text: 'Started.' };
    };
    session = await startClaudeSession(script);
    const s = session;
    // Claude Code compacts nothing shorter than a few turns ("Not enough
    // messages to compact"): three turns first.
    for (const [n, prompt] of [
      'Please start the report.',
      'Add a title to it.',
      'Add a first section.',
    ].entries()) {
      await submitPrompt(s, prompt);
      await explained(
        waitFor(() => findEvents(s.home, 'hook.Stop').length > n, {
          timeout: 60_000,
          message: `the end of turn ${n + 1}`,
        }),
      );
      await explained(
        waitFor(async () => (await s.screen()).includes('? for shortcuts'), {
          message: 'the idle composer',
        }),
      );
    }
    await explained(s.waitState('idle'));
    await explained(
      waitFor(async () => (await s.screen()).includes('? for shortcuts'), {
        message: 'the idle composer',
      }),
    );

    await submitPrompt(s, '/compact');
    const [compacted] = await explained(
      waitForEvents(s.home, 'context.compacted', { timeout: 60_000 }),
    );
    expect(compacted?.data?.trigger).toBe('manual');
    const [pre] = await explained(waitForEvents(s.home, 'hook.PreCompact'));
    expect(pre?.data?.trigger).toBe('manual');

    const agentNow = await snapshotAgent(s);
    expect(agentNow?.compactions).toBe(1);
    expect(agentNow?.lastCompaction?.trigger).toBe('manual');

    await explained(
      waitFor(async () => (await s.screen()).includes('? for shortcuts'), {
        message: 'the idle composer after /compact',
      }),
    );
    await submitPrompt(s, 'What is next?');
    const after = await explained(
      waitFor(
        () =>
          s.server
            .conversation()
            .find((r) => lastUserText(r).includes('What is next?')),
        { timeout: 60_000, message: 'the model call after /compact' },
      ),
    );
    const sent = wholeText(after);
    // The conversation was compacted: the summary replaced the old turns.
    expect(sent).toContain('The user asked to start the report.');
    expect(sent).not.toContain('Please start the report.');
    // The protocol and macs's note came back with it.
    expect(sent).toContain('<<CONTROLLER_REQUEST id=q-1 type=question>>');
    expect(sent).toContain('macs supervises you as agent \\"worker-1\\"');
    expect(sent).toContain('Your context was just compacted');
  });

  it('a subagent the model starts is seen running out and recorded with its kind', async () => {
    const script: Script = (request) => {
      const text = lastUserText(request);
      if (text.includes('List the files of the project.'))
        return { kind: 'text', text: 'There are no files yet.' };
      if (isToolResult(request))
        return { kind: 'text', text: 'The subagent found no files.' };
      if (text.includes('Look around'))
        return {
          kind: 'tool',
          name: 'Agent',
          input: {
            description: 'List the files',
            prompt: 'List the files of the project.',
            subagent_type: 'general-purpose',
          },
        };
      return { kind: 'text', text: 'OK.' };
    };
    session = await startClaudeSession(script);
    const s = session;
    await submitPrompt(s, 'Look around the project, please.');
    const [stopped] = await explained(
      waitForEvents(s.home, 'subagent.stopped', { timeout: 90_000 }),
    );
    expect(stopped?.data?.kind).toBe('general-purpose');
    const [started] = await explained(
      waitForEvents(s.home, 'hook.SubagentStart'),
    );
    expect(started?.data?.subagent).toBe(stopped?.data?.subagent);

    const agentNow = await snapshotAgent(s);
    expect(agentNow?.subagents?.running).toEqual([]);
    expect(agentNow?.subagents?.finishedTotal).toBe(1);
    expect(agentNow?.subagents?.finished[0]?.kind).toBe('general-purpose');
    await explained(s.waitState('idle'));
  });
});
