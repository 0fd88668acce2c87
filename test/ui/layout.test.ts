import { describe, expect, it } from 'vitest';
import {
  agentColumns,
  fitColumns,
  planLayout,
  windowRows,
} from '../../src/ui/view-layout.js';

const keys = (width: number) =>
  fitColumns(agentColumns(10), width, 2).map((c) => c.key);

describe('columns', () => {
  it('keeps every column when there is room', () => {
    expect(keys(120)).toEqual([
      'name',
      'preset',
      'state',
      'source',
      'since',
      'pane',
      'pending',
      'delivered',
      'roundTrip',
      'usage',
      'flags',
    ]);
  });

  it('drops the least useful first: round trip, preset, pane, source, delivered', () => {
    expect(keys(70)).toEqual([
      'name',
      'state',
      'source',
      'since',
      'pane',
      'pending',
      'delivered',
      'flags',
    ]);
    expect(keys(44)).toEqual(['name', 'state', 'since', 'pending', 'flags']);
    expect(keys(12)).toEqual(['name', 'state']);
  });
});

describe('planLayout', () => {
  const base = {
    agents: 3,
    requests: 2,
    events: 10,
    panel: undefined,
    panelWant: 0,
    keyBarLines: 2,
  };

  it('shows everything on a tall terminal, events taking the rest', () => {
    expect(planLayout({ ...base, rows: 40 })).toEqual({
      agentRows: 3,
      requestRows: 2,
      eventRows: 10,
      panelLines: 0,
      showAgents: true,
      showRequests: true,
      showEvents: true,
    });
  });

  it('drops events, then agents, keeping requests', () => {
    expect(planLayout({ ...base, rows: 13 })).toMatchObject({
      showEvents: false,
      showAgents: true,
      showRequests: true,
    });
    expect(planLayout({ ...base, rows: 9 })).toMatchObject({
      showEvents: false,
      showAgents: false,
      showRequests: true,
    });
  });

  it('an open panel replaces the events and comes first', () => {
    const plan = planLayout({
      ...base,
      rows: 30,
      panel: 'detail',
      panelWant: 12,
    });
    expect(plan.showEvents).toBe(false);
    expect(plan.panelLines).toBe(12);
    expect(
      planLayout({ ...base, rows: 14, panel: 'answer', panelWant: 20 }),
    ).toMatchObject({
      panelLines: 5,
      showRequests: true,
      showAgents: false,
    });
  });

  it('never uses more lines than the terminal has, less one', () => {
    for (let rows = 4; rows < 60; rows += 1) {
      for (const panel of [undefined, 'detail', 'answer', 'help'] as const) {
        const plan = planLayout({
          ...base,
          agents: 12,
          requests: 30,
          rows,
          panel,
          panelWant: 40,
        });
        const used =
          2 +
          base.keyBarLines +
          (plan.showAgents ? 2 + plan.agentRows : 0) +
          (plan.showRequests ? 2 + plan.requestRows : 0) +
          (plan.showEvents ? 1 + plan.eventRows : 0) +
          plan.panelLines;
        expect(
          used <= rows - 1 || (!plan.showRequests && !plan.showAgents),
        ).toBe(true);
      }
    }
  });

  it('windows long lists around the selection', () => {
    expect(windowRows(5, 4, 10)).toEqual({ start: 0, end: 5 });
    expect(windowRows(20, 0, 5)).toEqual({ start: 0, end: 5 });
    expect(windowRows(20, 10, 5)).toEqual({ start: 8, end: 13 });
    expect(windowRows(20, 19, 5)).toEqual({ start: 15, end: 20 });
  });
});
