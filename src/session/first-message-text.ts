import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hashBody } from '../protocol/ids.js';
import { createBridgeParser } from '../protocol/request-parser.js';

/** The first message, ready to type, and what its echo would look like to the bridge. */
export interface FirstMessage {
  text: string;
  /** Body hashes of the example request blocks in the text. */
  exampleHashes: Set<string>;
}

const EXAMPLE_ID = /(<<CONTROLLER_REQUEST\b[^<>\n]*?\bid=)([A-Za-z0-9._:-]+)/g;

/**
 * Pure: the worker protocol as a first message. Agents show what they were
 * sent, so the example request block in it comes back on the worker's
 * screen, where the bridge would take it for a real request. Two guards:
 * the example's id is replaced by a one-off id (so the echo never uses up an
 * id such as `q-1` that the worker will pick for its own first request), and
 * the body hashes of the examples are returned so the bridge can close an
 * echoed example without asking the controller.
 */
export function prepareFirstMessage(
  agent: string,
  protocol: string,
  exampleId = `example-${randomBytes(3).toString('hex')}`,
  role: 'worker' | 'controller' = 'worker',
): FirstMessage {
  const text = [
    role === 'worker'
      ? `macs: you are ${agent}, a worker agent supervised by macs. Read this and follow it for the rest of the session; then wait for your task.`
      : `macs: you are ${agent}, the controller of the worker agents macs supervises. Read this and follow it for the rest of the session.`,
    '',
    protocol.trim().replace(EXAMPLE_ID, `$1${exampleId}`),
  ].join('\n');
  const parser = createBridgeParser({});
  const exampleHashes = new Set<string>();
  for (const event of [...parser.push(`${text}\n`), ...parser.flush()])
    if (event.type === 'request') exampleHashes.add(hashBody(event.body));
  return { text, exampleHashes };
}

/** Read a prompt file and prepare it for one agent. */
export async function loadFirstMessage(
  agent: string,
  file: string,
  role: 'worker' | 'controller' = 'worker',
): Promise<FirstMessage> {
  return prepareFirstMessage(
    agent,
    await readFile(file, 'utf8'),
    undefined,
    role,
  );
}
