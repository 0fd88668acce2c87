// Appeals (issue 32): an appeal goes to the controller with the denied call
// it names (else the agent's latest denial) and the recent transcript.
// Strategy: the denial file and a Claude Code-shaped transcript in a
// temporary home, read by appealDetails as the bridge does.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appealDetails } from '../../../src/bridge/requests/appeal.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { recordDenial } from '../../../src/state/denials.js';

describe('an appeal carries the denied call and the transcript', () => {
  let paths: HomePaths;
  beforeEach(() => {
    paths = resolveHomePaths(mkdtempSync(path.join(os.tmpdir(), 'macs-ap-')));
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  it('names the call it appeals against, with the transcript', async () => {
    const transcript = path.join(paths.home, 't.jsonl');
    writeFileSync(
      transcript,
      [
        { type: 'user', message: { content: 'clean the build folder' } },
        {
          type: 'assistant',
          message: {
            content: [
              {
                type: 'tool_use',
                name: 'Bash',
                input: { command: 'rm -rf /' },
              },
            ],
          },
        },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
    const at = '2025-06-01T12:00:00.000Z';
    await recordDenial(paths, 'w1', {
      at,
      tool: 'Bash',
      subject: 'rm -rf /',
      fingerprint: 'aaaaaaaaaaaaaaaa',
      rule: 'rm-everything',
      transcript,
    });
    await recordDenial(paths, 'w1', {
      at,
      tool: 'Read',
      subject: '.env',
      fingerprint: 'bbbbbbbbbbbbbbbb',
      rule: 'secrets',
    });
    const named = await appealDetails(paths, 'w1', 'aaaaaaaa');
    expect(named.attributes).toEqual({
      call: 'aaaaaaaaaaaaaaaa',
      tool: 'Bash',
      rule: 'rm-everything',
    });
    expect(named.section).toContain('command: rm -rf /');
    expect(named.section).toContain('user: clean the build folder');
    expect(named.section).toContain(
      'assistant: [tool Bash] {"command":"rm -rf /"}',
    );
    const latest = await appealDetails(paths, 'w1', undefined);
    expect(latest.attributes.call).toBe('bbbbbbbbbbbbbbbb');
    const none = await appealDetails(paths, 'w1', 'cccccccc');
    expect(none.attributes).toEqual({});
    expect(none.section).toMatch(/nothing to let through/);
  });
});
