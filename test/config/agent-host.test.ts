import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { localWorkers } from '../../src/config/workers.js';
import {
  formatFromHub,
  mergeHubWorkers,
  readFromHub,
} from '../../src/session/from-hub.js';
import type { CliDeps } from '../../src/cli/options.js';
import { planAgents } from '../../src/session/plan.js';

const HOSTS = { gpu1: { ssh: 'dev@gpu1', home: '/srv/proj' } };

describe('the "host" key of a worker (docs/remote.md)', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-config-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('refuses a host that "hosts" does not name, with the key and the hosts', async () => {
    writeFileSync(
      path.join(home, 'macs.config.json'),
      JSON.stringify({
        hosts: HOSTS,
        workers: [{ name: 'a' }, { name: 'b', host: 'gpu9' }],
      }),
    );
    await expect(loadConfig({ home, env: {} })).rejects.toThrow(
      /workers\.1\.host: no host 'gpu9' under "hosts" \(hosts: gpu1\)/,
    );
  });

  it('refuses a host on the controller, and pane or budget on a host worker', () => {
    const parsed = ConfigSchema.safeParse({
      hosts: HOSTS,
      controller: { name: 'c', host: 'gpu1' },
      workers: [{ name: 'w', host: 'gpu1', pane: '%3', budget: { usd: 1 } }],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.')).sort()).toEqual([
      'controller.host',
      'workers.0.budget',
      'workers.0.pane',
    ]);
  });

  it('leaves host workers out of what this machine starts, and gives them to their host', () => {
    const config = ConfigSchema.parse({
      hosts: HOSTS,
      workers: [
        { name: 'here', command: 'sh' },
        { name: 'there', host: 'gpu1', command: ['train'], prompt: false },
      ],
    });
    expect(localWorkers(config).map((w) => w.name)).toEqual(['here']);
    expect(planAgents(config, home).map((a) => a.name)).toEqual(['here']);
    const sent = JSON.parse(formatFromHub(config, 'gpu1')) as {
      workers: unknown[];
      policy: unknown;
    };
    expect(sent.workers).toEqual([
      {
        name: 'there',
        command: ['train'],
        prompt: false,
        env: {},
        worktree: false,
      },
    ]);
    // The hub's policy goes to every host, with or without workers there.
    expect(sent.policy).toEqual(config.policy);
    expect(JSON.parse(formatFromHub(config, 'gpu2'))).toEqual({
      workers: [],
      policy: config.policy,
    });
  });

  it('on the host: reads back what the hub sent, the policy as the hub parsed it', async () => {
    const config = ConfigSchema.parse({
      hosts: HOSTS,
      policy: {
        deny: [
          '@default',
          { name: 'no-curl', tool: '^Bash$', pattern: 'curl' },
        ],
        allow: ['^ls\\b'],
        askTimeoutSec: 30,
      },
      workers: [{ name: 'there', host: 'gpu1', command: ['train'] }],
    });
    const stdin = (text: string) =>
      ({ readStdin: () => Promise.resolve(text) }) as unknown as CliDeps;
    const got = await readFromHub(stdin(formatFromHub(config, 'gpu1')));
    expect(got.policy).toEqual(config.policy);
    expect(got.workers.map((w) => w.name)).toEqual(['there']);
    await expect(readFromHub(stdin('[]'))).rejects.toThrow(
      /--from-hub: what the hub sent is not valid/,
    );
    await expect(readFromHub(stdin('{"workers":[],'))).rejects.toThrow(
      /--from-hub: stdin is not JSON/,
    );
    await expect(
      readFromHub(
        stdin(
          JSON.stringify({
            workers: [],
            policy: { deny: ['(unclosed'] },
          }),
        ),
      ),
    ).rejects.toThrow(/policy\.deny/);
  });

  it('on the host: both configs’ workers run; a name both define is an error', () => {
    const own = ConfigSchema.parse({
      workers: [{ name: 'own', command: 'sh' }],
    });
    const hub = [{ name: 'there', command: 'sh', env: {}, worktree: false }];
    expect(mergeHubWorkers(own, hub).workers.map((w) => w.name)).toEqual([
      'own',
      'there',
    ]);
    expect(() => mergeHubWorkers(own, [{ ...hub[0]!, name: 'own' }])).toThrow(
      /worker 'own' is defined both in this host's macs.config.json and in the hub's/,
    );
  });
});
