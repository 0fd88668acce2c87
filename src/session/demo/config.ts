/**
 * The agents of `macs start --demo`: the scripted controller and worker,
 * run with the node that runs macs.
 *
 * The demo's controller answers through the interactive backend: it is
 * started with `--via interactive` and answers the requests pasted into its
 * pane, as a controller agent would. `macs start --demo --backend file` runs
 * it as a file-inbox answerer instead.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { builtFile, packageDir } from '../../config/package.js';
import type { AgentConfig, BackendName } from '../../config/schema.js';

export const DEMO_BACKEND: BackendName = 'interactive';
export const DEMO_WORKER = 'worker-1';
export const DEMO_CONTROLLER = 'controller';
/** `macs start --demo --detach` waits this long for the demo to finish. */
export const DEMO_WAIT_MS = 60_000;

/** A fresh id per demo run, so request ids never repeat across runs (dedup). */
export function newDemoRunId(): string {
  return randomBytes(2).toString('hex');
}

export function demoResultFile(runtimeDir: string, runId: string): string {
  return path.join(runtimeDir, 'demo', `${runId}.json`);
}

/**
 * How to run one of the demo scripts: the built `dist/session/demo/<name>.js`
 * (an entry of its own, scripts/build.mjs), or, when macs runs from its
 * TypeScript sources, the `.ts` with the same loader flags (tsx) as this
 * process.
 */
export function demoScriptArgv(name: 'worker' | 'controller'): string[] {
  const js = builtFile(path.join('session', 'demo', `${name}.js`));
  if (js) return [process.execPath, js];
  const ts = path.join(packageDir(), 'src', 'session', 'demo', `${name}.ts`);
  return [process.execPath, ...process.execArgv, ts];
}

/** The demo's controller and worker as config entries. */
export function buildDemoAgents(options: {
  home: string;
  runId: string;
  resultFile: string;
  backend?: BackendName;
}): { controller: AgentConfig; workers: AgentConfig[] } {
  const via =
    (options.backend ?? DEMO_BACKEND) === 'interactive'
      ? 'interactive'
      : 'file';
  return {
    controller: {
      name: DEMO_CONTROLLER,
      preset: 'generic',
      command: [
        ...demoScriptArgv('controller'),
        '--via',
        via,
        '--agents',
        DEMO_WORKER,
        '--home',
        options.home,
      ],
      env: {},
      worktree: false,
      prompt: false,
    },
    workers: [
      {
        name: DEMO_WORKER,
        preset: 'generic',
        command: [
          ...demoScriptArgv('worker'),
          '--agent',
          DEMO_WORKER,
          '--run',
          options.runId,
          '--result',
          options.resultFile,
          '--home',
          options.home,
        ],
        env: {},
        worktree: false,
        prompt: true,
      },
    ],
  };
}
