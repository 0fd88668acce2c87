/** The page's actions: one POST each to the server, which checks and records them. */
import type { ActionReply } from '../messages.js';

/** Run an action; a network failure is a reply too. */
export async function postAction(
  action: string,
  body: Record<string, unknown>,
): Promise<ActionReply> {
  try {
    const response = await fetch(`/api/${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify(body),
    });
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('application/json'))
      return (await response.json()) as ActionReply;
    return { ok: false, message: (await response.text()).trim() };
  } catch (error) {
    return {
      ok: false,
      message: `macs web is unreachable: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}
