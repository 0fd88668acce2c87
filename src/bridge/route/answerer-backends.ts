import path from 'node:path';
import { createContextCollector } from '../../backends/context-collector.js';
import { createExecBackend, runExecCommand } from '../../backends/exec.js';
import type { ExecChoice } from '../../backends/exec-presets.js';
import { createFileBackend } from '../../backends/file.js';
import { createInteractiveBackend } from '../../backends/interactive.js';
import { createTurnTickets } from '../../backends/turns.js';
import type { AttemptBackend } from '../../backends/types.js';
import { loadPrompt } from '../../config/prompts.js';
import type { MacsConfig } from '../../config/schema.js';
import { ConfigError } from '../../errors.js';
import type { EventSink } from '../../events/log.js';
import type { Logger } from '../../log/logger.js';
import type { HomePaths } from '../../home/paths.js';
import { readPauseReason } from '../../state/pause-reason.js';
import type { AgentStateName } from '../../config/states.js';
import type { TmuxClient } from '../../tmux/client.js';
import type { Deliverer, DeliveryRules } from '../../typist/typist.js';
import { createAttention, type Attention } from './attention.js';
import { createDispatcher, type Dispatcher } from './dispatch-backend.js';
import { findMissingBackends } from './router.js';

/** The live controller pane and how to type into it and read its state. */
export interface ControllerPane {
  pane: string;
  preset: string;
  rules: DeliveryRules;
  classify: (screen: string) => AgentStateName;
}

export interface AnswerersOptions {
  config: MacsConfig;
  paths: HomePaths;
  tmux: TmuxClient;
  events: EventSink;
  log: Logger;
  deliverer: Deliverer;
  /** The exec command, when this bridge runs the exec backend. */
  exec?: ExecChoice;
  /** The controller pane, when this bridge runs the interactive backend. */
  controller?: ControllerPane;
  /** When the bridge's session began (epoch ms), for the loop guards. */
  sessionSince?: number;
}

export interface Answerers {
  dispatcher: Dispatcher;
  /** Calls a person; feed it the bridge's events (observe) for state changes. */
  attention: Attention;
  /** One line per backend, for the start-up message. */
  describe: string[];
}

/** A file-name-safe key for a controller pane on a tmux server. */
function controllerKey(socket: string | undefined, pane: string): string {
  return `${socket ?? 'default'}-${pane.replace(/^%/, '')}`.replace(
    /[^A-Za-z0-9._-]/g,
    '_',
  );
}

/**
 * Build the backends a bridge runs and the dispatcher in front of them. The
 * file backend is always there; exec when a command is given; interactive
 * when a controller pane is. A config that routes to a backend this bridge
 * does not run is an error (exit 2), named by key.
 */
export async function createAnswerers(
  options: AnswerersOptions,
): Promise<Answerers> {
  const { config, paths, tmux, events, log } = options;
  const describe: string[] = [
    'file: inbox/ and outbox/ (macs respond <id> "...")',
  ];
  const file = createFileBackend({
    paths,
    events,
    log,
    backstopMs: config.backstopMs,
  });
  let exec: AttemptBackend | undefined;
  if (options.exec) {
    const prompt = await loadPrompt('controller', { home: paths.home });
    exec = createExecBackend({
      argv: options.exec.argv,
      timeoutMs: config.execTimeoutSec * 1000,
      ...(prompt ? { prompt: prompt.text } : {}),
      home: paths.home,
      runDir: path.join(paths.runtime, 'exec'),
      events,
      log: log.child({ backend: 'exec' }),
    });
    describe.push(
      `exec: ${JSON.stringify(options.exec.argv)} (from ${options.exec.from}; timeout ${config.execTimeoutSec}s; prompt ${prompt ? path.relative(paths.home, prompt.file) || prompt.file : 'none'})`,
    );
  }
  let interactive: AttemptBackend | undefined;
  if (options.controller) {
    const { pane } = options.controller;
    interactive = createInteractiveBackend({
      pane,
      tmux,
      deliverer: options.deliverer,
      rules: options.controller.rules,
      classify: options.controller.classify,
      events,
      log: log.child({ backend: 'interactive', controller: pane }),
      timeoutMs: config.controllerTimeoutSec * 1000,
      pollMs: config.pollIntervalMs,
      turns: createTurnTickets(
        path.join(
          paths.runtime,
          'controllers',
          controllerKey(tmux.socket, pane),
        ),
      ),
    });
    describe.push(
      `interactive: controller pane ${pane} (preset ${options.controller.preset}; timeout ${config.controllerTimeoutSec}s)`,
    );
  }
  const attention = createAttention({
    paths,
    config: config.attention,
    events,
    log: log.child({ component: 'attention' }),
    tmux,
    runExec: runExecCommand,
  });
  if (config.attention.notify)
    describe.push(
      `attention: runs ${JSON.stringify(config.attention.notify)} when a person is needed`,
    );
  const dispatcher = createDispatcher({
    config,
    paths,
    events,
    log,
    file,
    attention,
    ...(exec ? { exec } : {}),
    ...(interactive ? { interactive } : {}),
    ...(options.sessionSince !== undefined
      ? { sessionSince: options.sessionSince }
      : {}),
    collectContext: createContextCollector({
      tmux,
      contextLines: config.contextLines,
      log,
      readPause: (agent) => readPauseReason(paths, agent),
    }),
  });
  const missing = findMissingBackends(config, dispatcher.available);
  if (missing.length > 0) {
    const first = missing[0];
    const need = (name: string) =>
      name === 'exec'
        ? 'an exec command (--exec, --exec-preset, or exec/execPreset in the config)'
        : 'a controller pane (--controller-pane %N, or controller.pane in the config)';
    throw new ConfigError(
      `${missing.map((m) => `${m.where} names '${m.backend}'`).join('; ')}, but this bridge has no ${first ? need(first.backend) : 'such backend'}`,
      {
        hint: 'give the missing backend, or change backend/routes/fallback (docs/backends.md)',
      },
    );
  }
  return { dispatcher, describe, attention };
}
