// The baseline of the idle-CPU scenario: what tools in this field do, every
// pane captured with `tmux capture-pane` every 500 ms and its text searched
// for a request block; runs until killed.
// Usage: node poller.mjs --socket NAME --panes %1,%2 [--interval-ms 500]
import { execFile } from 'node:child_process';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const socket = opt('--socket');
const panes = opt('--panes', '').split(',').filter(Boolean);
const intervalMs = Number(opt('--interval-ms', '500'));
const REQUEST =
  /<<CONTROLLER_REQUEST[^>]*>>\n[\s\S]*?<<CONTROLLER_REQUEST_END>>/g;

const capture = (pane) =>
  new Promise((resolve) => {
    execFile(
      'tmux',
      ['-L', socket, 'capture-pane', '-p', '-J', '-S', '-', '-t', pane],
      (error, stdout) => resolve(error ? '' : stdout),
    );
  });

let found = 0;
setInterval(() => {
  void Promise.all(panes.map(capture)).then((screens) => {
    for (const screen of screens) found += [...screen.matchAll(REQUEST)].length;
  });
}, intervalMs);
process.on('SIGTERM', () => {
  process.stdout.write(`${found} request blocks seen\n`);
  process.exit(0);
});
