// Screenshots of the page of `macs web` for docs/web.md: three fake workers
// (test/fixtures/fake-agent.mjs) under one bridge on a private tmux server,
// one asking a question, one asking for an approval, one at work; the page
// in Debian's chromium (playwright-core), wide (1280x800, dark) and phone
// (390x844, light). Usage: npm run build && node scripts/web-screenshots.mjs
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  MACS,
  ROOT,
  env,
  sleep,
  spawnPane,
  startBridgeAll,
  startServer,
  stopChild,
  tempHome,
  track,
  waitUntil,
} from './bench/lib.mjs';
import { spawn } from 'node:child_process';

const FAKE_AGENT = path.join(ROOT, 'test', 'fixtures', 'fake-agent.mjs');
const REQ = (id, body, attrs) =>
  `<<CONTROLLER_REQUEST id=${id}${attrs}>>\n${body}\n<<CONTROLLER_REQUEST_END>>\n`;

const scripts = {
  'worker-1': [
    {
      print:
        'Reading src/db/migrate.ts and the users schema…\n✓ 42 tests passed (3.1 s)\n',
    },
    {
      print: REQ(
        'q1',
        'The users table has 2.3M rows. Migrate it in place (about 4 min of writes locked), or add the column nullable and backfill in batches?',
        ' type=question priority=high',
      ),
    },
    { wait: 'submit' },
  ],
  'worker-2': [
    { print: 'Cleaning up the build before the release branch…\n' },
    {
      print: REQ(
        'a1',
        'May I run `rm -rf .cache/build` (1.2 GB)? It is rebuilt on the next run.',
        ' type=approval',
      ),
    },
    { wait: 'submit' },
  ],
  'worker-3': [
    {
      print:
        'Refactoring the HTTP client: retries with jitter\n  edited src/http/retry.ts (+48 −12)\n  edited test/http/retry.test.ts (+31)\nRunning the tests…\n✓ 118 passed\n',
    },
    { wait: 'submit' },
  ],
};

const { home, remove } = tempHome('shots');
const server = startServer();
let bridge;
let web;
const browser = await chromium.launch({
  executablePath: process.env.MACS_TEST_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const workers = Object.entries(scripts).map(([name, script]) => {
    const file = path.join(home, `${name}.script.json`);
    writeFileSync(file, JSON.stringify(script));
    return {
      name,
      preset: 'generic',
      pane: spawnPane(server, [process.execPath, FAKE_AGENT, '--script', file]),
    };
  });
  bridge = await startBridgeAll(home, server, workers);
  web = track(
    spawn(process.execPath, [MACS, 'web', '--listen', '127.0.0.1:0'], {
      env: env({ MACS_HOME: home, MACS_TMUX_SOCKET: server.socket }),
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  let out = '';
  web.stdout.on('data', (d) => (out += d.toString()));
  await waitUntil(() => /open (http:\/\/\S+)/.test(out), 20_000, 'macs web');
  const url = /open (http:\/\/\S+)/.exec(out)[1];
  const shots = [
    { file: 'web-wide.png', width: 1280, height: 800, colorScheme: 'dark' },
    { file: 'web-phone.png', width: 390, height: 844, colorScheme: 'light' },
  ];
  for (const shot of shots) {
    const page = await browser.newPage({
      viewport: { width: shot.width, height: shot.height },
      colorScheme: shot.colorScheme,
    });
    await page.goto(url);
    await page.locator('article.request').nth(1).waitFor({ timeout: 30_000 });
    await page
      .locator('.term[data-text*="passed"]')
      .nth(1)
      .waitFor({ timeout: 30_000 });
    await sleep(500);
    await page.screenshot({ path: path.join(ROOT, 'docs', shot.file) });
    console.log(`written: docs/${shot.file}`);
    await page.close();
  }
} finally {
  await browser.close();
  await stopChild(web);
  await stopChild(bridge);
  server.kill();
  remove();
}
