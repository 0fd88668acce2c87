// Issue 22: `macs web` in a real browser (Debian's chromium, driven by
// playwright-core) against a private tmux server, fake workers under a
// real bridge, and the demo session: what the page shows, and what a
// person does there reaching the worker through the CLI's own paths.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveHomePaths } from '../../src/home/paths.js';
import { loadAgentState, saveAgentState } from '../../src/state/store.js';
import { writeTeammates } from '../../src/state/teammates.js';
import { useTmuxHarness } from '../helpers/harness.js';
import {
  findEvents,
  readRecord,
  REQ,
  runMacs,
  waitForEvents,
} from '../helpers/macs.js';
import { cleanUpSession, testSocket } from '../helpers/session.js';
import { makeTempHome } from '../helpers/tmux-server.js';
import { waitFor } from '../helpers/wait-for.js';
import { launchChromium, startWeb, type WebProcess } from '../helpers/web.js';

/** Every file under dir (the home's .macs/: logs, events, state). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(file);
    return e.isFile() ? [file] : [];
  });
}

describe('macs web in a browser (issue 22)', () => {
  const harness = useTmuxHarness({ gracefulStop: true });
  let browser: Browser;
  const webs: WebProcess[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const w of webs.splice(0)) await w.stop();
  });

  const submits = (record: string) =>
    readRecord(record)
      .filter((e) => e.type === 'submit')
      .map((e) => e.text ?? '');

  /** A fake worker under a bridge, asking `request`, then waiting for answers. */
  async function workerAsking(request: string, answers = 1) {
    const { pane, record } = await harness.startWorker([
      { print: request },
      ...Array.from({ length: answers }, () => ({ wait: 'submit' })),
    ]);
    harness.startBridge(['--worker-pane', pane, '--agent', 'worker-1']);
    return { pane, record };
  }

  async function openPage(
    args: string[] = [],
  ): Promise<{ page: Page; web: WebProcess }> {
    const web = await startWeb({
      home: harness.home,
      socket: harness.server.socket,
      args,
    });
    webs.push(web);
    const page = await browser.newPage();
    await page.goto(web.url);
    return { page, web };
  }

  const requestCard = (page: Page, id: string) =>
    page.locator(`article.request[data-request="${id}"]`);

  it('shows the agent, its screen and the request waiting; an answer given in the page is typed into the worker exactly once', async () => {
    const { record } = await workerAsking(
      REQ('q1', 'Which database should the tests use?', ' type=question'),
    );
    const { page, web } = await openPage();
    // The secret is gone from the address bar at once.
    expect(page.url()).toBe(`${web.origin}/`);

    const card = requestCard(page, 'worker-1-q1');
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('pre.body').textContent()).toBe(
      'Which database should the tests use?',
    );
    await waitFor(async () => (await page.title()).startsWith('(1) macs'), {
      timeout: 10_000,
      message: 'the title counts the request waiting',
    });
    expect(await page.locator('.banner').textContent()).toContain(
      'worker-1 needs you',
    );
    const agent = page.locator('article.agent[data-agent="worker-1"]');
    // The fake agent's program is unknown to macs: its state says so.
    expect(await agent.locator('.state').textContent()).toMatch(
      /^(idle|working|unknown)/,
    );
    await waitFor(
      async () =>
        (
          (await agent.locator('.term').getAttribute('data-text')) ?? ''
        ).includes('Which database should the tests use?'),
      { timeout: 20_000, message: "the worker's screen is drawn" },
    );

    await card.locator('textarea').fill('Use SQLite in memory.');
    await card.getByRole('button', { name: 'Answer' }).click();
    await waitForEvents(harness.home, 'request.confirmed', {
      requestId: 'worker-1-q1',
      timeout: 30_000,
    });
    expect(submits(record)).toEqual(['Use SQLite in memory.']);
    // A second answer to the same request is refused, never typed.
    const again = await page.evaluate(async () => {
      const r = await fetch('/api/answer', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ id: 'worker-1-q1', text: 'Use Postgres.' }),
      });
      return { status: r.status, body: (await r.json()) as { ok: boolean } };
    });
    expect(again).toMatchObject({ status: 409, body: { ok: false } });
    expect(submits(record)).toEqual(['Use SQLite in memory.']);

    // The page catches up: the request leaves, its path is shown, the title
    // no longer counts it.
    await card.waitFor({ state: 'detached', timeout: 20_000 });
    await waitFor(async () => (await page.title()).startsWith('macs'), {
      timeout: 10_000,
    });
    const pathRow = page.locator('.path[data-request="worker-1-q1"]');
    await waitFor(
      async () =>
        ((await pathRow.locator('.stage').allTextContents()) ?? []).includes(
          'confirmed',
        ),
      { timeout: 10_000, message: "the request's path reaches confirmed" },
    );
    expect(await pathRow.locator('.stage').allTextContents()).toEqual(
      expect.arrayContaining(['detected', 'routed', 'answered', 'delivered']),
    );

    const recorded = findEvents(harness.home, 'web.action');
    expect(recorded).toContainEqual(
      expect.objectContaining({
        agent: 'worker-1',
        requestId: 'worker-1-q1',
        data: expect.objectContaining({
          by: 'web',
          action: 'answer',
          ok: true,
        }),
      }),
    );
    expect(recorded).toContainEqual(
      expect.objectContaining({
        data: expect.objectContaining({
          by: 'web',
          action: 'answer',
          ok: false,
        }),
      }),
    );
    expect(
      findEvents(harness.home, 'request.answered').find(
        (e) => e.requestId === 'worker-1-q1',
      )?.data,
    ).toMatchObject({ by: 'web:answer' });

    // The secret is in no file of the home: logs, events, state.
    await web.stop();
    const leaks = filesUnder(path.join(harness.home, '.macs')).filter(
      (f) =>
        statSync(f).size < 64 * 1024 * 1024 &&
        readFileSync(f, 'utf8').includes(web.secret),
    );
    expect(leaks).toEqual([]);
    expect(web.output().split(web.secret).length - 1).toBe(1); // printed once
  });

  it('decides an approval in the page: allowed with a reason, recorded as decided by a person through the web', async () => {
    const { record } = await workerAsking(
      REQ('a1', 'May I delete the build cache?', ' type=approval'),
    );
    const { page } = await openPage();
    const card = requestCard(page, 'worker-1-a1');
    await card.waitFor({ timeout: 30_000 });
    // Allow without a reason: the page asks for one, nothing is sent.
    await card.getByRole('button', { name: 'Allow' }).click();
    expect(await card.locator('.reply').textContent()).toMatch(/reason/);
    await card.locator('textarea').fill('it is rebuilt on the next run');
    await card.getByRole('button', { name: 'Allow' }).click();
    await waitForEvents(harness.home, 'request.confirmed', {
      requestId: 'worker-1-a1',
      timeout: 30_000,
    });
    expect(submits(record)).toEqual(['allow: it is rebuilt on the next run']);
    const answered = findEvents(harness.home, 'request.answered').find(
      (e) => e.requestId === 'worker-1-a1',
    );
    expect(answered?.data).toMatchObject({
      by: 'web:decide_approval',
      decidedBy: 'person',
      via: 'web:decide_approval',
    });
  });

  // Issue 32: the page named an adopted Claude Code teammate by its agent
  // name and sorted it by that name. Strategy: a home whose records hold a
  // lead, its teammate and another worker (state files and
  // .macs/teammates.json, as the bridge writes them): the cards read
  // `worker-1`, `worker-1/alice`, `worker-2`, the teammate's card marked.
  it('shows a teammate as <lead>/<teammate>, right after its lead', async () => {
    const paths = resolveHomePaths(harness.home);
    for (const [name, pane] of [
      ['worker-2', '%4'],
      ['worker-1.alice', '%5'],
      ['worker-1', '%3'],
    ] as const) {
      const { state } = await loadAgentState(paths, name, 'claude');
      state.pane = pane;
      await saveAgentState(paths, state);
    }
    await writeTeammates(paths, [
      {
        agent: 'worker-1.alice',
        lead: 'worker-1',
        name: 'alice',
        pane: '%5',
        parentSession: '00000000-0000-4000-8000-000000000000',
        adoptedAt: new Date().toISOString(),
      },
    ]);
    const { page } = await openPage();
    const names = page.locator('article.agent .agent-name');
    await waitFor(async () => (await names.count()) === 3, {
      timeout: 30_000,
      message: 'three agent cards',
    });
    expect(await names.allTextContents()).toEqual([
      'worker-1',
      'worker-1/alice',
      'worker-2',
    ]);
    expect(
      await page
        .locator('article.agent[data-agent="worker-1.alice"]')
        .getAttribute('class'),
    ).toContain('teammate');
  });

  it('pauses and resumes delivery to an agent from the page', async () => {
    await workerAsking(REQ('q2', 'Shall I go on?', ' type=question'));
    const { page } = await openPage();
    const agent = page.locator('article.agent[data-agent="worker-1"]');
    await agent.waitFor({ timeout: 30_000 });
    const status = async () =>
      JSON.parse(
        (
          await runMacs(['status', '--json'], {
            home: harness.home,
            socket: harness.server.socket,
          })
        ).stdout,
      ) as { agents: { name: string; paused: boolean }[] };
    const paused = async () =>
      (await status()).agents.find((a) => a.name === 'worker-1')?.paused;

    await agent.getByRole('button', { name: 'Pause' }).click();
    await waitFor(async () => (await paused()) === true, {
      timeout: 10_000,
      message: 'worker-1 paused',
    });
    await agent.getByRole('button', { name: 'Resume' }).waitFor();
    expect(await agent.locator('.state').textContent()).toContain('paused');

    await agent.getByRole('button', { name: 'Resume' }).click();
    await waitFor(async () => (await paused()) === false, {
      timeout: 10_000,
      message: 'worker-1 resumed',
    });
    await agent.getByRole('button', { name: 'Pause' }).waitFor();
    expect(
      findEvents(harness.home, 'delivery.paused').map((e) => e.data?.by),
    ).toEqual(['web']);
    expect(
      findEvents(harness.home, 'delivery.resumed').map((e) => e.data?.by),
    ).toEqual(['web']);
    expect(
      findEvents(harness.home, 'web.action').map((e) => e.data?.action),
    ).toEqual(['pause', 'resume']);
  });

  it("shows a worker's <script>, HTML and escape sequences as text: nothing runs, no link, no title change", async () => {
    const hostile =
      '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';
    const { pane } = await harness.startWorker([
      {
        print:
          `\x1b]0;PWNED-TITLE\x07\x1b]8;;javascript:window.__pwned=3\x07click me\x1b]8;;\x07 ${hostile}\n` +
          REQ('x1', `Is this fine? ${hostile}`, ' type=question'),
      },
      { wait: 'submit' },
    ]);
    harness.startBridge(['--worker-pane', pane, '--agent', 'worker-1']);
    const { page } = await openPage();
    let dialogs = 0;
    page.on('dialog', (d) => {
      dialogs += 1;
      void d.dismiss();
    });
    const card = requestCard(page, 'worker-1-x1');
    await card.waitFor({ timeout: 30_000 });
    expect(await card.locator('pre.body').textContent()).toBe(
      `Is this fine? ${hostile}`,
    );
    const term = page.locator('article.agent[data-agent="worker-1"] .term');
    await waitFor(
      async () =>
        ((await term.getAttribute('data-text')) ?? '').includes('click me'),
      { timeout: 20_000, message: 'the screen is drawn' },
    );
    const screenText = (await term.getAttribute('data-text')) ?? '';
    expect(screenText).toContain('<script>window.__pwned = 1</script>');
    // No control character (ESC above all) reached the terminal.
    // eslint-disable-next-line no-control-regex
    expect(screenText).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    const found = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned,
      scripts: Array.from(document.scripts, (s) => s.src),
      images: document.querySelectorAll('img').length,
      links: Array.from(document.querySelectorAll('a'), (a) => a.href),
      title: document.title,
    }));
    expect(found.pwned).toBeUndefined();
    expect(found.scripts).toEqual([
      expect.stringMatching(/\/assets\/page\.js$/),
    ]);
    expect(found.images).toBe(0);
    expect(found.links.some((h) => h.startsWith('javascript:'))).toBe(false);
    expect(found.title).not.toContain('PWNED');
    expect(dialogs).toBe(0);
  });

  it('typing a message into a pane is off unless --allow-send; with it, the message is typed once through macs send', async () => {
    const { record } = await workerAsking(REQ('s0', 'Ready.', ' type=done'));
    const { page } = await openPage();
    await page.locator('article.agent[data-agent="worker-1"]').waitFor({
      timeout: 30_000,
    });
    expect(await page.locator('.send').count()).toBe(0);
    const refused = await page.evaluate(async () => {
      const r = await fetch('/api/send', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ agent: 'worker-1', text: 'rm -rf /' }),
      });
      return (await r.json()) as { ok: boolean; message: string };
    });
    expect(refused).toMatchObject({ ok: false });
    expect(refused.message).toMatch(/--allow-send/);
    expect(submits(record)).toEqual([]);

    const { page: sending } = await openPage(['--allow-send']);
    const box = sending.locator('article.agent[data-agent="worker-1"] .send');
    await box.waitFor({ timeout: 30_000 });
    await box.locator('input').fill('Please also update the changelog.');
    await box.getByRole('button', { name: 'Send' }).click();
    await waitFor(() => submits(record).length > 0, {
      timeout: 30_000,
      message: 'the message is typed',
    });
    await waitFor(
      () =>
        findEvents(harness.home, 'web.action').some(
          (e) => e.data?.action === 'send' && e.data.ok === true,
        ),
      { timeout: 30_000, message: 'the send is recorded' },
    );
    expect(submits(record)).toEqual(['Please also update the changelog.']);
    expect(findEvents(harness.home, 'send.delivered')).toHaveLength(1);
  });
});

describe('macs web with the demo session (issue 22)', () => {
  let home: string;
  let cleanup: () => void;
  let socket: string;
  let browser: Browser;
  let web: WebProcess | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
    ({ home, cleanup } = makeTempHome('macs-web-demo-'));
    socket = testSocket();
  });
  afterAll(async () => {
    await web?.stop();
    await browser?.close();
    await cleanUpSession(home, socket);
    cleanup();
  });

  it("shows the demo's agents and its requests as they happen", async () => {
    web = await startWeb({ home, socket });
    const page = await browser.newPage();
    await page.goto(web.url);
    const start = await runMacs(['start', '--demo', '--detach', '--no-wait'], {
      home,
      socket,
      timeoutMs: 60_000,
    });
    expect(start.exitCode, start.stderr).toBe(0);
    for (const name of ['controller', 'worker-1'])
      await page
        .locator(`article.agent[data-agent="${name}"]`)
        .waitFor({ timeout: 30_000 });
    await waitFor(
      async () =>
        (await page.locator('.path[data-request^="worker-1-demo-"]').count()) >
        0,
      { timeout: 60_000, message: "a demo request's path is shown" },
    );
    await waitFor(
      async () =>
        (
          (await page
            .locator('article.agent[data-agent="worker-1"] .term')
            .getAttribute('data-text')) ?? ''
        ).includes('CONTROLLER_REQUEST'),
      { timeout: 30_000, message: "the demo worker's screen is drawn" },
    );
  });
});
