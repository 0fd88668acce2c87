import { execa } from 'execa';
import type { Logger } from '../log/logger.js';
import {
  buildContextPacket,
  CONTEXT_RECENT_MAX,
  type ContextPacket,
  type ContextRecent,
} from '../protocol/context-packet.js';
import { stripChrome } from '../screen/chrome.js';
import { cleanScreenLines } from '../screen/classify.js';
import type { RecentRequest } from '../state/types.js';
import { buildDisplayArgs } from '../tmux/args.js';
import type { TmuxClient } from '../tmux/client.js';
import type { BackendRequest } from './types.js';

/** git gets this long to name the branch. */
const GIT_TIMEOUT_MS = 5000;

/** A folder's branch is asked of git at most this often. */
export const BRANCH_CACHE_MS = 5_000;

/**
 * The branch of each folder, kept for BRANCH_CACHE_MS: starting git costs
 * milliseconds of the bridge's time, and a burst of requests from agents
 * in one folder would start it once each.
 */
export function cachedBranches(
  read: ReadGitBranch,
  now: () => number = Date.now,
): ReadGitBranch {
  const cache = new Map<
    string,
    { at: number; branch: Promise<string | undefined> }
  >();
  return (cwd) => {
    const hit = cache.get(cwd);
    if (hit && now() - hit.at < BRANCH_CACHE_MS) return hit.branch;
    const branch = read(cwd).catch(() => undefined);
    cache.set(cwd, { at: now(), branch });
    return branch;
  };
}

/** Reads the branch of a folder; undefined when it is not a repository. */
export type ReadGitBranch = (cwd: string) => Promise<string | undefined>;

/** `git -C <cwd> rev-parse --abbrev-ref HEAD`, no shell; every failure is undefined. */
export const readGitBranch: ReadGitBranch = async (cwd) => {
  const result = await execa(
    'git',
    ['-C', cwd, 'rev-parse', '--abbrev-ref', 'HEAD'],
    { reject: false, shell: false, timeout: GIT_TIMEOUT_MS, stdin: 'ignore' },
  );
  const branch = typeof result.stdout === 'string' ? result.stdout.trim() : '';
  return result.exitCode === 0 && branch ? branch : undefined;
};

export interface ContextCollectorOptions {
  tmux: TmuxClient;
  contextLines: number;
  log: Logger;
  readBranch?: ReadGitBranch;
  /** Why delivery to an agent is paused (state/person-controls.ts); null when it is not. */
  readPause?: (agent: string) => Promise<{
    by: string;
    scope?: 'agent' | 'session';
    percent?: number;
  } | null>;
}

export type CollectContext = (
  request: BackendRequest,
) => Promise<ContextPacket>;

function toContextRecent(recent: readonly RecentRequest[]): ContextRecent[] {
  return recent.slice(0, CONTEXT_RECENT_MAX).map((r) => ({
    id: r.id,
    type: r.type,
    stage: r.stage,
    detectedAt: r.detectedAt,
    question: r.firstLine,
    ...(r.instructions === undefined ? {} : { answer: r.instructions }),
  }));
}

/**
 * Gathers a request's context packet (SPEC §3): the pane's working folder
 * and its git branch, the last `contextLines` lines of the worker's screen
 * as tmux renders them (wrapped lines joined, decoration removed), and the
 * worker's recent requests. Each fact that cannot be read is left out; a
 * packet is always returned.
 */
export function createContextCollector(
  options: ContextCollectorOptions,
): CollectContext {
  const readBranch = cachedBranches(options.readBranch ?? readGitBranch);
  return async (request) => {
    let cwd: string | undefined;
    let branch: string | undefined;
    let screenLines: string[] = [];
    if (request.pane) {
      try {
        cwd =
          (
            await options.tmux.command(
              buildDisplayArgs(request.pane, '#{pane_current_path}'),
            )
          ).trim() || undefined;
      } catch (error) {
        options.log.warn({ err: error, pane: request.pane }, 'no pane folder');
      }
      try {
        const screen = await options.tmux.capturePane(request.pane, {
          start: -options.contextLines,
          join: true,
        });
        screenLines = stripChrome(cleanScreenLines(screen));
      } catch (error) {
        options.log.warn({ err: error, pane: request.pane }, 'no pane screen');
      }
    }
    if (cwd) branch = await readBranch(cwd).catch(() => undefined);
    // A paused agent (a budget, a person): the answerer is told its answer
    // waits (docs/usage.md).
    const pause = await options.readPause?.(request.agent).catch(() => null);
    return buildContextPacket({
      requestId: request.id,
      agent: request.agent,
      preset: request.preset,
      ...(cwd ? { cwd } : {}),
      ...(branch ? { branch } : {}),
      type: request.type,
      priority: request.priority,
      attributes: request.attributes,
      detectedAt: request.detectedAt,
      body: request.body,
      screenLines,
      contextLines: options.contextLines,
      recent: toContextRecent(request.recent ?? []),
      now: new Date(),
      ...(request.concealed ? { concealed: true } : {}),
      ...(pause
        ? {
            paused: {
              by: pause.by,
              ...(pause.scope ? { scope: pause.scope } : {}),
              ...(pause.percent !== undefined
                ? { percent: pause.percent }
                : {}),
            },
          }
        : {}),
    });
  };
}
