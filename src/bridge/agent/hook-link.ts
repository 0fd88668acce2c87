/**
 * The bridge's side of the hooks (docs/hooks.md). `macs hook` runs in the
 * agent's process tree and only leaves files; this link, inside the
 * supervisor, reads them:
 *
 * - `.macs/hooks/<agent>.json` (the latest hook observation): its state wins
 *   over the screen (hook-state.ts), and it says whether the agent's hooks
 *   are active (state/hook-observation.ts). A new call is handed on
 *   (`HookSeen` `call`: a Stop hook's claim on an answer means the agent
 *   already has it), and so is each look at the latest observation
 *   (`prompt`: a UserPromptSubmit after the bridge typed an answer confirms
 *   that delivery); the answers room acts on both
 *   (answers/hook-deliveries.ts).
 * - `.macs/hook-requests/<agent>/`: approvals a PreToolUse or
 *   PermissionRequest hook asks for. The link only says when to look
 *   (`HookSeen` `requests`); the approvals room takes them
 *   (approvals/hook-approvals.ts).
 *
 * The files are watched with fs.watch, and polled every `backstopMs` in
 * case a notification is lost; the poll alone is enough.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { getPreset } from '../../config/presets/index.js';
import type { MacsConfig } from '../../config/schema.js';
import type { EventInput } from '../../events/types.js';
import type { HomePaths } from '../../home/paths.js';
import type { Logger } from '../../log/logger.js';
import { pruneClaims } from '../../state/claim.js';
import { ensurePrivateDir } from '../../home/fs.js';
import {
  hookRequestsDir,
  hooksDir,
  observationPath,
  parseObservation,
  type HookObservation,
} from '../../state/hook-files.js';
import type { AgentStateFile, StateSource } from '../../state/types.js';
import type { AgentStateName } from '../../config/states.js';
import {
  HOOKS_START_TIMEOUT_MS,
  statusAfterWait,
  statusAtStart,
  statusOnCall,
} from '../../state/hook-observation.js';
import { arbitrateState, type ArbiterMemo } from './hook-state.js';
import type { HookSeen } from './types.js';

/** Claims of finished requests are kept this long (a slow hook must not re-claim). */
export const CLAIM_KEEP_MS = 24 * 3600 * 1000;
/** After an observation, the state is read once more when the screen has caught up. */
const SETTLE_MS = 1_600;

/** What the link needs from its supervisor. */
export interface HookLinkHost {
  agent: string;
  paths: HomePaths;
  config: MacsConfig;
  /** The agent's preset name (its `hooks` says which hooks to expect). */
  preset: string;
  log: Logger;
  /** The supervisor's serial queue: every state change runs through it. */
  serial: <T>(task: () => Promise<T>) => Promise<T>;
  current: () => AgentStateFile;
  emit: (input: Omit<EventInput, 'agent'>) => Promise<void>;
  saveNow: () => Promise<void>;
  /** Read the agent's state again (screen and hooks). */
  refreshState: () => Promise<unknown>;
  /**
   * What a look at the hook files found, handed on (awaited where it was
   * found, not under `serial`): the supervisor gives it to the room that
   * takes it.
   */
  hookSeen: (seen: HookSeen) => Promise<void>;
}

export interface HookLink {
  start: () => Promise<void>;
  stop: () => Promise<void>;
  /** Hook > screen > activity: the state to record for a screen reading. */
  resolveState: (
    screen: AgentStateName,
    screenSource?: StateSource,
  ) => Promise<{ state: AgentStateName; source: StateSource }>;
  /**
   * macs pressed the submit key into the agent: until its next hook call,
   * the agent counts as working (Claude Code runs UserPromptSubmit late).
   */
  noteSubmitted: (at?: number) => void;
  /** The latest observation (tests, status). */
  latest: () => HookObservation | undefined;
  /** Poll the hook files now. */
  check: () => Promise<void>;
}

function hooksKindOf(config: MacsConfig, preset: string): string {
  try {
    return getPreset(preset, config.presets).hooks;
  } catch {
    return 'none';
  }
}

export function createHookLink(host: HookLinkHost): HookLink {
  const { agent, paths, log } = host;
  const kind = hooksKindOf(host.config, host.preset);
  const obsFile = observationPath(paths, agent);
  const requestsDir = hookRequestsDir(paths, agent);
  let observation: HookObservation | undefined;
  let signature = '';
  let memo: ArbiterMemo = {};
  /** When macs last pressed the submit key into the agent (noteSubmitted). */
  let submittedAt: number | undefined;
  let startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let startTimer: NodeJS.Timeout | undefined;
  let settleTimer: NodeJS.Timeout | undefined;
  const watchers: FSWatcher[] = [];
  let checking: Promise<void> | undefined;
  let stopped = false;

  let refreshing: Promise<boolean> | undefined;

  /** Read the observation file if it changed; true when it did. One read at a time. */
  function refreshObservation(): Promise<boolean> {
    refreshing ??= readObservationIfChanged().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  async function readObservationIfChanged(): Promise<boolean> {
    const info = await stat(obsFile).catch(() => undefined);
    const sig = info ? `${info.ino}:${info.size}:${info.mtimeMs}` : '';
    if (sig === signature) return false;
    signature = sig;
    if (!info) return false;
    const text = await readFile(obsFile, 'utf8').catch(() => '');
    const parsed = parseObservation(text);
    if (!parsed) return false;
    const fresh = observation?.ts !== parsed.ts;
    observation = parsed;
    return fresh;
  }

  async function onObservation(obs: HookObservation): Promise<void> {
    await host.serial(async () => {
      const s = host.current();
      const before = s.hooks?.status;
      const next = statusOnCall(s.hooks, obs, startedAt, Date.now());
      if (next.hooks) s.hooks = next.hooks;
      if (next.activated) {
        await host.saveNow();
        await host.emit({
          type: 'hooks.active',
          data: { event: obs.event, ...(before ? { was: before } : {}) },
        });
      }
    });
    await host.hookSeen({ type: 'call' });
    await host.hookSeen({ type: 'prompt', observation });
    void host.refreshState().catch(() => undefined);
    if (settleTimer) clearTimeout(settleTimer);
    settleTimer = setTimeout(() => {
      void host.refreshState().catch(() => undefined);
    }, SETTLE_MS);
    settleTimer.unref();
  }

  async function checkOnce(): Promise<void> {
    if (await refreshObservation()) {
      if (observation) await onObservation(observation);
    } else {
      await host.hookSeen({ type: 'prompt', observation });
    }
    await host.hookSeen({ type: 'requests' });
  }

  function check(): Promise<void> {
    checking ??= checkOnce()
      .catch((error: unknown) => {
        log.error({ err: error }, 'hook check failed');
      })
      .finally(() => {
        checking = undefined;
      });
    return checking;
  }

  function watchDir(dir: string): void {
    try {
      const watcher = watch(dir, () => void check());
      watcher.on('error', () => watcher.close());
      watcher.unref();
      watchers.push(watcher);
    } catch {
      // fs.watch is a speed-up only; the poll covers everything.
    }
  }

  /** Claude Code's hooks not heard from in time: say they look inactive, and why. */
  function watchForSilence(): void {
    startTimer = setTimeout(() => {
      void host
        .serial(async () => {
          const current = host.current();
          if (stopped) return;
          const hooks = statusAfterWait(current.hooks, agent, Date.now());
          if (!hooks) return;
          current.hooks = hooks;
          await host.saveNow();
          await host.emit({
            type: 'hooks.inactive',
            data: { reason: hooks.reason },
          });
        })
        .catch(() => undefined);
    }, HOOKS_START_TIMEOUT_MS);
    startTimer.unref();
  }

  return {
    async start() {
      startedAt = Date.now();
      const s = host.current();
      const open = new Set(Object.keys(s.requests));
      await pruneClaims(paths, open, CLAIM_KEEP_MS).catch(() => 0);
      await ensurePrivateDir(hooksDir(paths));
      await ensurePrivateDir(path.dirname(requestsDir));
      await ensurePrivateDir(requestsDir);
      await refreshObservation();
      const status = statusAtStart(kind, observation, Date.now());
      host.current().hooks = status;
      if (status.status === 'active' && observation)
        await host.emit({
          type: 'hooks.active',
          data: { event: observation.event, at: observation.ts },
        });
      if (kind === 'claude') watchForSilence();
      // A preset without hooks: no hook speaks for it (a call that claims
      // to is refused and recorded), so nothing here is watched or polled.
      if (kind !== 'none') {
        watchDir(hooksDir(paths));
        watchDir(requestsDir);
        // A backstop for the folder watchers above, which see changes at once.
        timer = setInterval(() => void check(), host.config.backstopMs);
        timer.unref();
      }
      await check();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      if (startTimer) clearTimeout(startTimer);
      if (settleTimer) clearTimeout(settleTimer);
      for (const watcher of watchers.splice(0)) watcher.close();
      await checking;
    },
    async resolveState(screen, screenSource = 'screen') {
      if (await refreshObservation().catch(() => false))
        if (observation) void onObservation(observation).catch(() => undefined);
      const result = arbitrateState(
        {
          hook: observation,
          screen,
          screenSource,
          now: Date.now(),
          ...(submittedAt !== undefined ? { submittedAt } : {}),
        },
        memo,
      );
      memo = result.memo;
      if (result.report) {
        void host
          .emit({ type: 'state.disagreement', data: { ...result.report } })
          .catch(() => undefined);
      }
      return { state: result.state, source: result.source };
    },
    noteSubmitted(at = Date.now()) {
      // Only Claude Code's hooks report prompts, and only hooks seen working
      // will speak again; other agents keep the screen.
      if (kind === 'claude' && host.current().hooks?.status === 'active')
        submittedAt = at;
    },
    latest: () => observation,
    check,
  };
}
