/**
 * The change notice a host sends its hub over the link (docs/remote.md,
 * "How changes travel"): an MCP notification of macs's own, sent by the
 * host's `macs mcp --from-hub` each time its status snapshot changes (an
 * agent's state, a request come or gone). It carries no data: the hub reads
 * that host again, through the same checks as every read (host-data.ts).
 */
import * as z from 'zod';

export const CHANGE_NOTICE_METHOD = 'notifications/macs/changed';

/** The notice as the hub accepts it (anything else of that name is dropped). */
export const ChangeNoticeSchema = z.object({
  method: z.literal(CHANGE_NOTICE_METHOD),
  params: z.object({}).passthrough().optional(),
});
