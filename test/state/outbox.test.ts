import { readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeOutboxAnswer } from '../../src/state/outbox.js';
import { createHomeFixture } from './home-fixture.js';

describe('writeOutboxAnswer', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  beforeEach(() => {
    fx = createHomeFixture();
  });
  afterEach(() => fx.cleanup());

  it('writes outbox/<id>.txt (0600, newline-terminated) for a pending request', async () => {
    fx.writeInboxMeta('w-q1', { id: 'w-q1' });
    const result = await writeOutboxAnswer(fx.paths, 'w-q1', 'go ahead');
    const file = path.join(fx.paths.outbox, 'w-q1.txt');
    expect(result).toEqual({ type: 'written', file, chars: 8 });
    expect(readFileSync(file, 'utf8')).toBe('go ahead\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses bad ids, empty answers, unknown requests and a second answer, as values', async () => {
    expect(await writeOutboxAnswer(fx.paths, '../x', 'hi')).toEqual({
      type: 'bad-id',
    });
    expect(await writeOutboxAnswer(fx.paths, 'w-q1', ' \n')).toEqual({
      type: 'empty',
    });
    expect(await writeOutboxAnswer(fx.paths, 'w-q1', 'hi')).toEqual({
      type: 'not-pending',
      inbox: fx.paths.inbox,
    });
    fx.writeInboxMeta('w-q1', { id: 'w-q1' });
    mkdirSync(fx.paths.outbox, { recursive: true });
    writeFileSync(path.join(fx.paths.outbox, 'w-q1.txt'), 'first\n');
    expect(await writeOutboxAnswer(fx.paths, 'w-q1', 'second')).toMatchObject({
      type: 'already-answered',
    });
    expect(
      await writeOutboxAnswer(fx.paths, 'w-q1', 'second', { force: true }),
    ).toMatchObject({ type: 'written' });
  });
});
