import type { MacsConfig } from '../config/schema.js';
import type { CommonOptions } from './options.js';

/** The options of `macs bridge` (one pane, or `--all`). */
export interface BridgeOptions extends CommonOptions {
  workerPane?: string;
  agent?: string;
  preset?: string;
  backend?: string;
  split?: boolean;
  quiet?: boolean;
  /** `--exec`, repeatable: one argument each (or a JSON array). */
  exec?: string[];
  execPreset?: string;
  controllerPane?: string;
  /** Supervise every agent of the session (`macs bridge --all`). */
  all?: boolean;
  /** Heuristic triggers (SPEC §2): `--heuristics`. */
  heuristics?: boolean;
  /** Run unattended (docs/unattended.md): `--non-interactive`. */
  nonInteractive?: boolean;
}

/** `--backend` when it is not given: what `--exec` or `--controller-pane` alone imply. */
export function impliedBackend(
  opts: BridgeOptions,
): MacsConfig['backend'] | undefined {
  if (opts.backend) return opts.backend as MacsConfig['backend'];
  const exec = Boolean(opts.exec?.length || opts.execPreset);
  const controller = Boolean(opts.controllerPane);
  if (exec && !controller) return 'exec';
  if (controller && !exec) return 'interactive';
  return undefined;
}
