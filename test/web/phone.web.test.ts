// Issue 31: the page of `macs web` on a phone (390x844, touch). Four bugs a
// person saw there: a screen line longer than the box was cut at about 45
// columns (the terminal took the pane's 120 columns and swallowed the
// sideways swipe), a quiet agent's screen box was as tall as its pane (40
// rows, most of them blank), the sticky header covered the card the
// banner's link jumped to, and a request's context was raw JSON. Strategy:
// fake workers under a real bridge on a private tmux server, the page in
// Debian's chromium as a phone, and each bug measured in the page's own
// geometry (boundingClientRect, scrollWidth), never by timing.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTmuxHarness } from '../helpers/harness.js';
import { REQ, waitForEvents } from '../helpers/macs.js';
import { waitFor } from '../helpers/wait-for.js';
import { launchChromium, startWeb, type WebProcess } from '../helpers/web.js';

/** 150 columns with a mark at the end: wider than the pane's box on a phone. */
const LONG_LINE = `LONG ${'0123456789'.repeat(14)} END-OF-LINE`;

describe('macs web on a phone (issue 31)', () => {
  const harness = useTmuxHarness({ gracefulStop: true });
  let browser: Browser;
  let context: BrowserContext | undefined;
  let web: WebProcess | undefined;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await context?.close();
    await web?.stop();
    context = undefined;
    web = undefined;
  });

  /** worker-1 prints a long line, asks, is answered and asks again; quiet-1 prints a line. */
  async function openPhone(): Promise<Page> {
    const busy = await harness.startWorker(
      [
        {
          print:
            `${LONG_LINE}\n` +
            REQ('q0', 'Shall I keep the old API?', ' type=question'),
        },
        { wait: 'submit' },
        {
          print: REQ(
            'q1',
            'Which database should the tests use?',
            ' type=question priority=high',
          ),
        },
        { wait: 'submit' },
      ],
      { name: 'worker-1' },
    );
    const quiet = await harness.startWorker(
      [{ print: 'all done here\n' }, { wait: 'submit' }],
      { name: 'quiet-1' },
    );
    await harness.tagAgent(busy.pane, 'worker-1');
    await harness.tagAgent(quiet.pane, 'quiet-1');
    harness.startBridge(['--all']);
    await waitForEvents(harness.home, 'request.detected', {
      requestId: 'worker-1-q0',
      timeout: 30_000,
    });
    await harness.respond('worker-1-q0', 'Keep it one more release.');
    web = await startWeb({
      home: harness.home,
      socket: harness.server.socket,
    });
    context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    await page.goto(web.url);
    await page
      .locator('article.request[data-request="worker-1-q1"]')
      .waitFor({ timeout: 30_000 });
    return page;
  }

  const screenOf = (page: Page, agent: string) =>
    page.locator(`article.agent[data-agent="${agent}"] .screen`);

  async function screenShows(page: Page, agent: string, text: string) {
    await waitFor(
      async () =>
        (
          (await screenOf(page, agent)
            .locator('.term')
            .getAttribute('data-text')) ?? ''
        ).includes(text),
      { timeout: 30_000, message: `${agent}'s screen shows ${text}` },
    );
  }

  it("a long screen line is whole inside its box (wrapped, or reached by a swipe), and a quiet agent's box is no taller than its text", async () => {
    const page = await openPhone();
    await screenShows(page, 'worker-1', 'END-OF-LINE');
    await screenShows(page, 'quiet-1', 'all done here');
    const box = screenOf(page, 'worker-1');
    await box.scrollIntoViewIfNeeded();
    const geometry = () =>
      box.evaluate((el) => ({
        scrollWidth: el.scrollWidth,
        clientWidth: el.clientWidth,
        scrollLeft: el.scrollLeft,
      }));
    let g = await geometry();
    if (g.scrollWidth > g.clientWidth + 1) {
      // Not wrapped: a person swipes the box sideways with a finger.
      const rect = (await box.boundingBox())!;
      const cdp = await context!.newCDPSession(page);
      await cdp.send('Input.synthesizeScrollGesture', {
        x: Math.round(rect.x + rect.width / 2),
        y: Math.round(rect.y + Math.min(rect.height / 2, 40)),
        xDistance: -(g.scrollWidth + 200),
        yDistance: 0,
        gestureSourceType: 'touch',
        speed: 2000,
      });
      g = await geometry();
    }
    // The end of the line is inside the box as it is shown.
    expect(g.scrollLeft + g.clientWidth).toBeGreaterThanOrEqual(
      g.scrollWidth - 1,
    );

    // quiet-1's pane is 40 rows, two of them written: its box holds the
    // text, not the blank rows under it (a few rows of slack at most).
    const quiet = await screenOf(page, 'quiet-1').evaluate((el) => {
      const row = el.querySelector('.xterm-rows > div');
      const term = el.querySelector('.term') as HTMLElement;
      return {
        height: el.getBoundingClientRect().height,
        row: row ? row.getBoundingClientRect().height : 0,
        lines: (term.dataset.text ?? '').split('\n').length,
      };
    });
    expect(quiet.row).toBeGreaterThan(0);
    expect(quiet.lines).toBeLessThan(8);
    expect(quiet.height).toBeLessThanOrEqual((quiet.lines + 3) * quiet.row);
  });

  it("the banner's link brings the request into view below the sticky header, and its context reads as fields, not JSON", async () => {
    const page = await openPhone();
    await screenShows(page, 'quiet-1', 'all done here');
    await page.locator('.banner a').click();
    await waitFor(async () => (await page.evaluate(() => window.scrollY)) > 0, {
      timeout: 5_000,
      message: 'the page scrolled to the request',
    });
    const overlap = await page.evaluate(() => {
      const header = document.querySelector('header.top')!;
      const target = document.querySelector(decodeURIComponent(location.hash));
      return {
        hash: location.hash,
        headerBottom: header.getBoundingClientRect().bottom,
        cardTop: target?.getBoundingClientRect().top ?? -1,
      };
    });
    expect(overlap.hash).toMatch(/^#request-worker-1-q/);
    expect(overlap.cardTop).toBeGreaterThanOrEqual(overlap.headerBottom);

    // The context of q1, asked after q0 was answered: fields, the screen's
    // lines, and the earlier request with its answer in a list.
    const later = page.locator('article.request[data-request="worker-1-q1"]');
    await later.locator('details.context summary').click();
    const ctx = later.locator('details.context');
    const text = (await ctx.textContent()) ?? '';
    expect(text).not.toContain('{');
    expect(text).not.toContain('"agent"');
    const field = async (name: string) =>
      (
        await ctx.locator(`dt:text-is("${name}") + dd`).first().textContent()
      )?.trim();
    expect(await field('agent')).toBe('worker-1');
    expect(await field('preset')).toBeTruthy();
    expect(await field('folder')).toBeTruthy();
    expect(await field('attributes')).toContain('priority=high');
    expect(await ctx.locator('pre.context-screen').textContent()).toContain(
      'END-OF-LINE',
    );
    const earlier =
      (await ctx.locator('.context-recent li').textContent()) ?? '';
    expect(earlier).toContain('Shall I keep the old API?');
    expect(earlier).toContain('Keep it one more release.');
  });
});
