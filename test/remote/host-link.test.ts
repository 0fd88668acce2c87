// Each door of the hub said a host's link in its own words (issue 31):
// `macs hosts` "h2  down for 3m" with the error on the next line and the
// hint on a third, `macs status` "h2  down  <message>" without the hint,
// the live view "h2 DOWN since 10:02:03 (<message>)" in local time, the
// page "h2 down: <message> (<hint>)", `macs inbox` "macs: <message> (hint:
// <hint>)"; held answers "answers held" here, "answers kept" there. One
// place now owns the link as a value (hostLink, from the hub's model of
// the host, or connectingLink before its first read) and its words
// (hostLinkLine): these tests pin the words every door prints.
import { describe, expect, it } from 'vitest';
import type { HostView } from '../../src/remote/fleet-model.js';
import {
  connectingLink,
  hostLink,
  hostLinkLine,
} from '../../src/remote/host-link.js';

function view(changes: Partial<HostView> = {}): HostView {
  return {
    name: 'h1',
    ssh: 'h1',
    home: '/srv/p',
    link: 'up',
    since: '2026-11-29T10:00:00.000Z',
    version: '0.1.0',
    rttMs: 12,
    clockOffsetMs: 5,
    error: null,
    agents: [
      {
        name: 'h1/a1',
        hostName: 'a1',
        host: 'h1',
        state: 'approval',
        stateAgeSec: 3,
        paused: false,
        bridgeRunning: true,
        pendingRequests: ['h1/r1'],
      },
    ],
    requests: [
      {
        id: 'h1/r1',
        hostId: 'r1',
        host: 'h1',
        agent: 'h1/a1',
        type: 'question',
        stage: 'routed',
        waitingForAnswer: true,
        ageSec: 3,
        firstLine: 'Which database?',
      },
      {
        id: 'h1/r2',
        hostId: 'r2',
        host: 'h1',
        agent: 'h1/a1',
        type: 'notice',
        stage: 'routed',
        waitingForAnswer: false,
        ageSec: 9,
        firstLine: 'Build done.',
      },
    ],
    heldAnswers: 0,
    ...changes,
  };
}

const down = (changes: Partial<HostView> = {}) =>
  view({
    name: 'h2',
    link: 'down',
    since: '2026-11-29T10:02:03.456Z',
    version: null,
    rttMs: null,
    error: {
      kind: 'unreachable',
      message: 'host h2: cannot be reached (ssh exit 255)',
      hint: 'check `ssh h2 true`',
    },
    agents: [],
    requests: [],
    ...changes,
  });

describe('hostLink', () => {
  it('is the value every door draws: counts, and the error as one string with its hint', () => {
    expect(hostLink(view())).toEqual({
      name: 'h1',
      link: 'up',
      since: '2026-11-29T10:00:00.000Z',
      version: '0.1.0',
      rttMs: 12,
      error: null,
      agents: 1,
      requests: 2,
      waiting: 1,
      heldAnswers: 0,
    });
    expect(hostLink(down()).error).toBe(
      'host h2: cannot be reached (ssh exit 255) (hint: check `ssh h2 true`)',
    );
    expect(
      hostLink(down({ error: { kind: 'x', message: 'no route' } })).error,
    ).toBe('no route');
  });
});

describe('hostLinkLine', () => {
  it('says a link that is up, whole and short', () => {
    const link = hostLink(view());
    expect(hostLinkLine(link)).toBe(
      'h1 up since 2026-11-29T10:00:00Z · 12 ms · macs 0.1.0 · 1 agent · 2 open (1 waiting)',
    );
    expect(hostLinkLine(link, 'short')).toBe('h1 up 12 ms');
    // Without a hub process holding the links, nobody knows since when.
    expect(hostLinkLine(hostLink(view({ since: null, requests: [] })))).toBe(
      'h1 up · 12 ms · macs 0.1.0 · 1 agent · 0 open',
    );
  });

  it('says a link that is down: since when (as the rows marked down say it), the error with its hint', () => {
    const link = hostLink(down());
    expect(hostLinkLine(link)).toBe(
      'h2 down since 2026-11-29T10:02:03Z · host h2: cannot be reached (ssh exit 255) (hint: check `ssh h2 true`)',
    );
    // The header stays short: the reason is at `macs hosts`.
    expect(hostLinkLine(link, 'short')).toBe(
      'h2 down since 2026-11-29T10:02:03Z',
    );
    expect(hostLinkLine(hostLink(down({ since: null, error: null })))).toBe(
      'h2 down',
    );
  });

  it('counts the answers kept for a host, up or down', () => {
    expect(hostLinkLine(hostLink(down({ heldAnswers: 1 })))).toBe(
      'h2 down since 2026-11-29T10:02:03Z · 1 answer kept · host h2: cannot be reached (ssh exit 255) (hint: check `ssh h2 true`)',
    );
    expect(hostLinkLine(hostLink(view({ since: null, heldAnswers: 2 })))).toBe(
      'h1 up · 12 ms · macs 0.1.0 · 1 agent · 2 open (1 waiting) · 2 answers kept',
    );
  });

  it('says a host not read yet is connecting, in both forms', () => {
    const link = connectingLink('h3');
    expect(link).toMatchObject({ name: 'h3', link: 'connecting', agents: 0 });
    expect(hostLinkLine(link)).toBe('h3 connecting');
    expect(hostLinkLine(link, 'short')).toBe('h3 connecting');
  });
});
