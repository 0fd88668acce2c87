/**
 * Between the shared backend and one agent of the fleet: requests go out
 * through a view of the backend that answers an echo of the first message's
 * example at once (an empty answer the submit returns), and answers come back to the agent's current supervisor,
 * or wait for it while the agent is dead (a dismissal is done at once).
 */
import type {
  AnswerHandler,
  BackendAnswer,
  ControllerBackend,
} from '../../backends/types.js';
import type { EventSink } from '../../events/log.js';
import type { EventInput } from '../../events/types.js';
import type { HomePaths } from '../../home/paths.js';
import type { Logger } from '../../log/logger.js';
import { acquireAgentLock, loadAgentState } from '../../state/store.js';
import type { SharedBackend, Slot } from './types.js';
import { endRequestsInState } from '../requests/close.js';
import { isUntyped } from '../../state/ledger.js';

/**
 * The backend as one worker's supervisor sees it. An echo of an example
 * request from the worker's first message (agents show what they were
 * sent) is answered at once with nothing, without asking the controller:
 * the submit returns that answer (SubmitResult.answered).
 */
export function backendFor(
  slot: Slot,
  {
    backend,
    emit,
  }: {
    backend: SharedBackend;
    emit: (input: EventInput) => Promise<void>;
  },
): ControllerBackend {
  return {
    name: backend.name,
    async submit(request) {
      if (!slot.agent.firstMessage?.exampleHashes.has(request.bodyHash))
        return backend.submit(request);
      await emit({
        agent: slot.agent.name,
        type: 'warning',
        requestId: request.id,
        data: {
          message:
            'the worker showed the example request of its first message (prompts/worker.md); closed without asking the controller',
        },
      });
      // A value, not a call back into the supervisor: the request is
      // recorded `routed` first, then this answer is taken.
      return {
        backend: backend.name,
        recorded: false,
        answered: {
          id: request.id,
          text: '',
          source: 'macs:protocol-example',
        },
      };
    },
    rescan: () => backend.rescan(),
    stop: () => Promise.resolve(),
  };
}

/**
 * Answers for an agent go to its current supervisor; a dead agent's wait
 * in outbox/ (a supervisor started later, the agent back, takes them or
 * ends them). A dismissal of a dead agent's request is done here: this
 * process holds the agent's lock.
 */
export function answerHandler(
  slot: Slot,
  { paths, events, log }: { paths: HomePaths; events: EventSink; log: Logger },
): AnswerHandler {
  return async (answer: BackendAnswer) => {
    if (slot.supervisor) return slot.supervisor.onAnswer(answer);
    const dismissal = answer.dismiss;
    if (!dismissal) return 'already-answered';
    slot.lock ??= await acquireAgentLock(paths, slot.agent.name);
    const { state } = await loadAgentState(
      paths,
      slot.agent.name,
      slot.agent.profile.preset,
    );
    const ended = await endRequestsInState(state, {
      paths,
      events,
      log,
      select: (r) => r.id === answer.id && isUntyped(r),
      stage: 'dismissed',
      reason: () => dismissal.reason || 'dismissed',
      by: dismissal.by || 'person',
    });
    return ended.length > 0 ? 'accepted' : 'unknown-request';
  };
}
