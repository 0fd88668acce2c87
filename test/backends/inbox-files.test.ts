import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  inboxMetaOf,
  readInboxMeta,
  writeInboxRequest,
} from '../../src/backends/inbox-files.js';
import type { BackendRequest } from '../../src/backends/types.js';
import { makeTempHome } from '../helpers/tmux-server.js';

const request: BackendRequest = {
  id: 'w1-q-17',
  agent: 'w1',
  workerId: 'q-17',
  type: 'question',
  priority: 'normal',
  attributes: { id: 'q-17' },
  body: 'Should I migrate now?',
  bodyHash: 'abc',
  detectedAt: '2025-03-01T11:58:00.000Z',
  preset: 'generic',
};

describe('inboxMetaOf', () => {
  it('is what inbox/<id>.json holds', () => {
    expect(inboxMetaOf(request)).toEqual({
      id: 'w1-q-17',
      agent: 'w1',
      workerId: 'q-17',
      type: 'question',
      priority: 'normal',
      attributes: { id: 'q-17' },
      detectedAt: '2025-03-01T11:58:00.000Z',
      preset: 'generic',
      hash: 'abc',
      backend: 'file',
    });
  });

  it('flags invisible characters and concealed output, and carries the context', () => {
    const context = { cwd: '/repo' } as unknown as BackendRequest['context'];
    const meta = inboxMetaOf({
      ...request,
      workerId: undefined,
      body: 'ok\u202Eevil',
      concealed: true,
      context,
    });
    expect(meta).toMatchObject({ invisible: true, concealed: true, context });
    expect(meta).not.toHaveProperty('workerId');
  });
});

describe('the inbox files', () => {
  let inbox: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ home: inbox, cleanup } = makeTempHome('macs-inbox-'));
  });
  afterEach(() => cleanup());

  it('writes the body as a person sees it and the metadata next to it', async () => {
    await writeInboxRequest(inbox, { ...request, body: 'ok\u202Eevil' });
    expect(readFileSync(path.join(inbox, 'w1-q-17.txt'), 'utf8')).toBe(
      'ok<U+202E>evil',
    );
    expect(readInboxMeta(inbox, 'w1-q-17')).toMatchObject({
      id: 'w1-q-17',
      agent: 'w1',
      invisible: true,
    });
  });

  it('reads no metadata for a request not in the inbox', () => {
    expect(readInboxMeta(inbox, 'w1-q-18')).toBeUndefined();
  });
});
