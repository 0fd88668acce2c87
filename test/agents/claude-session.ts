/**
 * The real Claude Code run through macs the way a user runs it: `macs start`
 * with one Claude worker on a private tmux server, pointed at a scripted
 * model server on 127.0.0.1. Claude gets its own config folder in a temp dir,
 * seeded so no first-run dialog blocks it, a dummy key, and telemetry, error
 * reporting, update checks and other non-essential traffic turned off.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  findEvents,
  readAllEvents,
  runMacs,
  type MacsRun,
} from '../helpers/macs.js';
import {
  cleanUpSession,
  readSessionFile,
  readStateFile,
  testSocket,
  tmuxOn,
} from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { agent } from './pins.js';
import {
  startAnthropicServer,
  type AnthropicServer,
  type ModelRequest,
  type Script,
  type Usage,
} from './servers/anthropic.js';

/** The worker's name in every Claude session of the tests. */
export const WORKER = 'worker-1';

/** A key of the right shape; it never leaves 127.0.0.1. */
export const DUMMY_KEY = 'sk-ant-api03-macs-test-dummy-key-0000000000000000';

/**
 * Claude Code's global config (`$CLAUDE_CONFIG_DIR/.claude.json`) with the
 * first-run answers given: onboarding done (theme and security notes), a
 * theme, the custom API key approved (Claude keeps the key's last 20
 * characters), and the folder trusted.
 */
export function seedClaudeConfig(configDir: string, folder: string): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  writeFileSync(
    path.join(configDir, '.claude.json'),
    JSON.stringify(
      {
        hasCompletedOnboarding: true,
        theme: 'dark',
        customApiKeyResponses: {
          approved: [DUMMY_KEY.slice(-20)],
          rejected: [],
        },
        projects: {
          [folder]: {
            hasTrustDialogAccepted: true,
            hasCompletedProjectOnboarding: true,
            allowedTools: [],
          },
        },
      },
      null,
      2,
    ),
  );
}

/** A Claude Code's environment: our server, a dummy key, nothing else reached. */
export function claudeEnv(
  url: string,
  configDir: string,
): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: DUMMY_KEY,
    CLAUDE_CONFIG_DIR: configDir,
    // A home of its own: Claude Code's Bash tool runs commands in a login
    // shell (`bash -c -l`), which reads the user's profile. This machine's
    // runs pyenv's rehash, which waits up to 60 s for a lock another shell
    // left behind: the approved command then hung at "Running…".
    HOME: configDir,
    // Documented switches (Claude Code's env-vars page): no telemetry, no
    // Sentry reports, no auto-update, no other non-essential traffic.
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // A failed request fails at once (the default is 10 retries with backoff).
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
}

export interface ClaudeSession {
  home: string;
  socket: string;
  server: AnthropicServer;
  pane: string;
  /** The worker's screen as `tmux capture-pane -p` prints it. */
  screen(): Promise<string>;
  /** Keys into the worker's pane as a person types them (tmux key names). */
  keys(...keys: string[]): Promise<void>;
  /** Literal text into the worker's pane. */
  type(text: string): Promise<void>;
  state(): string | undefined;
  /** Wait for the worker's state (state file) to be `state`. */
  waitState(state: string, message?: string): Promise<void>;
  /** What went on, for a failed wait: screen, last events. */
  explain(): Promise<string>;
  /** `macs ARGS` against the session's home and server. */
  macs(args: string[]): Promise<MacsRun>;
  stop(): Promise<void>;
}

/** What a test may add to a Claude session: the server's usage figures, config. */
export interface ClaudeSessionOptions {
  usage?: (request: ModelRequest) => Usage;
  /** Fields added to the worker's entry of macs.config.json. */
  worker?: Record<string, unknown>;
  /** Fields added to macs.config.json. */
  config?: Record<string, unknown>;
  /** Variables added to the worker's environment. */
  env?: Record<string, string>;
  /** Claude Code's user settings (`$CLAUDE_CONFIG_DIR/settings.json`). */
  claudeSettings?: Record<string, unknown>;
}

/** Start a session whose only worker is the real Claude Code. */
export async function startClaudeSession(
  script: Script,
  options: ClaudeSessionOptions = {},
): Promise<ClaudeSession> {
  const temp = makeTempHome('macs-claude-');
  const home = realpathSync(temp.home);
  const socket = testSocket();
  const server = await startAnthropicServer({
    script,
    lifeMs: 10 * 60_000,
    ...(options.usage ? { usage: options.usage } : {}),
  });
  const configDir = path.join(home, '.claude-config');
  seedClaudeConfig(configDir, home);
  if (options.claudeSettings)
    writeFileSync(
      path.join(configDir, 'settings.json'),
      JSON.stringify(options.claudeSettings),
    );
  writeFileSync(
    path.join(home, 'macs.config.json'),
    JSON.stringify({
      ...options.config,
      workers: [
        {
          name: WORKER,
          preset: 'claude',
          command: [agent('claude').bin],
          env: { ...claudeEnv(server.url, configDir), ...options.env },
          ...options.worker,
        },
      ],
    }),
  );
  const macs = (args: string[]) =>
    runMacs(args, { home, socket, timeoutMs: 120_000 });
  const stop = async () => {
    await runMacs(['stop', '--grace-sec', '1'], {
      home,
      socket,
      timeoutMs: 60_000,
    });
    await cleanUpSession(home, socket);
    await server.close();
    temp.cleanup();
  };
  const start = await macs(['start', '--detach']);
  if (start.exitCode !== 0) {
    await stop();
    throw new Error(`macs start failed: ${start.stderr}${start.stdout}`);
  }
  const pane = readSessionFile(home)?.agents.find(
    (a) => a.name === WORKER,
  )?.pane;
  if (!pane) {
    await stop();
    throw new Error('macs start recorded no pane for the worker');
  }
  const screen = async () =>
    (await tmuxOn(socket, 'capture-pane', '-p', '-t', pane)) ?? '';
  const state = () => readStateFile(home, WORKER)?.state as string | undefined;
  const explain = async () => {
    const events = readAllEvents(home)
      .slice(-30)
      .map((e) => `${e.agent} ${e.type} ${JSON.stringify(e.data ?? {})}`);
    return `--- screen:\n${await screen()}\n--- state: ${state() ?? '?'}\n--- last events:\n${events.join('\n')}`;
  };
  const session: ClaudeSession = {
    home,
    socket,
    server,
    pane,
    screen,
    async keys(...keys) {
      await tmuxOn(socket, 'send-keys', '-t', pane, ...keys);
    },
    async type(text) {
      await tmuxOn(socket, 'send-keys', '-t', pane, '-l', text);
    },
    state,
    async waitState(want, message) {
      try {
        await waitFor(() => state() === want, {
          timeout: 60_000,
          interval: 100,
          message: message ?? `worker state ${want}`,
        });
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${await explain()}`);
      }
    },
    explain,
    macs,
    stop,
  };
  // Ready: Claude's hooks ran (SessionStart) and its composer is idle.
  try {
    await waitFor(() => findEvents(home, 'hook.SessionStart').length > 0, {
      timeout: 60_000,
      interval: 200,
      message: 'the SessionStart hook of the real Claude Code',
    });
    await session.waitState('idle');
  } catch (error) {
    const why = `${(error as Error).message}\n${await explain()}`;
    await stop();
    throw new Error(why);
  }
  return session;
}

/** Submit a prompt as a person does: the text, then Enter once it shows. */
export async function submitPrompt(
  session: ClaudeSession,
  text: string,
): Promise<void> {
  await session.type(text);
  await waitFor(async () => (await session.screen()).includes(text), {
    timeout: 20_000,
    message: `the prompt "${text}" in the composer`,
  });
  await session.keys('Enter');
}
