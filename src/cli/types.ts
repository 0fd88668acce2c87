/**
 * Types shared by the modules of a command (send.ts and send-remote.ts,
 * status.ts and status-live.ts): kept here so that none of them imports
 * another only for a type (no import cycle).
 */
import type { RunEditor } from '../backends/editor.js';
import type { CommonOptions } from './options.js';

export interface SendOptions extends CommonOptions {
  preset?: string;
  /** Seconds to wait for the agent to be idle (default: deliverTimeoutSec). */
  timeout?: string;
  json?: boolean;
}

export interface StatusOptions extends CommonOptions {
  json?: boolean;
  watch?: boolean;
}

/** The terminal the live view draws on. */
export interface StatusTerminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** Both stdin and stdout are terminals. */
  interactive: boolean;
}

/** What `runStatus` needs beyond the common deps (tests inject fakes). */
export interface StatusDeps {
  terminal?: StatusTerminal;
  runEditor?: RunEditor;
}
