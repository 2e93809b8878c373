/**
 * config/grafana-dashboard.json is a valid Grafana dashboard (panels with Prometheus targets on a
 * 24-column grid, a datasource variable) and every metric it queries is one the daemon exports.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../../src/ops/metrics.ts';

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr: string; refId: string; datasource?: { type: string } }>;
}
const dash = JSON.parse(readFileSync(new URL('../../../config/grafana-dashboard.json', import.meta.url), 'utf8')) as {
  title: string;
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: unknown }> };
};

describe('Grafana dashboard', () => {
  it('has the dashboard fields, a Prometheus datasource variable, and panels on the grid', () => {
    expect(dash.title).toBe('mmkit');
    expect(dash.uid).toMatch(/^[\w-]{1,40}$/);
    expect(dash.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dash.templating.list.find((v) => v.name === 'datasource')).toMatchObject({
      type: 'datasource',
      query: 'prometheus',
    });
    const ids = new Set<number>();
    for (const p of dash.panels) {
      expect(ids.has(p.id), `duplicate id ${p.id}`).toBe(false);
      ids.add(p.id);
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      expect(p.gridPos.h, p.title).toBeGreaterThan(0);
      if (p.type === 'row') continue;
      expect(['timeseries', 'stat', 'table', 'gauge']).toContain(p.type);
      expect(p.datasource?.type, p.title).toBe('prometheus');
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      const refs = new Set(p.targets!.map((t) => t.refId));
      expect(refs.size, p.title).toBe(p.targets!.length);
      for (const t of p.targets!) expect(t.expr, p.title).toMatch(/mmkit_/);
    }
    expect(dash.panels.filter((p) => p.type !== 'row').length).toBeGreaterThanOrEqual(15);
  });

  it('queries only metrics the daemon exports', async () => {
    const text = await new Metrics({ now: () => 0 }).render();
    const exported = new Set(
      [...text.matchAll(/^# TYPE (\S+) (\S+)/gm)].flatMap((m) =>
        m[2] === 'histogram' ? [m[1]!, `${m[1]}_bucket`, `${m[1]}_sum`, `${m[1]}_count`] : [m[1]!],
      ),
    );
    const used = new Set(
      dash.panels.flatMap((p) =>
        (p.targets ?? []).flatMap((t) => [...t.expr.matchAll(/\bmmkit_[a-z0-9_]+/g)].map((m) => m[0])),
      ),
    );
    expect(used.size).toBeGreaterThan(20);
    for (const name of used) expect(exported.has(name), `${name} is not exported`).toBe(true);
  });
});
