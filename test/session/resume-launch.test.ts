// How `macs restart` and `macs start --resume` run an agent again: the
// conversation the agent reported is continued only when the program's own
// records still hold it; otherwise the agent starts fresh and says why.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { buildLaunchArgv } from '../../src/session/session-layout.js';
import type { AgentLaunch } from '../../src/session/record.js';
import { chooseLaunch } from '../../src/session/resume-launch.js';
import {
  readConversation,
  writeConversation,
} from '../../src/state/conversation-record.js';

const ID = '0c366cc4-3d9e-49ae-b4fa-71c59f9c2b54';

describe('chooseLaunch', () => {
  let dir: string;
  let paths: HomePaths;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'macs-resume-launch-'));
    paths = resolveHomePaths(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const launch = (argv: string[], env: Record<string, string> = {}) => ({
    argv: buildLaunchArgv({ kind: 'argv', argv }),
    cwd: dir,
    env,
  });
  const choose = (preset: string, l: AgentLaunch, resume = true) =>
    chooseLaunch({ paths, agent: 'w', preset, launch: l, resume, env: {} });

  it('continues a Claude Code conversation whose transcript is there', async () => {
    const transcript = path.join(dir, `${ID}.jsonl`);
    writeFileSync(transcript, '{}\n');
    await writeConversation(paths, {
      agent: 'w',
      id: ID,
      source: 'claude-hook',
      at: new Date().toISOString(),
      transcript,
    });
    const choice = await choose('claude', launch(['claude']));
    expect(choice).toMatchObject({ type: 'resumed', conversation: ID });
    expect(choice.launch.argv.slice(5)).toEqual(['claude', '--resume', ID]);
    // --fresh: a new conversation; the old id is forgotten.
    const fresh = await choose('claude', launch(['claude']), false);
    expect(fresh).toEqual({ type: 'fresh', launch: launch(['claude']) });
    expect(await readConversation(paths, 'w')).toBeUndefined();
  });

  it('starts fresh, saying why, when the transcript is gone or no id is known', async () => {
    expect(await choose('claude', launch(['claude']))).toMatchObject({
      type: 'fresh',
      why: 'no conversation id was recorded for it',
    });
    await writeConversation(paths, {
      agent: 'w',
      id: ID,
      source: 'claude-hook',
      at: new Date().toISOString(),
      transcript: path.join(dir, 'gone.jsonl'),
    });
    const choice = await choose('claude', launch(['claude']));
    expect(choice.type).toBe('fresh');
    expect(choice.type === 'fresh' && choice.why).toMatch(
      /transcript .* is gone/,
    );
    expect(choice.launch.argv).not.toContain('--resume');
  });

  it("continues a Codex thread its rollout records, in the agent's CODEX_HOME", async () => {
    const codexHome = path.join(dir, 'codex-home');
    const day = path.join(codexHome, 'sessions', '2026', '11', '27');
    const recorded = () =>
      writeConversation(paths, {
        agent: 'w',
        id: ID,
        source: 'codex-notify',
        at: new Date().toISOString(),
      });
    await recorded();
    const l = launch(['codex'], { CODEX_HOME: codexHome });
    expect((await choose('codex', l)).type).toBe('fresh');
    // A fresh start forgets the old thread: the new program names its own.
    expect(await readConversation(paths, 'w')).toBeUndefined();
    await recorded();
    mkdirSync(day, { recursive: true });
    writeFileSync(
      path.join(day, `rollout-2026-11-27T07-00-00-${ID}.jsonl`),
      '{}\n',
    );
    const choice = await choose('codex', l);
    expect(choice.type).toBe('resumed');
    expect(choice.launch.argv.slice(5)).toEqual(['codex', 'resume', ID]);
  });

  it('names a new Gemini session, and continues it once Gemini has recorded it', async () => {
    const home = path.join(dir, 'gemini-home');
    const l = launch(['gemini'], { HOME: home });
    const fresh = await choose('gemini', l, false);
    expect(fresh.type).toBe('fresh');
    const id = fresh.type === 'fresh' ? (fresh.conversation ?? '') : '';
    expect(fresh.launch.argv.slice(5)).toEqual(['gemini', '--session-id', id]);
    expect(await readConversation(paths, 'w')).toMatchObject({
      id,
      source: 'launch',
    });
    // Nothing said in it yet: Gemini has no record, so a new one again.
    const again = await choose('gemini', l);
    expect(again).toMatchObject({ type: 'fresh' });
    expect(again.type === 'fresh' && again.why).toMatch(/no record of session/);
    // Gemini's record of the session (read back: the id macs recorded now).
    const current = (await readConversation(paths, 'w'))?.id ?? '';
    const chats = path.join(home, '.gemini', 'tmp', 'project', 'chats');
    mkdirSync(chats, { recursive: true });
    writeFileSync(
      path.join(chats, `session-2026-11-27T07-09-${current.slice(0, 8)}.jsonl`),
      `${JSON.stringify({ sessionId: current })}\n`,
    );
    const resumed = await choose('gemini', l);
    expect(resumed).toMatchObject({ type: 'resumed', conversation: current });
    expect(resumed.launch.argv.slice(5)).toEqual([
      'gemini',
      '--resume',
      current,
    ]);
  });

  it('runs a command that chooses its own conversation as it is, and other programs fresh', async () => {
    const own = launch(['claude', '--continue']);
    expect(await choose('claude', own)).toMatchObject({
      type: 'fresh',
      launch: own,
      why: expect.stringContaining('chooses its own conversation'),
    });
    expect(await choose('aider', launch(['aider']))).toMatchObject({
      type: 'fresh',
      why: 'macs does not know how aider resumes a conversation',
    });
  });
});
