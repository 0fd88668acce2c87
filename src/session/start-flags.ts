/**
 * What `macs start`'s flags add to the config (docs/commands.md): the
 * backend, unattended, the agents of `--worker`/`--controller`; with
 * `--demo`, the demo's own scripted agents and backend and no routes to
 * other answerers, so the demo is predictable.
 */
import type { BackendName, MacsConfig } from '../config/schema.js';
import {
  DEMO_BACKEND,
  buildDemoAgents,
  demoResultFile,
  newDemoRunId,
} from './demo/config.js';
import { agentsFromFlags } from './plan.js';

export interface StartFlags {
  demo?: boolean;
  backend?: BackendName;
  nonInteractive?: boolean;
  worker?: string[];
  controller?: string;
}

/** A demo's run: its id and the file its scripted worker writes at the end. */
export interface DemoRun {
  runId: string;
  result: string;
}

/** The config the flags give, and the demo's run with `--demo`. */
export function startFlags(
  opts: StartFlags,
  paths: { home: string; runtime: string },
): { flags: Partial<MacsConfig>; demo?: DemoRun } {
  const { backend } = opts;
  if (opts.demo) {
    const runId = newDemoRunId();
    const demo = { runId, result: demoResultFile(paths.runtime, runId) };
    const demoBackend = backend ?? DEMO_BACKEND;
    const agents = buildDemoAgents({
      home: paths.home,
      runId,
      resultFile: demo.result,
      backend: demoBackend,
    });
    const flags: Partial<MacsConfig> = {
      backend: demoBackend,
      routes: {},
      fallback: ['file'],
      controller: agents.controller,
      workers: agents.workers,
    };
    return { flags, demo };
  }
  return {
    flags: {
      ...(backend ? { backend } : {}),
      ...(opts.nonInteractive ? { nonInteractive: true } : {}),
      ...agentsFromFlags({
        ...(opts.worker ? { workers: opts.worker } : {}),
        ...(opts.controller ? { controller: opts.controller } : {}),
      }),
    },
  };
}
