// Screen approvals against an in-memory tmux: the decision is applied only
// after a fresh look at the live pane finds the same dialog in the same
// program, and then only as the preset's keys; anything else presses
// nothing and expires the request.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createDialogApprovals,
  type DialogApprovals,
} from '../../../src/bridge/approvals/dialog-approvals.js';
import { getPreset } from '../../../src/config/presets/index.js';
import { ConfigSchema } from '../../../src/config/schema.js';
import type { EventInput } from '../../../src/events/types.js';
import { classifyScreen } from '../../../src/screen/classify.js';
import { ensureHomeDirs } from '../../../src/home/fs.js';
import { resolveHomePaths, type HomePaths } from '../../../src/home/paths.js';
import { createSerialQueue } from '../../../src/state/serial.js';
import { DEFAULT_DELIVERY_RULES } from '../../../src/typist/typist.js';
import { freshAgentState } from '../../../src/state/store.js';
import type {
  AgentStateFile,
  RequestRecord,
} from '../../../src/state/types.js';
import { FakeTmuxClient, type FakePane } from '../../helpers/fake-tmux.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DIALOG_SCREEN = readFileSync(
  path.join(
    ROOT,
    'test/fixtures/screens/codex/approval/run-command-dialog-0.169.0.txt',
  ),
  'utf8',
);
const preset = getPreset('codex', {});

class KeyRecordingTmux extends FakeTmuxClient {
  readonly keys: string[] = [];
  /** What the screen shows once a key is pressed. */
  afterKey: string | undefined;
  override async sendKey(pane: string, key?: string): Promise<void> {
    await super.sendKey(pane);
    this.keys.push(String(key));
    const found = this.panes.get(pane);
    if (found && this.afterKey !== undefined) found.screen = this.afterKey;
  }
}

describe('screen approvals', () => {
  let tmux: KeyRecordingTmux;
  let pane: FakePane;
  let state: AgentStateFile;
  let events: Omit<EventInput, 'agent'>[];
  let scheduled: RequestRecord[];
  let approvals: DialogApprovals;
  let enabled: boolean;
  let config = ConfigSchema.parse({});
  let home: string;
  let paths: HomePaths;

  beforeEach(async () => {
    // Request ids are claimed in a home, unique across agents.
    home = mkdtempSync(path.join(os.tmpdir(), 'macs-dialogs-'));
    paths = resolveHomePaths(home);
    await ensureHomeDirs(paths);
    config = ConfigSchema.parse({});
    tmux = new KeyRecordingTmux();
    pane = tmux.addPane({ screen: DIALOG_SCREEN, currentCommand: 'codex' });
    state = freshAgentState('w-1', 'codex');
    events = [];
    scheduled = [];
    enabled = true;
    const dialog = preset.dialog;
    if (!dialog) throw new Error('codex has a dialog');
    const dialogApprovals = createDialogApprovals(
      {
        agent: 'w-1',
        pane: pane.id,
        session: undefined,
        paths,
        get config() {
          return config;
        },
        profile: {
          preset: 'codex',
          rules: DEFAULT_DELIVERY_RULES,
          dialog,
          classify: (screen) => classifyScreen(screen, preset).state,
        },
        tmux,
        get panePid() {
          return pane.pid;
        },
        serial: createSerialQueue(),
        current: () => state,
        emit: (event) => {
          events.push(event);
          return Promise.resolve();
        },
        saveNow: () => Promise.resolve(),
      },
      {
        confirmMs: 300,
        enabled: () => enabled,
        isPaused: () => false,
        route: (record) => {
          record.stage = 'routed';
          return Promise.resolve();
        },
        steps: {
          closeUnanswered: (record, _stage, reason) => {
            record.stage = 'expired';
            record.closed = { reason, by: 'bridge', at: '' };
            delete state.requests[record.id];
            return Promise.resolve();
          },
          finish: (record) => {
            delete state.requests[record.id];
            return Promise.resolve();
          },
        },
      },
    );
    // A dialog a rule answered at once comes back, for delivery to apply.
    approvals = {
      ...dialogApprovals,
      async observe(...reading) {
        const ruled = await dialogApprovals.observe(...reading);
        if (ruled) scheduled.push(ruled);
        return ruled;
      },
    };
  });

  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
  });

  const open = () => Object.values(state.requests);
  const types = () => events.map((e) => e.type);

  async function answered(text: string): Promise<RequestRecord> {
    await approvals.observe(DIALOG_SCREEN, 'approval', Date.now());
    const [record] = open();
    if (!record) throw new Error('no request raised');
    record.stage = 'answered';
    record.response = {
      instructions: text,
      notes: '',
      source: 'outbox',
      receivedAt: '',
      raw: text,
    };
    return record;
  }

  it('raises one request per dialog, however often it is read', async () => {
    await approvals.observe(DIALOG_SCREEN, 'approval', Date.now());
    await approvals.observe(DIALOG_SCREEN, 'approval', Date.now());
    expect(open()).toHaveLength(1);
    expect(open()[0]).toMatchObject({
      type: 'approval',
      origin: 'screen',
      stage: 'routed',
      panePid: pane.pid,
      attributes: { origin: 'screen', program: 'codex' },
      approval: { source: 'screen', tool: 'dialog' },
    });
  });

  it('an allow rule naming tool dialog decides it; one naming no tool does not', async () => {
    config = ConfigSchema.parse({
      policy: { allow: [{ name: 'any-touch', pattern: 'touch' }] },
    });
    await approvals.observe(DIALOG_SCREEN, 'approval', Date.now());
    expect(open()[0]?.stage).toBe('routed');
    expect(scheduled).toEqual([]);

    state.requests = {};
    pane.screen = DIALOG_SCREEN.replace('cache', 'cache2');
    config = ConfigSchema.parse({
      policy: {
        allow: [
          {
            name: 'touch-ok',
            tool: '^dialog$',
            pattern: String.raw`\n\$ touch [\w./-]+\n`,
          },
        ],
      },
    });
    await approvals.observe(pane.screen, 'approval', Date.now());
    const [decided] = scheduled;
    expect(decided).toMatchObject({
      stage: 'answered',
      response: { source: 'rule:touch-ok' },
    });
    tmux.afterKey = '› ';
    if (decided) await approvals.apply(decided, new AbortController().signal);
    expect(tmux.keys).toEqual(['Enter']);
    expect(decided?.decision).toMatchObject({
      decision: 'allow',
      decidedBy: 'rule',
      via: 'touch-ok',
    });
  });

  it('raises none while disabled (hooks ask instead)', async () => {
    enabled = false;
    await approvals.observe(DIALOG_SCREEN, 'approval', Date.now());
    expect(open()).toEqual([]);
  });

  it('keeps the request on a screen it cannot read for sure, expires it when the screen reads idle', async () => {
    await approvals.observe(DIALOG_SCREEN, 'approval', Date.now());
    await approvals.observe('garbled', 'unknown', Date.now());
    expect(open()).toHaveLength(1);
    await approvals.observe('› ', 'idle', Date.now());
    expect(open()).toEqual([]);
    expect(types()).toContain('request.detected');
  });

  it('allow presses Enter on the same dialog, then confirms it left', async () => {
    const record = await answered('allow');
    tmux.afterKey = '› ';
    await approvals.apply(record, new AbortController().signal);
    expect(tmux.keys).toEqual(['Enter']);
    expect(tmux.sent).toEqual([]);
    expect(record.stage).toBe('confirmed');
    expect(record.decision).toMatchObject({
      decision: 'allow',
      decidedBy: 'person',
    });
  });

  // A reading whose capture began before the keys may still show the
  // dialog they answered; it must not raise that dialog again.
  it('a reading captured before the keys does not raise the answered dialog again', async () => {
    const record = await answered('allow');
    tmux.afterKey = '› ';
    const before = Date.now() - 1;
    await approvals.apply(record, new AbortController().signal);
    await approvals.observe(DIALOG_SCREEN, 'approval', before);
    expect(open()).toEqual([]);
  });

  it('an answer that is neither allow nor deny presses the deny key', async () => {
    const record = await answered('hmm, what does it do?');
    tmux.afterKey = '› ';
    await approvals.apply(record, new AbortController().signal);
    expect(tmux.keys).toEqual(['Escape']);
    expect(record.decision?.decision).toBe('deny');
  });

  it.each([
    [
      'the dialog changed',
      (p: FakePane) => {
        p.screen = DIALOG_SCREEN.replace(
          '$ touch /tmp/macs-codex-EDaBDj/cache.sqlite',
          '$ rm -rf /tmp/macs-codex-EDaBDj',
        );
      },
      /changed/,
    ],
    [
      'the dialog left',
      (p: FakePane) => {
        p.screen = '› ';
      },
      /no longer on the screen/,
    ],
    [
      'another program runs in the pane',
      (p: FakePane) => {
        p.pid += 1;
      },
      /another program/,
    ],
    [
      'the program exited to its shell',
      (p: FakePane) => {
        p.currentCommand = 'bash';
      },
      /now runs bash/,
    ],
    [
      'the pane is dead',
      (p: FakePane) => {
        p.dead = true;
      },
      /ended/,
    ],
  ])(
    '%s: nothing is pressed, the request expires',
    async (_name, change, reason) => {
      const record = await answered('allow');
      change(pane);
      await approvals.apply(record, new AbortController().signal);
      expect(tmux.keys).toEqual([]);
      expect(tmux.sent).toEqual([]);
      expect(record.stage).toBe('expired');
      expect(record.closed?.reason).toMatch(reason);
      expect(record.closed?.reason).toMatch(/nothing was pressed/);
    },
  );

  it('a rebuilt request (no pane pid known) is never applied', async () => {
    const record = await answered('allow');
    delete record.panePid;
    await approvals.apply(record, new AbortController().signal);
    expect(tmux.keys).toEqual([]);
    expect(record.stage).toBe('expired');
  });

  it('keys that do not close the dialog are not pressed again, nor raised again', async () => {
    const record = await answered('allow');
    await approvals.apply(record, new AbortController().signal);
    expect(tmux.keys).toEqual(['Enter']);
    expect(record.stage).toBe('unconfirmed');
    await approvals.observe(DIALOG_SCREEN, 'approval', Date.now());
    expect(open()).toEqual([]);
  });
});
