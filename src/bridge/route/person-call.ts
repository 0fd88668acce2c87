/**
 * What a person is told when a request comes to wait for them in the inbox
 * (SPEC §5): why it is theirs (a loop guard tripped, an AI answerer failed,
 * or the route sends it to a person) and what it asks, in one line. Pure:
 * the dispatcher (`dispatch-backend.ts`) hands the call to `attention.ts`.
 */
import type { BackendRequest } from '../../backends/types.js';
import type { BackendName } from '../../config/schema.js';
import type { AttentionInput } from './attention.js';
import type { GuardTrip } from './router.js';

/** Why a loop guard sent a request to a person, for people. */
export function describeGuard(trip: GuardTrip): string {
  switch (trip.reason) {
    case 'rate-limit':
      return `${trip.count} requests in the last hour (limit ${trip.limit}); sent to a person instead of an AI answerer`;
    case 'repeat':
      return `the same request as ${trip.previousId}, answered at ${trip.answeredAt}; sent to a person instead of asking an AI again`;
    default: {
      const never: never = trip;
      throw new Error(`unexpected guard ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The call about `request`, now in the inbox: `guard` is the loop guard
 * that sent it there, `from` the answerer it fell back from.
 */
export function personCall(
  request: BackendRequest,
  guard?: GuardTrip,
  from?: BackendName,
): AttentionInput & { requestId: string } {
  const first = request.body.split('\n', 1)[0]?.slice(0, 100) ?? '';
  return {
    agent: request.agent,
    requestId: request.id,
    reason: guard?.reason ?? 'waiting-for-person',
    message: guard
      ? `${request.agent} needs you: ${describeGuard(guard)}`
      : `${request.agent} waits for your answer (${request.type}): ${first}`,
    ...(request.pane ? { pane: request.pane } : {}),
    data: {
      ...(guard ? { ...guard } : {}),
      ...(from ? { fallbackFrom: from } : {}),
    },
  };
}
