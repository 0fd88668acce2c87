import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv } from './tmux-server.js';
import { waitFor } from './wait-for.js';

export const REPO_ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../..',
);
/** The built CLI (`npm test` builds first). */
export const MACS_BIN = path.join(REPO_ROOT, 'dist', 'main.js');
export const FAKE_AGENT = path.join(
  REPO_ROOT,
  'test',
  'fixtures',
  'fake-agent.mjs',
);
/** The fake Claude Code that calls its hooks (test/fixtures/README.md). */
export const FAKE_HOOK_AGENT = path.join(
  REPO_ROOT,
  'test',
  'fixtures',
  'fake-hook-agent.mjs',
);
export const FAKE_EXEC = path.join(
  REPO_ROOT,
  'test',
  'fixtures',
  'fake-exec.mjs',
);
export const FAKE_CONTROLLER = path.join(
  REPO_ROOT,
  'test',
  'fixtures',
  'fake-controller.mjs',
);

/**
 * The sources behind the modules a process loaded (a trace written by
 * test/fixtures/trace-imports.mjs, one URL a line), as paths relative to the
 * repository: a built file of dist/ stands for the sources its source map
 * names (`src/cli/status.ts`, `node_modules/zod/...`), since the build bundles
 * them (scripts/build.mjs); any other file for itself (`node_modules/ink/...`).
 */
export function loadedSources(trace: string): string[] {
  const sources = new Set<string>();
  for (const line of trace.split('\n')) {
    if (!line.startsWith('file:')) continue;
    const file = fileURLToPath(line);
    const map = `${file}.map`;
    if (!file.startsWith(path.join(REPO_ROOT, 'dist')) || !existsSync(map)) {
      sources.add(path.relative(REPO_ROOT, file));
      continue;
    }
    const parsed = JSON.parse(readFileSync(map, 'utf8')) as {
      sources: string[];
    };
    for (const source of parsed.sources)
      sources.add(
        path.relative(REPO_ROOT, path.resolve(path.dirname(file), source)),
      );
  }
  return [...sources].sort();
}

/** One step of a fake agent's script (see test/fixtures/fake-agent.mjs). */
export type Step = Record<string, unknown>;

/**
 * A request block as a worker prints it. `attrs` is written as given right
 * after the id, so it starts with a space: `REQ('q1', body, ' type=question')`.
 */
export const REQ = (id: string, body: string, attrs = ''): string =>
  `<<CONTROLLER_REQUEST id=${id}${attrs}>>\n${body}\n<<CONTROLLER_REQUEST_END>>\n`;

export interface MacsRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Run `macs ARGS` as a user would, against a home and a private tmux socket. */
export function runMacs(
  args: string[],
  options: {
    home: string;
    socket?: string;
    input?: string;
    env?: Record<string, string>;
    timeoutMs?: number;
    /** The working folder (default: the home). */
    cwd?: string;
    /** Leave MACS_HOME unset, so the command finds its home itself. */
    noHomeEnv?: boolean;
  },
): Promise<MacsRun> {
  const env = childEnv({
    ...(options.noHomeEnv ? {} : { MACS_HOME: options.home }),
    ...(options.socket ? { MACS_TMUX_SOCKET: options.socket } : {}),
    ...options.env,
  });
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [MACS_BIN, ...args],
      {
        env,
        cwd: options.cwd ?? options.home,
        timeout: options.timeoutMs ?? 30_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code =
          error && typeof (error as { code?: unknown }).code === 'number'
            ? (error as { code: number }).code
            : error
              ? 1
              : 0;
        resolve({ exitCode: code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}

export interface BridgeProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
}

/** Start `macs bridge` in the background. */
export function startBridge(
  args: string[],
  options: { home: string; socket: string; env?: Record<string, string> },
): BridgeProcess {
  const env = childEnv({
    MACS_HOME: options.home,
    MACS_TMUX_SOCKET: options.socket,
    ...options.env,
  });
  const child = spawn(process.execPath, [MACS_BIN, 'bridge', ...args], {
    env,
    cwd: options.home,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (d: Buffer) => (text += d.toString()));
  child.stderr.on('data', (d: Buffer) => (text += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => resolve(code)),
  );
  return { child, output: () => text, exited };
}

export interface RecordedInput {
  /** submit, control, submit-ignored, paste-start, paste-end */
  type: string;
  text?: string;
  bytes?: string;
  during?: string;
}

/** What the fake agent recorded (one JSON object a line). */
export function readRecord(file: string): RecordedInput[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as RecordedInput];
      } catch {
        return [];
      }
    });
}

/** One event as the bridge writes it (.macs/events/*.jsonl). */
export interface MacsEvent {
  ts?: string;
  type: string;
  agent: string;
  requestId?: string;
  data?: Record<string, unknown>;
}

/** Read every event of a home (all agents), in file order. */
export function readAllEvents(home: string): MacsEvent[] {
  const dir = path.join(home, '.macs', 'events');
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir)
    .sort()
    .filter((f) => f.endsWith('.jsonl'));
  return files.flatMap((f) =>
    readFileSync(path.join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as MacsEvent),
  );
}

/** The events of a home of one type, and of one request when `requestId` is given. */
export function findEvents(
  home: string,
  type: string,
  requestId?: string,
): MacsEvent[] {
  return readAllEvents(home).filter(
    (e) => e.type === type && (!requestId || e.requestId === requestId),
  );
}

/**
 * Wait until a home has at least `count` (default 1) events of `type` (and of
 * `requestId`, when given); resolves with them.
 */
export function waitForEvents(
  home: string,
  type: string,
  options: {
    requestId?: string;
    count?: number;
    timeout?: number;
    message?: string;
  } = {},
): Promise<MacsEvent[]> {
  const { requestId, count = 1 } = options;
  return waitFor(
    () => {
      const found = findEvents(home, type, requestId);
      return found.length >= count ? found : undefined;
    },
    {
      timeout: options.timeout,
      message: options.message ?? `event ${type} ${requestId ?? ''} x${count}`,
    },
  );
}
