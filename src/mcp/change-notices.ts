/**
 * A host's side of "pushed, not polled" (docs/remote.md, "How changes
 * travel"): `macs mcp --from-hub` follows its home's change feed (the one
 * the status view and `wait_for_request` draw from, src/state/snapshot-feed.ts)
 * from the hub's `initialized` to the session's end, and sends the hub a
 * change notice (remote/change-notice.ts) at each snapshot that differs.
 * The hub then reads this host again; nothing is read on a timer for it.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '../log/logger.js';
import { CHANGE_NOTICE_METHOD } from '../remote/change-notice.js';
import type { SharedSnapshotFeed } from '../state/snapshot-feed.js';

/** Send change notices on `server` while its session lasts. */
export function sendChangeNotices(
  server: McpServer,
  snapshots: SharedSnapshotFeed,
  log: Logger,
): void {
  const inner = server.server;
  let stop: (() => void) | undefined;
  let closed = false;
  const notify = () =>
    void inner
      .notification({ method: CHANGE_NOTICE_METHOD, params: {} })
      .catch(() => undefined);
  const previousInit = inner.oninitialized;
  inner.oninitialized = () => {
    previousInit?.();
    snapshots.acquire().then(
      (lease) => {
        if (closed) return lease.release();
        const off = lease.feed.subscribe(notify);
        stop = () => {
          off();
          lease.release();
        };
        // What changed between the hub's first read and this feed's start.
        notify();
      },
      (error: unknown) =>
        log.warn({ err: error }, 'mcp: no change feed for the hub'),
    );
  };
  const previousClose = inner.onclose;
  inner.onclose = () => {
    closed = true;
    stop?.();
    stop = undefined;
    previousClose?.();
  };
}
