import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  composeAnswer,
  findRequest,
  writeAnswer,
} from '../../src/operations/answer-request.js';
import { Refusal } from '../../src/operations/refusal.js';
import { splitResponse } from '../../src/protocol/response.js';
import { takeAnswerBy } from '../../src/state/outbox.js';
import { claimRequestId } from '../../src/state/request-ids.js';
import {
  createSnapshotReader,
  type SnapshotReader,
} from '../../src/state/snapshot.js';
import { createHomeFixture, makeRecord } from '../state/home-fixture.js';

// answer_request writes what `macs respond` would be given; the bridge splits
// it back into instructions (typed) and notes (never typed).
describe('composeAnswer', () => {
  it('is the instructions alone when there are no notes', () => {
    expect(composeAnswer('  Go ahead.\n')).toBe('Go ahead.\n');
    expect(composeAnswer('Go ahead.', '  ')).toBe('Go ahead.\n');
  });

  it('puts notes under their own header, which the bridge keeps out', () => {
    const text = composeAnswer('Migrate after the API change.', 'watch CI');
    expect(splitResponse(text)).toMatchObject({
      instructions: 'Migrate after the API change.',
      notes: 'watch CI',
    });
  });

  it('keeps multi-line instructions whole', () => {
    const text = composeAnswer('line 1\n\nline 2', 'n');
    expect(splitResponse(text).instructions).toBe('line 1\n\nline 2');
  });

  it('refuses instructions that would split: a NOTES header, response markers, nothing', () => {
    expect(() => composeAnswer('Use main.\nNOTES:\nsecret')).toThrow(Refusal);
    expect(() =>
      composeAnswer(
        '<<CONTROLLER_RESPONSE id=x>>\nhi\n<<CONTROLLER_RESPONSE_END>>',
      ),
    ).toThrow(/markers/);
    expect(() => composeAnswer(' \n ')).toThrow(/empty/);
  });
});

/** The refusal `promise` rejects with: its reason and the agent it is about. */
async function refusal(
  promise: Promise<unknown>,
): Promise<{ message: string; agent: string | undefined }> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Refusal)) throw new Error('no refusal');
  return { message: error.message, agent: error.agent };
}

describe('findRequest and writeAnswer', () => {
  let fx: ReturnType<typeof createHomeFixture>;
  let reader: SnapshotReader;
  beforeEach(async () => {
    fx = createHomeFixture();
    reader = createSnapshotReader(fx.paths, { eventLimit: 1 });
    // worker-1-q-17 waits in the inbox; worker-1-q-18 went to another answerer.
    await fx.writeState('worker-1', (s) => {
      s.requests['worker-1-q-17'] = makeRecord();
      s.requests['worker-1-q-18'] = makeRecord({
        id: 'worker-1-q-18',
        workerId: 'q-18',
        backend: 'exec',
      });
    });
    fx.writeInboxMeta('worker-1-q-17', { id: 'worker-1-q-17' });
  });
  afterEach(() => fx.cleanup());

  it('finds a pending request by id', async () => {
    const found = await findRequest(fx.paths, reader, 'worker-1-q-17');
    expect(found).toMatchObject({
      id: 'worker-1-q-17',
      agent: 'worker-1',
      waitingForPerson: true,
    });
  });

  it('says why there is no pending request: not an id, finished, or never made', async () => {
    expect(await refusal(findRequest(fx.paths, reader, '../x'))).toEqual({
      message: "'../x' is not a request id",
      agent: undefined,
    });
    await claimRequestId(fx.paths, 'worker-2', 'worker-2-q-1');
    const finished = await refusal(
      findRequest(fx.paths, reader, 'worker-2-q-1'),
    );
    expect(finished.agent).toBe('worker-2');
    expect(finished.message).toMatch(
      /^no pending request 'worker-2-q-1': the request of worker-2 is finished/,
    );
    const unknown = await refusal(findRequest(fx.paths, reader, 'nobody-q-1'));
    expect(unknown.agent).toBeUndefined();
    expect(unknown.message).toMatch(/no agent of this home made it/);
  });

  it('writes the answer to the outbox and notes the tool it came through', async () => {
    const request = await findRequest(fx.paths, reader, 'worker-1-q-17');
    const written = await writeAnswer(
      fx.paths,
      request,
      'Later.\n',
      'mcp:answer_request',
    );
    expect(written.chars).toBe(7);
    expect(readFileSync(written.file, 'utf8')).toBe('Later.\n');
    expect(await takeAnswerBy(fx.paths, 'worker-1-q-17')).toBe(
      'mcp:answer_request',
    );
    // The outbox holds an answer now: never a second one.
    const again = await refusal(
      writeAnswer(fx.paths, request, 'Now.', 'mcp:answer_request'),
    );
    expect(again).toEqual({
      message:
        "request 'worker-1-q-17' already has an answer waiting to be delivered; it is not answered twice",
      agent: 'worker-1',
    });
  });

  it('refuses a request that is answered, answered elsewhere, or not in the inbox', async () => {
    const request = await findRequest(fx.paths, reader, 'worker-1-q-17');
    const answered = await refusal(
      writeAnswer(
        fx.paths,
        {
          ...request,
          stage: 'answered',
          answer: {
            requestId: request.id,
            stage: 'answered',
            instructions: 'Yes.',
            notes: '',
            source: null,
            receivedAt: null,
            deliveredAt: null,
          },
        },
        'Now.',
        'mcp:answer_request',
      ),
    );
    expect(answered.message).toBe(
      "request 'worker-1-q-17' is already answered (stage answered); it is not answered twice",
    );
    const elsewhere = await findRequest(fx.paths, reader, 'worker-1-q-18');
    expect(
      await refusal(
        writeAnswer(fx.paths, elsewhere, 'Now.', 'mcp:decide_approval'),
      ),
    ).toEqual({
      message:
        "request 'worker-1-q-18' is not waiting for an answer here (stage routed, answerer exec)",
      agent: 'worker-1',
    });
    // Waiting by the snapshot, but gone from the inbox by the time of writing.
    const gone = await refusal(
      writeAnswer(
        fx.paths,
        { ...elsewhere, waitingForPerson: true },
        'Now.',
        'mcp:answer_request',
      ),
    );
    expect(gone.message).toMatch(
      /^request 'worker-1-q-18' is not waiting in the inbox \(stage routed, answerer exec\)/,
    );
    expect(
      await refusal(
        writeAnswer(fx.paths, request, ' \n', 'mcp:answer_request'),
      ),
    ).toEqual({
      message: 'the answer is empty; nothing was written',
      agent: undefined,
    });
  });
});
