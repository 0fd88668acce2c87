/**
 * Which command line runs an agent's program again: continuing its
 * conversation (`macs restart`, `macs start --resume`) or starting anew
 * (`--fresh`, a program that cannot resume, an id macs does not know or
 * whose conversation the program no longer has). The recorded id is only
 * used when the program's own records still hold that conversation, so a
 * resume never fails at once on a conversation that is gone.
 */
import { open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { codexHomeOf, findRollout } from '../hooks/codex-rollout.js';
import { fileExists } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';
import {
  clearConversation,
  readConversation,
  writeConversation,
} from '../state/conversation-record.js';
import {
  buildNamedSessionLaunch,
  buildResumeLaunch,
  choosesOwnConversation,
  isResumablePreset,
  newConversationId,
  type ResumablePreset,
} from './resumable-conversation.js';
import type { AgentLaunch } from './record.js';

/** How a program is run again, and why. */
export type LaunchChoice =
  | { type: 'resumed'; launch: AgentLaunch; conversation: string }
  | {
      type: 'fresh';
      launch: AgentLaunch;
      /** Why the conversation was not continued (absent: none was asked). */
      why?: string;
      /** The id macs gave the new conversation (Gemini CLI). */
      conversation?: string;
    };

/** At most this many bytes of a Gemini session file are read for its id. */
const GEMINI_HEAD_BYTES = 64 * 1024;

async function head(file: string, bytes: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Does Gemini CLI keep session `id`? Its sessions are
 * `<home>/.gemini/tmp/<project>/chats/session-<time>-<first 8 of id>.json`
 * (or `.jsonl`), each naming its `sessionId`.
 */
async function hasGeminiSession(home: string, id: string): Promise<boolean> {
  const tmp = path.join(home, '.gemini', 'tmp');
  const projects = await readdir(tmp).catch(() => [] as string[]);
  const short = id.slice(0, 8);
  for (const project of projects) {
    const chats = path.join(tmp, project, 'chats');
    const names = await readdir(chats).catch(() => [] as string[]);
    for (const name of names) {
      if (
        !name.startsWith('session-') ||
        !(name.endsWith(`-${short}.json`) || name.endsWith(`-${short}.jsonl`))
      )
        continue;
      const text = await head(path.join(chats, name), GEMINI_HEAD_BYTES).catch(
        () => '',
      );
      if (text.includes(`"${id}"`)) return true;
    }
  }
  return false;
}

/**
 * Does the program still have conversation `id`? Undefined when it does;
 * otherwise why not, in words for a person.
 */
async function conversationProblem(
  preset: ResumablePreset,
  id: string,
  transcript: string | undefined,
  launch: AgentLaunch,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const agentEnv = { ...env, ...launch.env };
  switch (preset) {
    case 'claude':
      if (!transcript)
        return `Claude Code gave no transcript for conversation ${id}`;
      return (await fileExists(transcript))
        ? undefined
        : `Claude Code's transcript of conversation ${id} is gone (${transcript}); nothing was said in it yet, or it was removed`;
    case 'codex': {
      const home = codexHomeOf(agentEnv);
      if (!home) return 'no Codex home (CODEX_HOME or HOME) to look in';
      return (await findRollout(path.join(home, 'sessions'), id))
        ? undefined
        : `Codex has no record of thread ${id} in ${home}/sessions`;
    }
    case 'gemini': {
      const home = agentEnv.GEMINI_CLI_HOME || agentEnv.HOME;
      if (!home || !path.isAbsolute(home))
        return 'no Gemini CLI home (GEMINI_CLI_HOME or HOME) to look in';
      return (await hasGeminiSession(home, id))
        ? undefined
        : `Gemini CLI has no record of session ${id}; nothing was said in it yet, or it was removed`;
    }
  }
}

/**
 * Decide how to run the agent's program, and record what macs knows of its
 * conversation accordingly: kept when it is continued; for a new Gemini
 * session, the id macs gives it; otherwise forgotten (the new program
 * reports its own through its hooks).
 */
export async function chooseLaunch(options: {
  paths: HomePaths;
  agent: string;
  preset: string;
  launch: AgentLaunch;
  /** Continue the recorded conversation when it can (false: `--fresh`, a new start). */
  resume: boolean;
  env: NodeJS.ProcessEnv;
  now?: Date;
}): Promise<LaunchChoice> {
  const { paths, agent, preset, launch } = options;
  const fresh = async (why?: string): Promise<LaunchChoice> => {
    if (preset === 'gemini' && !choosesOwnConversation('gemini', launch.argv)) {
      const id = newConversationId();
      const named = buildNamedSessionLaunch(launch, id);
      if (named) {
        await writeConversation(paths, {
          agent,
          id,
          source: 'launch',
          at: (options.now ?? new Date()).toISOString(),
        });
        return {
          type: 'fresh',
          launch: named,
          conversation: id,
          ...(why ? { why } : {}),
        };
      }
    }
    await clearConversation(paths, agent);
    return { type: 'fresh', launch, ...(why ? { why } : {}) };
  };
  if (!options.resume) return fresh();
  if (!isResumablePreset(preset))
    return fresh(`macs does not know how ${preset} resumes a conversation`);
  if (choosesOwnConversation(preset, launch.argv))
    return {
      type: 'fresh',
      launch,
      why: 'its command chooses its own conversation; it is run as it is',
    };
  const known = await readConversation(paths, agent);
  if (!known) return fresh('no conversation id was recorded for it');
  const problem = await conversationProblem(
    preset,
    known.id,
    known.transcript,
    launch,
    options.env,
  );
  if (problem) return fresh(problem);
  const resumed = buildResumeLaunch(launch, preset, known.id);
  if (!resumed)
    return fresh(
      'its command is not one simple command, so macs cannot add the resume arguments',
    );
  return { type: 'resumed', launch: resumed, conversation: known.id };
}

/** One line for a person: what happened to the agent's conversation. */
export function describeLaunchChoice(choice: LaunchChoice): string {
  return choice.type === 'resumed'
    ? `continuing its conversation ${choice.conversation}`
    : choice.why
      ? `started fresh: ${choice.why}`
      : 'started fresh';
}
