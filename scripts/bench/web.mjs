/* global window, document, MutationObserver -- functions run in the page (page.evaluate) */
// `macs web` (issue 22), with a page open in Debian's chromium (driven by
// playwright-core): the time from a request printed in a pane to its card
// shown in the page (loopback), a page with 64 agents' screens live (how
// long until every screen is drawn, and the CPU of `macs web` while they
// print), and the idle cost of `macs web` with one page open.
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import {
  MACS,
  cpuWindow,
  env,
  memoryMb,
  now,
  round,
  sleep,
  spawnPane,
  spawnWorker,
  startBridgeAll,
  startServer,
  stats,
  stopChild,
  tempHome,
  track,
  waitUntil,
} from './lib.mjs';

const CHROMIUM = process.env.MACS_TEST_CHROMIUM ?? '/usr/bin/chromium';
/** Left alone this long before the idle window (start-up work done). */
const SETTLE_MS = 10_000;

/** `macs web` on a free loopback port; resolves with its URL. */
async function startWeb(home, server) {
  const child = track(
    spawn(
      process.execPath,
      [MACS, 'web', '--listen', '127.0.0.1:0', '--log-level', 'silent'],
      {
        env: env({ MACS_HOME: home, MACS_TMUX_SOCKET: server.socket }),
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    ),
  );
  let out = '';
  child.stdout.on('data', (d) => (out += d.toString()));
  await waitUntil(() => /open (http:\/\/\S+)/.test(out), 20_000, 'macs web');
  return { child, url: /open (http:\/\/\S+)/.exec(out)[1] };
}

/** A pane program printing a line every 2 s, each pane at its own offset. */
function printer(k) {
  return [
    'sh',
    '-c',
    `sleep 0.${String((k * 37) % 1000).padStart(3, '0')}; i=0; while :; do i=$((i+1)); echo "agent ${k} line $i $(date +%T.%N)"; sleep 2; done`,
  ];
}

async function withFleet(agents, workerArgs, run) {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `bench web: ${CHROMIUM} is missing (apt-get install -y chromium)`,
    );
  const { chromium } = await import('playwright-core');
  const { home, remove } = tempHome('web');
  const server = startServer();
  let bridge;
  let web;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const workers = [];
    for (let k = 1; k <= agents; k += 1)
      workers.push({
        name: `w${String(k).padStart(2, '0')}`,
        preset: 'generic',
        pane:
          Array.isArray(workerArgs(k)) && workerArgs(k)[0] === 'sh'
            ? spawnPane(server, workerArgs(k))
            : spawnWorker(server, workerArgs(k)),
      });
    bridge = await startBridgeAll(home, server, workers);
    web = await startWeb(home, server);
    const page = await browser.newPage({
      viewport: { width: 1400, height: 900 },
    });
    return await run({ home, server, page, web, workers });
  } finally {
    await browser.close();
    await stopChild(web?.child);
    await stopChild(bridge);
    server.kill();
    remove();
  }
}

/** Request printed in a pane -> its card in the page (p50, p95). */
export async function benchWebLatency({ requests = 20 } = {}) {
  const startFile = `/tmp/macs-bench-web-go-${process.pid}`;
  rmSync(startFile, { force: true });
  return withFleet(
    1,
    () => [
      '--count',
      String(requests),
      '--no-floor',
      '--no-wait',
      '--gap-ms',
      '700',
      '--start-file',
      startFile,
    ],
    async ({ page, web }) => {
      await page.goto(web.url);
      await page.locator('article.agent').first().waitFor({ timeout: 30_000 });
      // Each card's arrival, stamped in the page, against the time printed
      // in its body (both wall clocks of this machine).
      await page.evaluate(() => {
        const seen = new Map();
        window.__arrivals = seen;
        new MutationObserver(() => {
          for (const card of document.querySelectorAll('article.request')) {
            const id = card.getAttribute('data-request');
            if (!seen.has(id))
              seen.set(id, {
                shown: performance.timeOrigin + performance.now(),
                body: card.querySelector('pre.body')?.textContent ?? '',
              });
          }
        }).observe(document.body, { childList: true, subtree: true });
      });
      writeFileSync(startFile, '');
      try {
        const deadline = Date.now() + requests * 700 + 30_000;
        let arrivals = [];
        while (Date.now() < deadline) {
          arrivals = await page.evaluate(() => [...window.__arrivals.values()]);
          if (arrivals.length >= requests) break;
          await sleep(250);
        }
        const ms = arrivals
          .map((a) => a.shown - Number(/t=([\d.]+)/.exec(a.body)?.[1]))
          .filter((v) => Number.isFinite(v));
        return stats(ms);
      } finally {
        rmSync(startFile, { force: true });
      }
    },
  );
}

/** 64 agents' screens live in one page. */
export async function benchWebScreens({ agents = 64, seconds = 20 } = {}) {
  return withFleet(agents, printer, async ({ page, web }) => {
    const opened = now();
    await page.goto(web.url);
    let drawn = 0;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      drawn = await page.evaluate(
        () =>
          [...document.querySelectorAll('.term')].filter(
            (t) => (t.getAttribute('data-text') ?? '').length > 0,
          ).length,
      );
      if (drawn >= agents) break;
      await sleep(100);
    }
    const allDrawnMs = round(now() - opened, 0);
    const end = cpuWindow({ web: { pid: web.child.pid, tree: true } });
    await sleep(seconds * 1000);
    const cpu = end();
    return {
      agents,
      drawn,
      allDrawnMs,
      printing: 'each agent prints a line every 2 s',
      seconds: cpu.seconds,
      webCpuPercent: cpu.web.cpuPercent,
      webMemory: memoryMb(web.child.pid),
    };
  });
}

/** `macs web` with one page open, the fleet idle. */
export async function benchWebIdle({ agents = 8, seconds = 30 } = {}) {
  return withFleet(
    agents,
    () => ['--count', '0'],
    async ({ page, web }) => {
      await page.goto(web.url);
      await page
        .locator('article.agent')
        .nth(agents - 1)
        .waitFor();
      await sleep(SETTLE_MS);
      const end = cpuWindow({ web: { pid: web.child.pid, tree: true } });
      await sleep(seconds * 1000);
      const cpu = end();
      return {
        agents,
        seconds: cpu.seconds,
        webCpuPercent: cpu.web.cpuPercent,
        selfPercent: cpu.web.selfPercent,
        childrenPercent: cpu.web.childrenPercent,
        targetPercent: 0.5,
        webMemory: memoryMb(web.child.pid),
      };
    },
  );
}
