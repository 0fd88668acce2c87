/**
 * An operation's refusal with its reason (an unknown request, a second
 * answer, a pane gone): each door says it in its own way (an MCP tool
 * error, a reply on the page). `agent`: the agent it was about, when known.
 */
export class Refusal extends Error {
  constructor(
    message: string,
    readonly agent?: string,
  ) {
    super(message);
    this.name = 'Refusal';
  }
}
