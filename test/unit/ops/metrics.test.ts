/**
 * The metrics registry: every name prefixed mmkit_, values converted once from the core's integer
 * units, budgets read at scrape time, event-loop lag among the default metrics, registries
 * independent of each other (no global state).
 */
import { describe, expect, it } from 'vitest';
import { Metrics, ORDER_OUTCOMES } from '../../../src/ops/metrics.ts';

const metricValue = async (
  m: Metrics,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> => {
  const all = await m.registry.getMetricsAsJSON();
  const x = all.find((v) => v.name === name);
  const v = (
    x?.values as Array<{ labels: Record<string, string | number>; value: number; metricName?: string }> | undefined
  )?.find(
    (s) =>
      Object.entries(labels).every(([k, val]) => String(s.labels[k]) === val) &&
      (s.metricName === undefined || s.metricName === name),
  );
  return v?.value;
};

describe('Metrics', () => {
  it('names every metric mmkit_*, including the default process and event-loop metrics', async () => {
    const m = new Metrics({ now: () => 0, info: { version: '1.2.3', strategy: 'bands' } });
    const text = await m.render();
    const names = [...text.matchAll(/^# TYPE (\S+) /gm)].map((x) => x[1]!);
    expect(names.length).toBeGreaterThan(30);
    for (const n of names) expect(n.startsWith('mmkit_')).toBe(true);
    for (const n of [
      'mmkit_quotes_submitted_total',
      'mmkit_orders_total',
      'mmkit_fills_total',
      'mmkit_fill_volume_shares_total',
      'mmkit_position_shares',
      'mmkit_pnl_realized_usdc',
      'mmkit_pnl_unrealized_usdc',
      'mmkit_budget_used',
      'mmkit_http_rate_limited_total',
      'mmkit_stream_lag_seconds',
      'mmkit_stream_reconnects_total',
      'mmkit_tick_to_order_seconds',
      'mmkit_nodejs_eventloop_lag_seconds',
      'mmkit_nodejs_eventloop_lag_p99_seconds',
      'mmkit_healthy',
    ])
      expect(names, n).toContain(n);
    expect(text).toContain('mmkit_info{version="1.2.3",strategy="bands"} 1');
    // as promtool checks them: only a counter's name ends in _total (prom-client's active_*_total gauges
    // are left out; their per-type gauges stay: trial 17 F7)
    const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((x) => [x[1]!, x[2]!] as const);
    for (const [n, t] of types) if (n.endsWith('_total')) expect(t, n).toBe('counter');
    expect(names).toContain('mmkit_nodejs_active_handles');
    // every outcome is exported from the start (a rate of zero is a value, not a missing series)
    for (const o of ORDER_OUTCOMES) expect(text).toContain(`mmkit_orders_total{outcome="${o}"} 0`);
  });

  it('sums fill volume and notional as integers: the exported totals are exact decimals (no float drift)', async () => {
    const m = new Metrics({ now: () => 0, defaultMetrics: false });
    // 0.1 + 0.2 style increments: 30 fills of 1.1 shares at 0.35 (0.385 USDC each)
    for (let i = 0; i < 30; i++) m.fill({ market: '0xm', side: 'BUY', role: 'MAKER', size: 1_100_000, price: 3_500 });
    const text = await m.render();
    expect(text).toContain('mmkit_fill_volume_shares_total{market="0xm"} 33\n');
    expect(text).toContain('mmkit_fill_notional_usdc_total{market="0xm"} 11.55\n');
    // twice scraped: the same totals (not added again)
    expect(await m.render()).toContain('mmkit_fill_notional_usdc_total{market="0xm"} 11.55\n');
  });

  it('labels mmkit_info with the strategy name once known (never its params)', async () => {
    const m = new Metrics({ now: () => 0, defaultMetrics: false, info: { version: '1.2.3' } });
    expect(await m.render()).toContain('mmkit_info{version="1.2.3"} 1');
    m.strategy('bands');
    const text = await m.render();
    expect(text).toContain('mmkit_info{version="1.2.3",strategy="bands"} 1');
    expect(text.match(/^mmkit_info\{/gm)).toHaveLength(1);
  });

  it('converts integer units at the edge: fills, positions, PnL', async () => {
    const m = new Metrics({ now: () => 0, defaultMetrics: false });
    m.fill({ market: '0xm', side: 'BUY', role: 'MAKER', size: 12_500_000, price: 4_500 });
    m.fill({ market: '0xm', side: 'BUY', role: 'MAKER', size: 2_500_000, price: 4_600 });
    expect(await metricValue(m, 'mmkit_fills_total', { market: '0xm', side: 'BUY', role: 'MAKER' })).toBe(2);
    expect(await metricValue(m, 'mmkit_fill_volume_shares_total', { market: '0xm' })).toBe(15);
    expect(await metricValue(m, 'mmkit_fill_notional_usdc_total', { market: '0xm' })).toBeCloseTo(5.625 + 1.15, 9);
    m.positions([{ market: '0xm', tokenId: 't1', outcome: 'Yes', size: -3_000_000, avgPrice: 5_100 }]);
    expect(await metricValue(m, 'mmkit_position_shares', { token: 't1', outcome: 'Yes' })).toBe(-3);
    expect(await metricValue(m, 'mmkit_position_avg_price', { token: 't1' })).toBeCloseTo(0.51, 9);
    m.positions([]);
    expect(await metricValue(m, 'mmkit_position_shares', { token: 't1' })).toBeUndefined();
    m.pnl({ realized: -1_250_000, unrealized: 500_000, fees: 10_000, total: -760_000 });
    expect(await metricValue(m, 'mmkit_pnl_realized_usdc')).toBe(-1.25);
    expect(await metricValue(m, 'mmkit_pnl_total_usdc')).toBe(-0.76);
    m.order('placed', 15);
    m.order('live', 14);
    m.order('rejected');
    expect(await metricValue(m, 'mmkit_orders_total', { outcome: 'placed' })).toBe(15);
    expect(await metricValue(m, 'mmkit_orders_total', { outcome: 'rejected' })).toBe(1);
    m.quoteSet('0xm', 4);
    m.quoteSet('0xm', 0);
    expect(await metricValue(m, 'mmkit_quotes_submitted_total', { market: '0xm' })).toBe(4);
    expect(await metricValue(m, 'mmkit_quote_sets_total', { market: '0xm', kind: 'pull' })).toBe(1);
  });

  it('counts external fills (orders the bot did not place) apart from its own, and post-only refusals', async () => {
    const m = new Metrics({ now: () => 0, defaultMetrics: false });
    m.externalFill('0xm');
    m.externalFill('0xm');
    m.postOnlyRejected(3);
    expect(await metricValue(m, 'mmkit_external_fills_total', { market: '0xm' })).toBe(2);
    expect(await metricValue(m, 'mmkit_fills_total', { market: '0xm' })).toBeUndefined();
    expect(await metricValue(m, 'mmkit_post_only_rejections_total')).toBe(3);
  });

  it("reads the gate's refusals and trims by code and the strategy's errors at scrape time (user trial 4, F22)", async () => {
    const m = new Metrics({ now: () => 0, defaultMetrics: false });
    // nothing watched yet: the counters exist, with no sample
    const empty = await m.render();
    for (const n of ['mmkit_risk_refusals_total', 'mmkit_risk_trims_total', 'mmkit_strategy_errors_total'])
      expect(empty).toContain(`# TYPE ${n} counter`);
    const refused = new Map([['OFF_TICK', 30]]);
    let errors = 2;
    m.watchIntents(() => ({ refused, trimmed: new Map([['LOT', 4]]), strategyErrors: errors }));
    expect(await metricValue(m, 'mmkit_risk_refusals_total', { code: 'OFF_TICK' })).toBe(30);
    expect(await metricValue(m, 'mmkit_risk_trims_total', { code: 'LOT' })).toBe(4);
    expect(await metricValue(m, 'mmkit_strategy_errors_total')).toBe(2);
    // the kernel's counters grew: the next scrape has their values (not added twice)
    refused.set('OFF_TICK', 31).set('PRICE_BAND', 1);
    errors = 5;
    expect(await metricValue(m, 'mmkit_risk_refusals_total', { code: 'OFF_TICK' })).toBe(31);
    expect(await metricValue(m, 'mmkit_risk_refusals_total', { code: 'PRICE_BAND' })).toBe(1);
    expect(await metricValue(m, 'mmkit_strategy_errors_total')).toBe(5);
    expect(await m.render()).toContain('mmkit_risk_refusals_total{code="OFF_TICK"} 31');
  });

  it('reads the request budgets at scrape time and counts 429s per endpoint', async () => {
    const m = new Metrics({ now: () => 10_000, defaultMetrics: false });
    let used = 3;
    m.watchBudgets(() => ({
      rules: [
        {
          name: 'POST /orders:burst',
          limit: 10,
          windowMs: 10_000,
          used,
          inflight: 1,
          waiting: 2,
          queued: 1,
          pausedUntil: 12_000,
          learned: false,
        },
      ],
      endpoints: [{ key: 'clob POST /orders', queued: 4, running: 1, rules: ['POST /orders:burst'] }],
    }));
    expect(await metricValue(m, 'mmkit_budget_used', { rule: 'POST /orders:burst' })).toBe(3);
    expect(await metricValue(m, 'mmkit_budget_utilization_ratio', { rule: 'POST /orders:burst' })).toBeCloseTo(0.3, 9);
    expect(await metricValue(m, 'mmkit_budget_waiting', { rule: 'POST /orders:burst' })).toBe(3);
    expect(await metricValue(m, 'mmkit_budget_paused', { rule: 'POST /orders:burst' })).toBe(1);
    expect(await metricValue(m, 'mmkit_budget_endpoint_queued', { endpoint: 'clob POST /orders' })).toBe(4);
    used = 9;
    expect(await metricValue(m, 'mmkit_budget_used', { rule: 'POST /orders:burst' })).toBe(9);
    m.rateLimited.inc({ endpoint: 'clob POST /orders' });
    expect(await metricValue(m, 'mmkit_http_rate_limited_total', { endpoint: 'clob POST /orders' })).toBe(1);
  });

  it('streams: lag histogram, up/down, reconnects (not the first sync), data age at scrape time', async () => {
    let now = 1_000_000;
    const m = new Metrics({ now: () => now, defaultMetrics: false });
    m.streamStatus('market', 'resynced', true);
    m.streamData('market', 1_000_000, 999_990);
    m.streamStatus('market', 'disconnected');
    expect(await metricValue(m, 'mmkit_stream_up', { stream: 'market' })).toBe(0);
    m.streamStatus('market', 'resynced', false);
    expect(await metricValue(m, 'mmkit_stream_up', { stream: 'market' })).toBe(1);
    expect(await metricValue(m, 'mmkit_stream_reconnects_total', { stream: 'market' })).toBe(1);
    expect(await metricValue(m, 'mmkit_stream_disconnects_total', { stream: 'market' })).toBe(1);
    now += 2500;
    expect(await metricValue(m, 'mmkit_stream_last_data_age_seconds', { stream: 'market' })).toBe(2.5);
    const text = await m.render();
    expect(text).toContain('mmkit_stream_lag_seconds_bucket{le="0.01",stream="market"} 1');
    m.tickToOrderMs(0.8);
    m.tickToOrderMs(-1);
    expect(await m.render()).toContain('mmkit_tick_to_order_seconds_count 1');
  });

  it('two registries do not collide (no global registry)', async () => {
    const a = new Metrics({ now: () => 0, defaultMetrics: false });
    const b = new Metrics({ now: () => 0, defaultMetrics: false });
    a.order('placed', 2);
    expect(await metricValue(a, 'mmkit_orders_total', { outcome: 'placed' })).toBe(2);
    expect(await metricValue(b, 'mmkit_orders_total', { outcome: 'placed' })).toBe(0);
  });
});
