import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import {
  buildId,
  configCacheKey,
  configCachePath,
  loadHookConfig,
} from '../../src/hooks/config-cache.js';
import { ConfigError } from '../../src/errors.js';
import { resolveHomePaths, type HomePaths } from '../../src/home/paths.js';
import { VERSION } from '../../src/version.js';

/** The ConfigError a load throws (the test fails when it throws none). */
async function thrown(load: Promise<unknown>): Promise<ConfigError> {
  try {
    await load;
  } catch (error) {
    return error as ConfigError;
  }
  throw new Error('expected the load to throw');
}

describe('configCacheKey', () => {
  const base = {
    build: 'b1',
    file: '/h/macs.config.json',
    explicit: false,
    text: '{}',
  };

  it('holds the MACS_* variables the config reads, and no others', () => {
    const key = configCacheKey({
      ...base,
      env: {
        MACS_SUBMIT_RETRIES: '3',
        MACS_BACKEND: '',
        MACS_AGENT: 'w1',
        MACS_HOME: '/h',
        PATH: '/bin',
      },
    });
    expect(key).toEqual({
      ...base,
      hubPolicy: null,
      env: { MACS_SUBMIT_RETRIES: '3', MACS_BACKEND: '' },
    });
  });

  it('says "no file" as null', () => {
    expect(configCacheKey({ ...base, text: undefined, env: {} }).text).toBe(
      null,
    );
  });
});

describe('buildId', () => {
  it("is macs's version and this module's file", () => {
    expect(buildId()).toMatch(new RegExp(`^${VERSION.replace(/\./g, '\\.')} `));
    expect(buildId()).toBe(buildId());
  });
});

describe('loadHookConfig', () => {
  let paths: HomePaths;
  let cache: string;
  const writeConfig = (value: unknown) =>
    writeFileSync(
      paths.config,
      typeof value === 'string' ? value : JSON.stringify(value),
    );
  const readCache = () =>
    JSON.parse(readFileSync(cache, 'utf8')) as {
      key: Record<string, unknown>;
      config: Record<string, unknown>;
    };
  // Mark the cached entry, so a result read from the cache can be told
  // from one loaded again.
  const markCache = () => {
    const entry = readCache();
    entry.config.contextLines = 777;
    writeFileSync(cache, JSON.stringify(entry));
  };

  beforeEach(() => {
    paths = resolveHomePaths(
      mkdtempSync(path.join(os.tmpdir(), 'macs-config-cache-')),
    );
    mkdirSync(paths.runtime, { mode: 0o700 });
    cache = configCachePath(paths);
  });
  afterEach(() => rmSync(paths.home, { recursive: true, force: true }));

  it("returns loadConfig's config, and keeps it private under .macs/cache/", async () => {
    const value = {
      workers: [{ name: 'w1', pane: '%3' }],
      presets: { mine: { extends: 'claude' } },
      policy: { deny: ['@default', 'shutdown'], askTimeoutSec: 30 },
      limits: { maxPendingRequests: 5 },
    };
    writeConfig(value);
    const env = { MACS_SUBMIT_RETRIES: '4' };
    const expected = (await loadConfig({ home: paths.home, env })).config;
    expect(await loadHookConfig(paths, { env })).toEqual(expected);
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(cache)).mode & 0o777).toBe(0o700);
    expect(readCache().config).toEqual(expected);
    // Read back from the cache: the same config.
    expect(await loadHookConfig(paths, { env })).toEqual(expected);
  });

  it('reads the cache while nothing it depends on changed', async () => {
    writeConfig({ contextLines: 10 });
    await loadHookConfig(paths, { env: {} });
    markCache();
    // MACS_AGENT and other variables the config does not read do not count.
    const config = await loadHookConfig(paths, {
      env: { MACS_AGENT: 'w2', MACS_ROLE: 'worker' },
    });
    expect(config.contextLines).toBe(777);
  });

  it('never takes a cache others may write, or a link to one', async () => {
    writeConfig({ contextLines: 10 });
    await loadHookConfig(paths, { env: {} });
    markCache();
    chmodSync(cache, 0o666);
    expect((await loadHookConfig(paths, { env: {} })).contextLines).toBe(10);
    // The full load wrote a good one over it.
    expect(statSync(cache).mode & 0o777).toBe(0o600);

    markCache();
    const planted = path.join(paths.home, 'planted.json');
    renameSync(cache, planted);
    symlinkSync(planted, cache);
    expect((await loadHookConfig(paths, { env: {} })).contextLines).toBe(10);
  });

  it('loads again when the file changes, even to the same size', async () => {
    writeConfig({ contextLines: 10 });
    await loadHookConfig(paths, { env: {} });
    markCache();
    writeConfig({ contextLines: 20 });
    expect((await loadHookConfig(paths, { env: {} })).contextLines).toBe(20);
    expect(readCache().config.contextLines).toBe(20);
  });

  it('loads again when a MACS_* variable the config reads changes', async () => {
    writeConfig({});
    await loadHookConfig(paths, { env: { MACS_SUBMIT_RETRIES: '1' } });
    markCache();
    const config = await loadHookConfig(paths, {
      env: { MACS_SUBMIT_RETRIES: '2' },
    });
    expect(config.submitRetries).toBe(2);
    expect(config.contextLines).toBe(40);
  });

  it('loads again for another config file, or when the file goes', async () => {
    writeConfig({ contextLines: 10 });
    writeFileSync(
      path.join(paths.home, 'other.json'),
      JSON.stringify({ contextLines: 30 }),
    );
    await loadHookConfig(paths, { env: {} });
    markCache();
    const other = await loadHookConfig(paths, {
      path: 'other.json',
      env: {},
    });
    expect(other.contextLines).toBe(30);
    rmSync(paths.config);
    expect((await loadHookConfig(paths, { env: {} })).contextLines).toBe(40);
  });

  it('loads again when the cache is not JSON, or from another build', async () => {
    writeConfig({ contextLines: 10 });
    await loadHookConfig(paths, { env: {} });
    writeFileSync(cache, '{ torn');
    expect((await loadHookConfig(paths, { env: {} })).contextLines).toBe(10);
    const entry = readCache();
    entry.key.build = 'an older macs';
    entry.config.contextLines = 777;
    writeFileSync(cache, JSON.stringify(entry));
    expect((await loadHookConfig(paths, { env: {} })).contextLines).toBe(10);
  });

  // A broken config is reported on every call as loadConfig reports it; a
  // good config cached before must not be served in its place.
  it.each([
    ['not JSON', '{ nope'],
    ['a wrong type', JSON.stringify({ contextLines: 'many' })],
    ['an unknown key', JSON.stringify({ contextLine: 3 })],
    ['a bad policy rule', JSON.stringify({ policy: { deny: ['('] } })],
  ])('throws what loadConfig throws for %s', async (_, text) => {
    writeConfig({ contextLines: 10 });
    await loadHookConfig(paths, { env: {} });
    writeConfig(text);
    const expected = await thrown(loadConfig({ home: paths.home, env: {} }));
    expect(expected).toBeInstanceOf(ConfigError);
    for (let i = 0; i < 2; i += 1) {
      const error = await thrown(loadHookConfig(paths, { env: {} }));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toBe(expected.message);
      expect(error.hint).toBe(expected.hint);
    }
    expect(readCache().config.contextLines).toBe(10);
  });

  it('throws what loadConfig throws for a bad variable or a missing --config', async () => {
    writeConfig({});
    await loadHookConfig(paths, { env: {} });
    const env = { MACS_SUBMIT_RETRIES: 'lots' };
    await expect(loadHookConfig(paths, { env })).rejects.toThrow(
      "environment MACS_SUBMIT_RETRIES: expected an integer, received 'lots'",
    );
    const missing = await thrown(
      loadConfig({ home: paths.home, path: 'nope.json' }),
    );
    const error = await thrown(
      loadHookConfig(paths, { path: 'nope.json', env: {} }),
    );
    expect(error.message).toBe(missing.message);
    expect(error.message).toMatch(/^cannot read config file .*nope\.json: /);
    expect(error.hint).toBe(missing.hint);
  });

  it("follows the hub's policy file: loads again when it comes, changes or goes, and never takes one others may write", async () => {
    writeConfig({ policy: { deny: ['own-rule'] } });
    const names = async () =>
      (await loadHookConfig(paths, { env: {} })).policy.deny.map((r) => r.name);
    expect(await names()).toEqual(['deny-0']);
    const hubFile = path.join(paths.runtime, 'hub-policy.json');
    const hubPolicy = (name: string) =>
      JSON.stringify({
        deny: [{ name, pattern: 'curl' }],
        ask: [],
        allow: [],
        askTimeoutSec: 30,
        askDefault: 'deny',
      });
    writeFileSync(hubFile, hubPolicy('hub-1'), { mode: 0o600 });
    expect(await names()).toEqual(['hub-1']);
    markCache();
    expect((await loadHookConfig(paths, { env: {} })).contextLines).toBe(777);
    writeFileSync(hubFile, hubPolicy('hub-2'));
    expect(await names()).toEqual(['hub-2']);
    chmodSync(hubFile, 0o666);
    await expect(loadHookConfig(paths, { env: {} })).rejects.toThrow(
      /hub-policy\.json can be written by every user/,
    );
    rmSync(hubFile);
    expect(await names()).toEqual(['deny-0']);
  });

  it('writes no cache, and creates no .macs/, in a folder without one', async () => {
    rmSync(paths.runtime, { recursive: true });
    writeConfig({ contextLines: 10 });
    expect((await loadHookConfig(paths, { env: {} })).contextLines).toBe(10);
    expect(existsSync(paths.runtime)).toBe(false);
  });
});
