// Issue 16, items 1 and 2: another local user who can write the home made a
// root bridge append a worker's output to a root-only file (links planted in
// macs's folders were followed), and a home others may write to was taken
// silently. Links planted before the bridge starts must be neither followed
// nor written through; such a home stops macs with the path named.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTmuxHarness } from '../helpers/harness.js';
import { readRecord, REQ, runMacs, waitForEvents } from '../helpers/macs.js';

describe('shared machines: planted links and an open home (issue 16)', () => {
  const harness = useTmuxHarness({ gracefulStop: true });
  const file = (...parts: string[]) => path.join(harness.home, ...parts);

  it('follows no link planted at the pane log, the event log, the developer log or an archive folder: each is replaced and reported', async () => {
    const secret = file('root-only');
    writeFileSync(secret, 'SECRET\n', { mode: 0o600 });
    const elsewhere = file('elsewhere');
    mkdirSync(elsewhere, { mode: 0o755 });
    const today = new Date().toISOString().slice(0, 10);
    for (const dir of ['.macs/panes', '.macs/events', 'archive'])
      mkdirSync(file(dir), { recursive: true, mode: 0o700 });
    symlinkSync(secret, file('.macs', 'panes', 'worker-1.log'));
    symlinkSync(secret, file('.macs', 'events', 'worker-1.jsonl'));
    symlinkSync(secret, file('.macs', 'macs.log'));
    symlinkSync(elsewhere, file('archive', today));

    const w = await harness.startWorker(
      [{ print: REQ('s1', 'may I?') }, { wait: 'submit' }],
      { name: 'w' },
    );
    const bridge = harness.startBridge([
      '--worker-pane',
      w.pane,
      '--agent',
      'worker-1',
      '--log-level',
      'debug',
    ]);
    await waitForEvents(harness.home, 'request.routed', {
      requestId: 'worker-1-s1',
      timeout: 20_000,
    });
    await harness.respond('worker-1-s1', 'yes');
    await waitForEvents(harness.home, 'request.archived', {
      requestId: 'worker-1-s1',
      timeout: 20_000,
    });
    expect(
      readRecord(w.record).filter((e) => e.type === 'submit'),
    ).toHaveLength(1);
    // Every planted link was replaced by macs's own file or folder, and said so.
    for (const planted of [
      file('.macs', 'panes', 'worker-1.log'),
      file('.macs', 'events', 'worker-1.jsonl'),
      file('archive', today),
    ]) {
      expect(lstatSync(planted).isSymbolicLink(), planted).toBe(false);
      expect(bridge.output()).toContain(`${planted} was a link`);
    }
    expect(existsSync(file('archive', today, 'worker-1-s1.json'))).toBe(true);
    // Nothing reached what they pointed at.
    expect(readFileSync(secret, 'utf8')).toBe('SECRET\n');
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('a home others may write to stops every command with exit 2, naming it; --allow-shared-home warns instead', async () => {
    mkdirSync(file('.macs'), { recursive: true });
    chmodSync(harness.home, 0o777);
    try {
      const inbox = await runMacs(['inbox'], {
        home: harness.home,
        socket: harness.server.socket,
      });
      expect(inbox.exitCode).toBe(2);
      expect(inbox.stderr).toContain(
        `${harness.home} can be written by every user (mode 777)`,
      );
      const allowed = await runMacs(['inbox', '--allow-shared-home'], {
        home: harness.home,
        socket: harness.server.socket,
      });
      expect(allowed.exitCode, allowed.stderr).toBe(0);
      expect(allowed.stderr).toContain('warning:');
    } finally {
      chmodSync(harness.home, 0o700);
    }
    chmodSync(file('.macs'), 0o777);
    const runtime = await runMacs(['status'], {
      home: harness.home,
      socket: harness.server.socket,
    });
    expect(runtime.exitCode).toBe(2);
    expect(runtime.stderr).toContain(
      `${file('.macs')} can be written by every user`,
    );
  });
});
