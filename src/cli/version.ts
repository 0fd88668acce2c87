/** The version `macs --version` prints and `macs mcp` reports to its clients. */
export const VERSION = '0.1.0';
