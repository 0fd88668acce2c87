import * as z from 'zod/mini';
import './zod.js';

/**
 * `hosts` of `macs.config.json` (docs/remote.md): each host's ssh
 * destination and its macs home there. A host name is `<host>` in
 * `<host>/<agent>`, so it follows the agent-name rule; a destination can
 * never be read by ssh as an option.
 */
export const HostConfigSchema = z.strictObject({
  /** `[user@]host` or an alias of your ssh config. */
  ssh: z
    .string()
    .check(
      z.regex(
        /^[A-Za-z0-9_][A-Za-z0-9_.@:%+-]{0,254}$/,
        'an ssh destination: [user@]host or an ssh config alias (no leading -, no spaces)',
      ),
    ),
  /** The macs home on the host: an absolute path there. */
  home: z
    .string()
    .check(z.regex(/^\/[^\0\n]{0,1023}$/, 'an absolute path on the host')),
});
export type HostConfig = z.infer<typeof HostConfigSchema>;

export const HostsSchema = z._default(
  z.record(
    z
      .string()
      .check(
        z.regex(
          /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
          'a host name of letters, digits, . _ - (at most 64)',
        ),
      ),
    HostConfigSchema,
  ),
  {},
);
