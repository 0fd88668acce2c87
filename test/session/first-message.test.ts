import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashBody } from '../../src/protocol/ids.js';
import { createBridgeParser } from '../../src/protocol/request-parser.js';
import { prepareFirstMessage } from '../../src/session/first-message-text.js';

const protocol = readFileSync(
  path.join(import.meta.dirname, '../../prompts/worker.md'),
  'utf8',
);

describe('the first message (prompts/worker.md)', () => {
  it('names the agent, keeps the protocol, and gives the example a one-off id', () => {
    const message = prepareFirstMessage('worker-1', protocol, 'example-abc');
    expect(message.text.split('\n', 1)[0]).toMatch(
      /^macs: you are worker-1, a worker agent/,
    );
    expect(message.text).toContain(
      '<<CONTROLLER_REQUEST id=example-abc type=question>>',
    );
    expect(message.text).not.toMatch(/id=q-1\b/);
    expect(message.exampleHashes.size).toBe(1);
  });

  it('recognises the echo of the example, as an agent shows it, by its body', () => {
    const message = prepareFirstMessage('worker-1', protocol);
    // An agent UI echoing the message with decoration around each line.
    const echoed = message.text
      .split('\n')
      .map((line) => `  │ ${line}`)
      .join('\n');
    const parser = createBridgeParser({});
    const found = [...parser.push(`${echoed}\n`), ...parser.flush()].filter(
      (e) => e.type === 'request',
    );
    expect(found).toHaveLength(1);
    const body = found[0]?.type === 'request' ? found[0].body : '';
    expect(message.exampleHashes.has(hashBody(body))).toBe(true);
  });
});
