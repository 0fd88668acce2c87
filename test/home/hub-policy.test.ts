import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/config/policy-defaults.js';
import { ConfigError } from '../../src/errors.js';
import {
  hubPolicyPath,
  readHubPolicy,
  removeHubPolicy,
  writeHubPolicy,
} from '../../src/home/hub-policy.js';

describe("the hub's policy file on a host", () => {
  let home: string;
  let runtime: string;
  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-hub-policy-'));
    runtime = path.join(home, '.macs');
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('is kept private under .macs/, read back as written, and removed', async () => {
    expect(await readHubPolicy(runtime)).toBeUndefined();
    const policy = { ...defaultPolicy(), askTimeoutSec: 33 };
    await writeHubPolicy(runtime, policy);
    const file = hubPolicyPath(runtime);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(runtime).mode & 0o777).toBe(0o700);
    const read = await readHubPolicy(runtime);
    expect(read?.file).toBe(file);
    expect(JSON.parse(read?.text ?? '')).toEqual(policy);
    await removeHubPolicy(runtime);
    expect(existsSync(file)).toBe(false);
    // Removing none is no error.
    await removeHubPolicy(runtime);
  });

  it('is never taken from a file others may write, a link or a folder', async () => {
    await writeHubPolicy(runtime, defaultPolicy());
    const file = hubPolicyPath(runtime);
    chmodSync(file, 0o666);
    await expect(readHubPolicy(runtime)).rejects.toThrow(
      `${file} can be written by every user (mode 666); its rules were not used`,
    );
    rmSync(file);
    const planted = path.join(home, 'planted.json');
    writeFileSync(planted, JSON.stringify(defaultPolicy()), { mode: 0o600 });
    symlinkSync(planted, file);
    await expect(readHubPolicy(runtime)).rejects.toThrow(
      `${file} is not a regular file; its rules were not used`,
    );
    rmSync(file);
    mkdirSync(file);
    await expect(readHubPolicy(runtime)).rejects.toBeInstanceOf(ConfigError);
  });
});
