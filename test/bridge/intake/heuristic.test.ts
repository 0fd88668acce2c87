import { afterEach, describe, expect, it } from 'vitest';
import { raiseIdleQuestion } from '../../../src/bridge/intake/heuristic.js';
import { createRequests } from '../../../src/bridge/requests/block-request.js';
import type {
  BackendRequest,
  ControllerBackend,
} from '../../../src/backends/types.js';
import {
  createStageFixture,
  type StageFixture,
  type StageFixtureOptions,
} from '../stage-fixture.js';

// A question asked without markers, on an idle screen, is a detected block
// handed to the requests room like a marked one (intake/heuristic.ts).
describe('heuristic triggers', () => {
  let f: StageFixture;
  afterEach(() => f.cleanup());

  async function setup(
    options: StageFixtureOptions = {},
    hides: (text: string) => boolean = () => false,
  ) {
    f = await createStageFixture({ session: 's-1', ...options });
    const { steps } = f.createSteps();
    const submitted: BackendRequest[] = [];
    const backend: ControllerBackend = {
      name: 'file',
      submit(request) {
        submitted.push(request);
        return Promise.resolve();
      },
      rescan: () => Promise.resolve(),
      stop: () => Promise.resolve(),
    };
    const requests = createRequests(f.ctx, { steps, backend });
    const idle = (screen: string) =>
      raiseIdleQuestion(f.ctx, screen, {
        onBlock: async (block) => (await requests.onBlock(block)).save,
        hides,
      });
    return { idle, submitted };
  }

  describe('raiseIdleQuestion: heuristic triggers on an idle screen', () => {
    const screen = (question: string) =>
      [
        '● I looked at the schema.',
        `  ${question}`,
        '',
        '─'.repeat(60),
        '❯ ',
        '─'.repeat(60),
      ].join('\n');

    it('raises nothing with heuristics off', async () => {
      const { idle, submitted } = await setup();
      await f.ctx.serial(() => idle(screen('Should we keep the index?')));
      expect(submitted).toEqual([]);
      expect(f.state().heuristicKey).toBeUndefined();
      expect(f.events).toEqual([]);
    });

    it('raises a question on an idle screen once', async () => {
      const { idle, submitted } = await setup(
        { config: { heuristics: true } },
        (text) => text.includes('index'),
      );
      const asking = screen('Should we keep the index?');
      await f.ctx.serial(() => idle(asking));
      await f.ctx.serial(() => idle(asking));
      expect(submitted).toHaveLength(1);
      // Not even looked at again (not a duplicate dropped later).
      expect(f.eventsOf('request.duplicate')).toEqual([]);
      expect(f.state().counters.duplicates).toBe(0);
      const [record] = Object.values(f.state().requests);
      expect(record).toMatchObject({
        type: 'heuristic',
        attributes: { type: 'heuristic', trigger: 'question' },
        concealed: true,
      });
      expect(record?.body).toContain('Should we keep the index?');
      expect(f.state().heuristicKey).toBeDefined();
      expect((await f.saved())?.heuristicKey).toBe(f.state().heuristicKey);

      // Another conversation is another request.
      await f.ctx.serial(() => idle(screen('Shall I drop the table now?')));
      expect(submitted).toHaveLength(2);
    });

    it('raises nothing for a screen that asks nothing', async () => {
      const { idle, submitted } = await setup({
        config: { heuristics: true },
      });
      await f.ctx.serial(() => idle(screen('I renamed the column.')));
      expect(submitted).toEqual([]);
    });
  });
});
