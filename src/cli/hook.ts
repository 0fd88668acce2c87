import { runHook } from '../hooks/runner.js';
import type { CliDeps } from './options.js';

export interface HookOptions {
  home?: string;
  agent?: string;
  config?: string;
}

/**
 * `macs hook <event> [payload]`: what agent hooks call. Always exits 0: the
 * reply (if any) is the only thing printed, and every problem is an `error`
 * event instead (docs/hooks.md).
 */
export async function runHookCommand(
  event: string,
  payload: string | undefined,
  opts: HookOptions,
  deps: Pick<CliDeps, 'output' | 'env' | 'cwd' | 'readStdin' | 'stdinIsTTY'>,
): Promise<number> {
  await runHook(
    {
      event,
      ...(payload !== undefined ? { payload } : {}),
      ...(opts.home ? { home: opts.home } : {}),
      ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
      ...(opts.config ? { config: opts.config } : {}),
    },
    {
      env: deps.env,
      cwd: deps.cwd,
      readStdin: deps.readStdin,
      stdinIsTTY: deps.stdinIsTTY,
      write: (line) => deps.output.out(line),
    },
  );
  return 0;
}
