/**
 * Pure: names at the hub. An agent on a host is `<host>/<agent>` and its
 * request `<host>/<id>`: a host name and an agent name never hold `/`, so
 * the split is unambiguous, and a request id is unique across hosts.
 */
import { isSafeFileName, isValidAgentName } from '../protocol/ids.js';

/** `<host>/<name>`. */
export function qualifyName(host: string, name: string): string {
  return `${host}/${name}`;
}

/**
 * The host and the host's own name of `<host>/<name>`; undefined for a
 * local name (no `/`). Throws nothing: a bad part makes it `invalid`.
 */
export function splitRemoteName(
  qualified: string,
  kind: 'agent' | 'request',
): { host: string; name: string } | 'invalid' | undefined {
  const slash = qualified.indexOf('/');
  if (slash < 0) return undefined;
  const host = qualified.slice(0, slash);
  const name = qualified.slice(slash + 1);
  const nameOk =
    kind === 'agent' ? isValidAgentName(name) : isSafeFileName(name);
  return isValidAgentName(host) && nameOk ? { host, name } : 'invalid';
}
