/**
 * `.macs/conversations/<agent>.json`: the conversation an agent's program
 * is in, as the program itself reported it (docs/session.md). Written by
 * macs when it starts the program (cleared, or, for Gemini CLI, the id macs
 * gave it) and then by the agent's hooks (Claude Code's `session_id`,
 * Codex's notify `thread-id`); read by `macs restart` and `macs start
 * --resume`. The two never write at once: the hooks run only while the
 * program started after the launch's write runs.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../home/fs.js';
import type { HomePaths } from '../home/paths.js';

/** Where the id came from. */
export type ConversationSource =
  /** Claude Code's hook input (`session_id`), with the hook event. */
  | 'claude-hook'
  /** Codex's notify payload (`thread-id`) of the person's own thread. */
  | 'codex-notify'
  /** The id macs gave Gemini CLI with `--session-id` when it started it. */
  | 'launch';

export interface ConversationRecord {
  agent: string;
  id: string;
  source: ConversationSource;
  /** When it was recorded (ISO). */
  at: string;
  /** Claude Code's transcript of the conversation (hook input `transcript_path`). */
  transcript?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function conversationsDir(paths: HomePaths): string {
  return path.join(paths.runtime, 'conversations');
}

export function conversationPath(paths: HomePaths, agent: string): string {
  return path.join(conversationsDir(paths), `${agent}.json`);
}

/** The agent's recorded conversation; undefined when none (or unreadable). */
export async function readConversation(
  paths: HomePaths,
  agent: string,
): Promise<ConversationRecord | undefined> {
  try {
    const value = JSON.parse(
      await readFile(conversationPath(paths, agent), 'utf8'),
    ) as Partial<ConversationRecord>;
    if (
      value.agent !== agent ||
      typeof value.id !== 'string' ||
      !UUID.test(value.id) ||
      typeof value.at !== 'string' ||
      (value.source !== 'claude-hook' &&
        value.source !== 'codex-notify' &&
        value.source !== 'launch')
    )
      return undefined;
    return {
      agent,
      id: value.id,
      source: value.source,
      at: value.at,
      ...(typeof value.transcript === 'string'
        ? { transcript: value.transcript }
        : {}),
    };
  } catch {
    return undefined;
  }
}

export async function writeConversation(
  paths: HomePaths,
  record: ConversationRecord,
): Promise<void> {
  if (!UUID.test(record.id))
    throw new Error(`'${record.id}' is not a conversation id`);
  await ensurePrivateDir(conversationsDir(paths));
  await writeFileAtomic(
    conversationPath(paths, record.agent),
    `${JSON.stringify(record, null, 2)}\n`,
  );
}

/** Forget the agent's conversation (a program started anew). */
export async function clearConversation(
  paths: HomePaths,
  agent: string,
): Promise<void> {
  await rm(conversationPath(paths, agent), { force: true });
}
