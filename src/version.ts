/** The version of macs (package.json's), in a module of its own: `macs --version` loads nothing else. */
export const VERSION = '0.1.0';
