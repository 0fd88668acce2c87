import {
  existsSync,
  readFileSync,
  statSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  answerByPath,
  takeAnswerBy,
  writeOutboxAnswer,
} from '../../src/state/outbox.js';
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
    expect(result).toEqual({ type: 'written', file, chars: 8, untyped: 0 });
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

  it("notes the tool call behind an answer for the bridge, once; a person's answer clears a stale note", async () => {
    fx.writeInboxMeta('w-a1', { id: 'w-a1' });
    await writeOutboxAnswer(fx.paths, 'w-a1', 'allow: fine', {
      by: 'mcp:decide_approval',
    });
    expect(await takeAnswerBy(fx.paths, 'w-a1')).toBe('mcp:decide_approval');
    // Taken once: the file is gone.
    expect(await takeAnswerBy(fx.paths, 'w-a1')).toBeUndefined();
    // A stale note (a tool call whose answer was never written) is cleared
    // when a person answers, so the answer is not taken for the controller's.
    fx.writeInboxMeta('w-a2', { id: 'w-a2' });
    mkdirSync(path.dirname(answerByPath(fx.paths, 'w-a2')), {
      recursive: true,
    });
    writeFileSync(
      answerByPath(fx.paths, 'w-a2'),
      JSON.stringify({ id: 'w-a2', by: 'mcp:decide_approval' }),
    );
    await writeOutboxAnswer(fx.paths, 'w-a2', 'deny');
    expect(existsSync(answerByPath(fx.paths, 'w-a2'))).toBe(false);
    expect(await takeAnswerBy(fx.paths, 'w-a2')).toBeUndefined();
  });

  it('takes only a note for its own id that names an MCP tool', async () => {
    mkdirSync(path.dirname(answerByPath(fx.paths, 'w-a3')), {
      recursive: true,
    });
    for (const bad of [
      { id: 'w-other', by: 'mcp:decide_approval' },
      { id: 'w-a3', by: 'person' },
      { id: 'w-a3' },
    ]) {
      writeFileSync(answerByPath(fx.paths, 'w-a3'), JSON.stringify(bad));
      expect(await takeAnswerBy(fx.paths, 'w-a3'), JSON.stringify(bad)).toBe(
        undefined,
      );
    }
    writeFileSync(answerByPath(fx.paths, 'w-a3'), '{ nope');
    expect(await takeAnswerBy(fx.paths, 'w-a3')).toBeUndefined();
    // The page of `macs web` notes its answers too (a person's, by `web:`).
    writeFileSync(
      answerByPath(fx.paths, 'w-a3'),
      JSON.stringify({ id: 'w-a3', by: 'web:decide_approval' }),
    );
    expect(await takeAnswerBy(fx.paths, 'w-a3')).toBe('web:decide_approval');
  });
});
