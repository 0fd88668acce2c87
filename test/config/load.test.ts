import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { PolicySchema } from '../../src/config/policy.js';
import { ConfigError } from '../../src/errors.js';

describe('loadConfig', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-config-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('gives the defaults when there is no file', async () => {
    const { config, file } = await loadConfig({ home, env: {} });
    expect(file).toBeUndefined();
    expect(config).toMatchObject({
      backend: 'file',
      maxBlockLines: 500,
      maxBlockBytes: 65536,
      dedupWindowSec: 3600,
    });
  });

  it('reads a real file, and flags win over env which win over the file', async () => {
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({ dedupWindowSec: 10, submitRetries: 5, backend: 'file' }),
    );
    const { config, file } = await loadConfig({
      home,
      env: { MACS_DEDUP_WINDOW_SEC: '20' },
      flags: { submitRetries: 1 },
    });
    expect(file).toBe(path.join(home, 'macs.config.json'));
    expect(config.dedupWindowSec).toBe(20);
    expect(config.submitRetries).toBe(1);
  });

  it.each([
    [
      { maxBlockLines: 'many' },
      /maxBlockLines: expected number, received string/,
    ],
    [
      { workers: [{ name: 42 }] },
      /workers\.0\.name: expected string, received number/,
    ],
    [{ backend: 'carrier-pigeon' }, /backend: .*file.*exec.*interactive/],
    [{ colour: 'blue' }, /unknown key 'colour'/],
  ])(
    'a bad file exits 2 naming the file, the key and what was expected (%j)',
    async (content, pattern) => {
      writeFileSync(
        path.join(home, 'macs.config.json'),
        JSON.stringify(content),
      );
      const error = await loadConfig({ home, env: {} }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).exitCode).toBe(2);
      expect((error as ConfigError).message).toContain(
        path.join(home, 'macs.config.json'),
      );
      expect((error as ConfigError).message).toMatch(pattern);
    },
  );

  it('reports broken JSON with the file name', async () => {
    writeFileSync(path.join(home, 'macs.config.json'), '{ "backend": ');
    await expect(loadConfig({ home, env: {} })).rejects.toThrow(
      /macs\.config\.json: not valid JSON/,
    );
  });

  it('refuses a missing --config file rather than falling back', async () => {
    await expect(
      loadConfig({ home, env: {}, path: 'nope.json' }),
    ).rejects.toThrow(/cannot read config file/);
  });

  it('reads the file through readFile when given one, and reports its errors as its own', async () => {
    const read: string[] = [];
    const { config, file } = await loadConfig({
      home,
      env: {},
      readFile: (f) => {
        read.push(f);
        return Promise.resolve('{"contextLines": 7}');
      },
    });
    const expected = path.join(home, 'macs.config.json');
    expect(read).toEqual([expected]);
    expect(file).toBe(expected);
    expect(config.contextLines).toBe(7);
    await expect(
      loadConfig({
        home,
        env: {},
        path: 'x.json',
        readFile: () => Promise.reject(new Error('ENOENT: gone')),
      }),
    ).rejects.toThrow(
      `cannot read config file ${path.join(home, 'x.json')}: ENOENT: gone`,
    );
  });

  it('rejects a non-integer environment value', async () => {
    await expect(
      loadConfig({ home, env: { MACS_SUBMIT_RETRIES: 'lots' } }),
    ).rejects.toThrow(/MACS_SUBMIT_RETRIES/);
  });

  it("puts a hub's policy in place of the file's; a bad one is an error naming its file", async () => {
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({ contextLines: 9, policy: { deny: ['own-rule'] } }),
    );
    // What the hub sends: its policy as it parsed it, which parses again
    // to the same.
    const hub = PolicySchema.parse({
      deny: ['@default', { name: 'no-curl', tool: '^Bash$', pattern: 'curl' }],
      allow: ['^ls\\b'],
      askTimeoutSec: 45,
    });
    expect(PolicySchema.parse(JSON.parse(JSON.stringify(hub)))).toEqual(hub);
    const file = path.join(home, '.macs', 'hub-policy.json');
    const loaded = await loadConfig({
      home,
      env: {},
      hubPolicy: { file, text: JSON.stringify(hub) },
    });
    expect(loaded.config.policy).toEqual(hub);
    expect(loaded.hubPolicy).toBe(true);
    expect(loaded.config.contextLines).toBe(9);
    const own = await loadConfig({ home, env: {} });
    expect(own.config.policy.deny.map((r) => r.pattern)).toEqual(['own-rule']);
    expect(own.hubPolicy).toBeUndefined();

    const bad = (text: string) =>
      loadConfig({ home, env: {}, hubPolicy: { file, text } });
    await expect(bad(JSON.stringify({ deny: ['('] }))).rejects.toThrow(
      `${file}: the hub's policy is not valid:\n  deny.0`,
    );
    await expect(bad('{ torn')).rejects.toThrow(
      `${file}: the hub's policy is not JSON`,
    );
  });
});
