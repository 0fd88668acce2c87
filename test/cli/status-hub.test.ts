// `macs status` without a terminal at a hub printed this machine's agents and
// requests with this machine's totals (`1 agent · 1 pending`), then the hosts'
// agents and requests in a section of their own, laid out its own way, while
// the live view, the page and the MCP tools showed one fleet (`4 agents · 3
// pending`) with `<host>/<agent>` rows beside the local ones (issue 31: every
// door renders the hub's one model). Strategy: format a local snapshot and
// two hosts (one up with a waiting request, one down with its last rows);
// the text must carry the fleet's totals, the host rows in the same tables
// as the local ones, and a line per host in the words of every door.
import { describe, expect, it } from 'vitest';
import { formatHubStatus } from '../../src/cli/status-remote.js';
import type { HostView } from '../../src/remote/fleet-model.js';
import { hostLink, hostLinkLine } from '../../src/remote/host-link.js';
import { makeAgent, makeRequest, makeSnapshot } from '../ui/fixtures.js';

const NOW = Date.parse('2026-11-29T10:03:00.000Z');

function host(name: string, changes: Partial<HostView> = {}): HostView {
  return {
    name,
    ssh: name,
    home: '/srv/p',
    link: 'up',
    since: '2026-11-29T10:00:00.000Z',
    version: '1.0.0',
    rttMs: 12,
    clockOffsetMs: 0,
    error: null,
    agents: [
      {
        name: `${name}/w1`,
        hostName: 'w1',
        host: name,
        preset: 'generic',
        state: 'idle',
        stateSource: 'screen',
        stateAgeSec: 60,
        stateSince: '2026-11-29T10:02:00.000Z',
        pane: '%1',
        paused: false,
        bridgeRunning: true,
        pendingRequests: [`${name}/w1-db`],
      },
    ],
    requests: [
      {
        id: `${name}/w1-db`,
        hostId: 'w1-db',
        host: name,
        agent: `${name}/w1`,
        type: 'question',
        stage: 'routed',
        waitingForAnswer: true,
        ageSec: 30,
        detectedAt: '2026-11-29T10:02:30.000Z',
        firstLine: 'Line one: which database?',
        body: 'Line one: which database?\nA) pg\nB) sqlite\nReply A or B.',
      },
    ],
    heldAnswers: 0,
    ...changes,
  };
}

describe('macs status as text at a hub', () => {
  const local = makeSnapshot({
    agents: [makeAgent({ name: 'local' })],
    requests: [makeRequest({ id: 'local-q1', agent: 'local' })],
  });
  const down = host('h2', {
    link: 'down',
    since: '2026-11-29T10:02:50.000Z',
    error: {
      kind: 'ssh',
      message: 'host h2: ssh failed',
      hint: 'check ssh h2 true',
    },
  });
  const hosts = [host('h1'), down];
  const text = formatHubStatus(local, hosts, NOW).join('\n');

  it('counts the whole fleet, as the live view does', () => {
    const header = text.split('\n')[0];
    expect(header).toContain('3 agents');
    expect(header).toContain('3 pending');
  });

  it("shows each host's agents and requests as rows beside this machine's", () => {
    const lines = text.split('\n');
    const agentRow = (name: string) =>
      lines.findIndex((l) => new RegExp(`^\\S*\\s*${name}\\s`).test(l));
    expect(agentRow('local')).toBeGreaterThan(0);
    expect(agentRow('h1/w1')).toBeGreaterThan(0);
    expect(agentRow('h2/w1')).toBeGreaterThan(0);
    expect(text).toContain('h1/w1-db');
    expect(text).toContain('h2/w1-db');
    // No second, host-only list of the same rows.
    expect(text.match(/h1\/w1-db/g)).toHaveLength(1);
  });

  it("ends with each host's link in the words of every door", () => {
    const lines = text.split('\n');
    const at = lines.indexOf('HOSTS (2)');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1)).toEqual(
      hosts.map((h) => `  ${hostLinkLine(hostLink(h))}`),
    );
    expect(lines[at + 2]).toContain('h2 down since 2026-11-29T10:02:50Z');
    expect(lines[at + 2]).toContain('(hint: check ssh h2 true)');
  });
});
