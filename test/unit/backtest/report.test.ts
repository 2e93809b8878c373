/**
 * The terminal summary and the HTML report of a backtest on a hand-built result.
 */
import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../../src/backtest/metrics.ts';
import {
  codeCountsText,
  duration,
  effectiveRiskLimits,
  formatSummary,
  rewardsLine,
  rewardUsd,
  sharpeLine,
  shares,
  strategyFailure,
  usd,
} from '../../../src/backtest/report.ts';
import {
  esc,
  legendLayout,
  renderHtmlReport,
  seriesStyle,
  svgChart,
  tokenLabels,
} from '../../../src/backtest/report-html.ts';
import { sampleResult } from './fixtures.ts';

describe('backtest report: terminal summary', () => {
  it('formats money, shares and durations exactly', () => {
    expect(usd(1_987_655)).toBe('1.99');
    expect(usd(1_987_655, true)).toBe('+1.99');
    expect(usd(-1_000_000, true)).toBe('-1.00');
    expect(usd(-4_000, true)).toBe('+0.00'); // rounds to zero: no minus sign
    expect(usd(0)).toBe('0.00');
    expect(shares(65_000_000)).toBe('65');
    expect(shares(5_780_000)).toBe('5.78');
    expect(duration(850)).toBe('850 ms');
    expect(duration(27_211)).toBe('27s');
    expect(duration(4 * 60_000 + 30_000)).toBe('4m 30s');
    expect(duration(6 * 3_600_000)).toBe('6h 0m');
  });

  it('prints every figure of the result', () => {
    const r = sampleResult();
    const s = formatSummary(r, computeMetrics(r));
    expect(s).toContain(
      'mmkit backtest: bands on 1 market, feed x.ndjson.gz, queue risk-averse, seed 1, latency 0 ms, fee protocol 2',
    );
    expect(s).toContain('period          2026-01-01T00:00:00Z → 2026-01-01T00:00:05Z (5s virtual)');
    expect(s).toContain('fills           4 (3 maker, 1 taker); volume 65 shares, notional 33.50 USDC');
    // fees exact, as the venue charges them (trial 12 F10: a cent rounding hid them)
    expect(s).toContain('PnL             +1.99 USDC (realized +3.00, unrealized -1.00, fees 0.012345)');
    expect(s).toContain('Sharpe          n/a (0 hourly PnL changes: 10 needed)');
    expect(s).toContain('max drawdown    0.00 USDC');
    // the venue's codes of the rejections (findings-3 F6)
    // the cancel-all names no id (trial 12 F12: "151 ids: 167 cancelled" read as a contradiction)
    expect(s).toContain(
      'orders          8 placed (10 sent, 2 rejected: INVALID_ORDER_NOT_ENOUGH_BALANCE x2), 4 cancel requests of 6 ids and 1 cancel-all (of every open order)\n',
    );
    // a feed backtest's venue says which cancels took effect and which came after the order filled (trial 11 F3)
    const feed = { ...r, venue: { ordersCancelled: 5, cancelsTooLate: 1 } };
    expect(formatSummary(feed, computeMetrics(feed))).toContain(
      'orders          8 placed (10 sent, 2 rejected: INVALID_ORDER_NOT_ENOUGH_BALANCE x2), 4 cancel requests of 6 ids and 1 cancel-all (of every open order): 5 cancelled, 1 too late (the order had filled or ended)',
    );
    const noAll = { ...feed, orders: { ...feed.orders, cancelAllRequests: 0 } };
    expect(formatSummary(noAll, computeMetrics(noAll))).toContain(
      '4 cancel requests (6 ids: 5 cancelled, 1 too late (the order had filled or ended))',
    );
    expect(s).toContain('fill ratio      37.5 % of orders placed got a fill; 0.500 fills per order');
    expect(s).toContain(
      'markouts        +1s +0.0154   +10s -0.0100   +60s +0.0500   (price units, size-weighted, over 4/2/1 fills)',
    );
    expect(s).toContain(
      'at inv. limit   40.0 % of the time, for the token longest there (limit 20 shares, strategy.maxPosition)',
    );
    expect(s).toContain(
      'budgets         POST /orders:burst                   5 requests, peak 250/1000 per 10s (25.0 %)',
    );
    expect(s).toContain(
      'events          100 feed items, 150 market events, 20 user events, 40 intents (30 coalesced), 1 malformed lines skipped',
    );
    expect(s).not.toContain('request budgets');
    // requests that waited for room in a window: a warning line (trial 23 F6: 100 % and nothing said)
    const churn = {
      ...r,
      budgets: [{ rule: 'POST /orders:burst', limit: 1000, windowMs: 10_000, requests: 44_688, peak: 1000, over: 73 }],
    };
    expect(formatSummary(churn, computeMetrics(churn))).toContain(
      "  warning         the strategy filled the venue's request budgets (POST /orders 73 waited): it re-quotes faster",
    );
    expect(s.endsWith('\n')).toBe(true);
    expect(s).not.toContain('strategy errors');
    expect(s).not.toContain('refused');
    const refused = { ...r, counts: { ...r.counts, ordersRefused: 2 } };
    expect(formatSummary(refused, computeMetrics(refused))).toContain(
      'refused         2 immediate order(s) (FOK/FAK) refused by the risk gate, never sent',
    );
    // with their codes (F11: the line used to give none)
    const coded = {
      ...r,
      counts: { ...r.counts, ordersRefused: 3, ordersRefusedByCode: { OFF_TICK: 1, ORDER_SIZE: 2 } },
    };
    expect(formatSummary(coded, computeMetrics(coded))).toContain(
      'refused         3 immediate order(s) (FOK/FAK) refused by the risk gate, never sent: ORDER_SIZE x2, OFF_TICK x1\n',
    );
  });

  it('reports strategy errors with the first one; a run that threw and sent nothing failed', () => {
    const r = sampleResult();
    const thrown = {
      ...r,
      engine: {
        ...r.engine,
        errors: { ...r.engine.errors, strategy: 40_366 },
        firstStrategyError: { message: 'boom in onEvent', at: '/tmp/bad.ts:2:99' },
      },
    };
    const s = formatSummary(thrown, computeMetrics(thrown));
    expect(s).toContain(
      'strategy errors 40366 (the strategy erred: threw or returned an invalid output; its output was dropped); first: boom in onEvent at /tmp/bad.ts:2:99',
    );
    expect(strategyFailure(r, computeMetrics(r))).toBeUndefined();
    expect(strategyFailure(thrown, computeMetrics(thrown))).toBeUndefined(); // it sent orders
    const silent = { ...thrown, orders: { ...thrown.orders, ordersSent: 0, ordersAccepted: 0, ordersRejected: 0 } };
    expect(strategyFailure(silent, computeMetrics(silent))).toBe(
      'the strategy erred 40366 time(s) (threw or returned an invalid output) and placed no order (first: boom in onEvent at /tmp/bad.ts:2:99)',
    );
  });

  it("shows the risk gate's refusals and trims by code, and a run the gate refused everything of is FAILED (findings-4 F8)", () => {
    const r = sampleResult();
    const refused = {
      ...r,
      counts: { ...r.counts, quotesRefused: { NO_INVENTORY: 1, OFF_TICK: 21_612 }, quotesTrimmed: { POSITION: 3 } },
    };
    const s = formatSummary(refused, computeMetrics(refused));
    expect(s).toContain('  quotes refused  OFF_TICK x21612, NO_INVENTORY x1 (by the risk gate, never sent)\n');
    expect(s).toContain('  quotes trimmed  POSITION x3 (sent smaller by the risk gate)\n');
    expect(formatSummary(r, computeMetrics(r))).not.toContain('quotes refused');
    expect(codeCountsText(refused.counts.quotesRefused)).toBe('OFF_TICK x21612, NO_INVENTORY x1');
    // it sent orders: refusals alone are no failure
    expect(strategyFailure(refused, computeMetrics(refused))).toBeUndefined();
    const none = { ...refused, orders: { ...refused.orders, ordersSent: 0, ordersAccepted: 0, ordersRejected: 0 } };
    expect(strategyFailure(none, computeMetrics(none))).toBe(
      'the strategy placed no order: the risk gate refused everything it asked for (quotes: OFF_TICK x21612, NO_INVENTORY x1)',
    );
    const fok = { ...none, counts: { ...r.counts, ordersRefused: 2 } };
    expect(strategyFailure(fok, computeMetrics(fok))).toBe(
      'the strategy placed no order: the risk gate refused everything it asked for (2 immediate order(s))',
    );
    // sent, and every one rejected by the venue (FOKs it killed), nothing filled: FAILED, as strategy check
    // fails it (trial 23 F7)
    const rejected = {
      ...r,
      fillStats: { ...r.fillStats, fills: 0 },
      orders: {
        ...r.orders,
        ordersSent: 60,
        ordersAccepted: 0,
        ordersRejected: 60,
        rejectCodes: { FOK_ORDER_NOT_FILLED_ERROR: 60 },
      },
    };
    expect(strategyFailure(rejected, computeMetrics(rejected))).toBe(
      'no order rested or filled: the venue rejected every order sent (60: FOK_ORDER_NOT_FILLED_ERROR x60)',
    );
    // some unanswered (the run ended first: UNKNOWN): no verdict (review 48b F3)
    const unanswered = { ...rejected, orders: { ...rejected.orders, ordersRejected: 58, ordersUnknown: 2 } };
    expect(strategyFailure(unanswered, computeMetrics(unanswered))).toBeUndefined();
    // nothing asked, nothing refused: a strategy that stays out is no failure
    const idle = { ...none, counts: r.counts };
    expect(strategyFailure(idle, computeMetrics(idle))).toBeUndefined();
  });
});

describe('backtest report: the rules the run had (post-only, risk limits)', () => {
  it('the effective risk limits: every limit with its default, per-market ones in full', () => {
    const d = effectiveRiskLimits();
    expect(d).toMatchObject({ maxPositionShares: 250, maxOrderSizeShares: 100, maxLoss: 100, maxDailyLoss: 0 });
    expect(d['markets']).toBeUndefined();
    const r = effectiveRiskLimits({ maxPositionShares: '50', markets: { m1: { maxOrderSizeShares: 10 } } });
    expect(r['maxPositionShares']).toBe(50);
    expect((r['markets'] as Record<string, Record<string, number>>)['m1']).toMatchObject({
      maxPositionShares: 50,
      maxOrderSizeShares: 10,
    });
  });

  it('the first line says whether post-only was on and names the non-default risk limits; so does the HTML report', () => {
    const r = { ...sampleResult(), risk: effectiveRiskLimits() };
    expect(formatSummary(r, computeMetrics(r)).split('\n')[0]).toBe(
      'mmkit backtest: bands on 1 market, feed x.ndjson.gz, queue risk-averse, seed 1, latency 0 ms, fee protocol 2, ' +
        'post-only off, risk limits default',
    );
    const tight = {
      ...r,
      postOnly: true as const,
      risk: effectiveRiskLimits({ maxPositionShares: 50, maxLoss: 20, markets: { m1: { maxOrderSizeShares: 10 } } }),
    };
    const m = computeMetrics(tight);
    expect(formatSummary(tight, m).split('\n')[0]).toMatch(
      /, post-only on, risk limits maxPositionShares 50, maxLoss 20, own limits for 1 market$/,
    );
    const html = renderHtmlReport(tight, m);
    expect(html).toContain('<th>Post-only</th><td>on</td>');
    expect(html).toContain('<th>Risk limits</th><td>maxPositionShares 50, maxLoss 20, own limits for 1 market</td>');
  });
});

describe('backtest report: HTML', () => {
  it('gives fees exact, as the summary does (Figures and the fill table)', () => {
    const r = sampleResult();
    const html = renderHtmlReport(r, computeMetrics(r));
    expect(html).toContain('<th>Fees</th><td>0.012345 USDC</td>');
    expect(html).toContain('<td>TAKER</td><td>0.012345</td>');
  });

  it('shows the same budget rows as the summary: the endpoints, not the umbrella general and clob windows (trial 23 F9)', () => {
    const base = sampleResult();
    const umbrella = { limit: 15_000, windowMs: 10_000, requests: 16, peak: 4, over: 0 };
    const r = {
      ...base,
      budgets: [{ rule: 'general', ...umbrella }, { rule: 'clob', ...umbrella }, ...base.budgets],
    };
    const m = computeMetrics(r);
    const html = renderHtmlReport(r, m);
    const text = formatSummary(r, m);
    for (const rule of ['general', 'clob']) {
      expect(html).not.toContain(`<th>Budget ${rule}</th>`);
      expect(text).not.toMatch(new RegExp(`^ +${rule} +16 requests`, 'm'));
    }
    expect(html).toContain('<th>Budget POST /orders:burst</th>');
    expect(text).toContain('budgets         POST /orders:burst');
  });

  it('is one self-contained page: no script, stylesheet, image or font fetched', () => {
    const r = sampleResult();
    const html = renderHtmlReport(r, computeMetrics(r));
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|src=|href=|https?:\/\//i);
    for (const id of ['chart-pnl', 'chart-drawdown', 'chart-inventory', 'chart-fills'])
      expect(html).toContain(`id="${id}"`);
    expect(html).toContain('<svg');
    expect(html).toContain('Markout +1 s');
    expect(html).toContain('+0.0154');
  });

  it('draws the fills of a token on its quotes chart, buys as up triangles, sells as down triangles', () => {
    const r = sampleResult();
    const withTokens = {
      ...r,
      samples: {
        ...r.samples,
        tokens: [
          {
            tokenId: 'yes',
            market: 'm1',
            outcome: 'Yes',
            mid: [5000, 5100, null, 5200, 5200, 5300],
            bid: [4900, 4900, 4900, null, null, 5000],
            ask: [5100, 5200, 5200, 5300, 5300, 5400],
            pos: [0, 10, -20, -20, -15, -15],
          },
          {
            tokenId: 'no',
            market: 'm1',
            outcome: 'No',
            mid: [5000, 4900, 4800, 4800, 4800, 4700],
            bid: [null, null, null, null, null, null],
            ask: [null, null, null, null, null, null],
            pos: [0, 0, 0, 20, 20, 20],
          },
        ],
      },
    };
    const html = renderHtmlReport(withTokens, computeMetrics(withTokens));
    expect(html).toContain('id="chart-quotes-0"');
    expect(html).toContain('id="chart-quotes-1"'); // the NO token has a fill
    const q0 = html.slice(
      html.indexOf('id="chart-quotes-0"'),
      html.indexOf('</svg>', html.indexOf('id="chart-quotes-0"')),
    );
    expect((q0.match(/<polygon/g) ?? []).length).toBe(3); // 3 fills on YES
    expect(q0).toContain('our bid');
    // a null mid breaks the line: two sub-paths
    const mid = /<path d="(M[^"]*)" fill="none" stroke="#7f7f7f"/.exec(q0)![1]!;
    expect((mid.match(/M/g) ?? []).length).toBe(2);
  });

  it('escapes text from the data', () => {
    expect(esc('<b>"x" & y</b>')).toBe('&lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt;');
    const svg = svgChart({
      id: 'c',
      title: '<evil>',
      t: [0, 1],
      series: [{ name: 'a&b', values: [1, 2], color: '#000' }],
      yFormat: String,
    });
    expect(svg).toContain('&lt;evil&gt;');
    expect(svg).toContain('a&amp;b');
    expect(svg).not.toContain('<evil>');
  });
});

describe('backtest report: the rewards line', () => {
  const m = computeMetrics(sampleResult());
  const row = (market: string, accrued: number, paid: number, estimated: number) => ({
    market,
    accrued,
    samples: 10,
    scoredSamples: 5,
    estimated,
    paid,
  });

  it('world mode: says how much was not paid (below the minimum payout) rather than "none below"', () => {
    const rw = {
      source: 'exchange' as const,
      total: 610_000,
      byMarket: [row('a', 400_000, 0, 300_000), row('b', 210_000, 0, 250_000)],
    };
    const line = rewardsLine(rw, { ...m, pnlWithRewards: 52_430_000 });
    expect(line).toBe(
      '+0.61 USDC earned at the exchange (0.00 credited at epoch ends, 0.61 not paid: below the minimum payout, or in the epoch running at the end; the bot estimated 0.55; 2 markets); PnL with rewards +52.43 USDC',
    );
    expect(line).not.toContain('none below');
  });

  it('a sub-cent reward is given to the micro, not as 0.00 (trial 16 F11)', () => {
    const rw = { source: 'estimate' as const, total: 4_213, byMarket: [row('a', 4_213, 0, 4_213)] };
    expect(rewardsLine(rw, { ...m, pnlWithRewards: 1_004_213 })).toMatch(
      /^\+0\.004213 USDC estimated against the recorded book \(.*; 1 market\); PnL with rewards \+1\.00 USDC$/,
    );
    expect(rewardUsd(0, true)).toBe('+0.00');
    expect(rewardUsd(-4_999)).toBe('-0.004999');
    expect(rewardUsd(5_000, true)).toBe('+0.01'); // a cent when rounded: as every other amount
    expect(rewardUsd(1)).toBe('0.000001');
    expect(rewardUsd(4_210, true)).toBe('+0.00421'); // formatted as the daemon does: no trailing zero
  });

  it('world mode: all credited says nothing of unpaid earnings', () => {
    const rw = { source: 'exchange' as const, total: 960_000, byMarket: [row('a', 960_000, 960_000, 940_000)] };
    expect(rewardsLine(rw, { ...m, pnlWithRewards: 1_000_000 })).toBe(
      '+0.96 USDC earned at the exchange (0.96 credited at epoch ends; the bot estimated 0.94; 1 market); PnL with rewards +1.00 USDC',
    );
  });
});

describe('backtest report: the Sharpe line', () => {
  it('says how many daily or hourly PnL changes the ratio is over', () => {
    const base = { periodMs: 3_600_000, periodsPerYear: 8766 };
    expect(sharpeLine({ ...base, value: 0.8412, period: 'hour', periods: 47 })).toBe(
      '0.84 (47 hourly PnL changes, annualised ×√8766)',
    );
    expect(sharpeLine({ ...base, value: null, period: 'hour', periods: 1 })).toBe(
      'n/a (1 hourly PnL change: 10 needed)',
    );
    expect(sharpeLine({ periodMs: 86_400_000, periodsPerYear: 365.25, value: null, period: 'day', periods: 12 })).toBe(
      'n/a (12 daily PnL changes, no variation)',
    );
  });
});

describe('backtest report: chart legends and labels', () => {
  /** The legend entries of a chart: swatch top y, text x and name. */
  const legendOf = (svg: string) =>
    [
      ...svg.matchAll(
        /<rect x="([\d.]+)" y="([\d.]+)" width="10" height="10"[^>]*\/><text x="[\d.]+" y="[\d.]+" class="legend">([^<]*)<\/text>/g,
      ),
    ].map((m) => ({ x: Number(m[1]), y: Number(m[2]), name: m[3]! }));

  it('never draws a legend over the title: the legend lines sit below it, wrapped within the chart', () => {
    const names = Array.from(
      { length: 24 },
      (_, i) => `${i % 2 ? 'No' : 'Yes'} · Will the price of Ethereum be above $${3000 + i}…`,
    );
    const svg = svgChart({
      id: 'inv',
      title: `Inventory (shares) per token; limit 100 ${'and a long title '.repeat(8)}`,
      t: [0, 1],
      series: names.map((name) => ({ name, values: [1, 2], color: '#000' })),
      yFormat: String,
    });
    const legend = legendOf(svg);
    expect(legend.map((l) => l.name)).toEqual(names);
    // the title's baseline is y = 18: every swatch starts below it
    expect(/<text x="70" y="18" class="title">/.test(svg)).toBe(true);
    for (const l of legend) expect(l.y).toBeGreaterThanOrEqual(24);
    // several lines, each within the chart's width (960 - 16 on the right), entries not overlapping
    const rows = new Set(legend.map((l) => l.y));
    expect(rows.size).toBeGreaterThan(3);
    const layout = legendLayout(names, 960 - 70 - 16);
    for (const [i, it] of layout.entries()) {
      expect(it.x + 13 + names[i]!.length * 6.5).toBeLessThanOrEqual(960 - 70 - 16);
      const next = layout[i + 1];
      if (next?.row === it.row) expect(next.x).toBeGreaterThan(it.x + 13 + names[i]!.length * 6.5);
    }
    // the plot starts below the last legend line
    const gridTop = Math.min(
      ...[...svg.matchAll(/y1="([\d.]+)" y2="[\d.]+" class="grid"/g)].map((m) => Number(m[1] ?? Infinity)),
    );
    expect(gridTop).toBeGreaterThan(Math.max(...legend.map((l) => l.y)) + 10);
  });

  it('labels the tokens of the inventory chart and the fill table by outcome and short question, not "Yes 1"', () => {
    const r = sampleResult();
    const long = {
      ...r,
      markets: r.markets.map((m) => ({
        ...m,
        question: 'Will the Federal Reserve raise interest rates by 25+ bps in December?',
      })),
      samples: {
        ...r.samples,
        tokens: [
          {
            tokenId: 'yes',
            market: 'm1',
            outcome: 'Yes',
            mid: r.samples.t.map(() => 5000),
            bid: r.samples.t.map(() => null),
            ask: r.samples.t.map(() => null),
            pos: r.samples.t.map(() => 0),
          },
        ],
      },
    };
    const html = renderHtmlReport(long, computeMetrics(long));
    const inv = html.slice(
      html.indexOf('id="chart-inventory"'),
      html.indexOf('</svg>', html.indexOf('id="chart-inventory"')),
    );
    expect(legendOf(inv).map((l) => l.name)).toEqual(['Yes · Will the Federal Reserve…']);
    expect(html).not.toMatch(/>(Yes|No) \d+</);
    expect(html).toContain('<td>Yes · Will the Federal Reserve raise interest…</td>');
  });
});

describe('backtest report: every series of a chart can be told apart; no label clipped or touching', () => {
  it("draws 24 inventory lines in 24 distinct colour-and-dash styles, each swatch in its line's style", () => {
    const r = sampleResult();
    const markets = Array.from({ length: 12 }, (_, k) => ({
      ...r.markets[0]!,
      market: `m${k}`,
      question: `Will candidate number ${k} win the seat of district ${k}?`,
    }));
    const tokens = markets.flatMap((m, k) =>
      ['Yes', 'No'].map((outcome) => ({
        tokenId: `${outcome}${k}`,
        market: m.market,
        outcome,
        mid: r.samples.t.map(() => 5000),
        bid: r.samples.t.map(() => null),
        ask: r.samples.t.map(() => null),
        pos: r.samples.t.map((_, i) => i * 1_000_000 * (k + 1)),
      })),
    );
    const many = { ...r, markets, samples: { ...r.samples, tokens } };
    const html = renderHtmlReport(many, computeMetrics(many));
    const start = html.indexOf('id="chart-inventory"');
    const inv = html.slice(start, html.indexOf('</svg>', start));
    const lines = [
      ...inv.matchAll(
        /<path d="M[^"]*" fill="none" stroke="(#[0-9a-f]{6})" stroke-width="1.4"( stroke-dasharray="([^"]*)")?\/>/g,
      ),
    ];
    expect(lines).toHaveLength(24);
    const styles = lines.map((m) => `${m[1]} ${m[3] ?? 'solid'}`);
    expect(new Set(styles).size).toBe(24);
    const swatches = [...inv.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="10" height="10" ([^/]*)\/><text/g)].map(
      (m) => m[1]!,
    );
    expect(swatches).toHaveLength(24);
    expect(new Set(swatches).size).toBe(24);
    for (const [i, m] of lines.entries()) {
      expect(swatches[i]).toContain(m[1]!);
      expect(swatches[i]!.includes('stroke-dasharray')).toBe(m[3] !== undefined);
    }
    expect(seriesStyle(0)).toEqual({ color: '#1f77b4' });
    expect(new Set(Array.from({ length: 40 }, (_, i) => JSON.stringify(seriesStyle(i)))).size).toBe(40);
  });

  it("ends the last time label at the plot's edge and keeps the top y label clear of the legend", () => {
    const svg = svgChart({
      id: 'pnl',
      title: 'PnL',
      t: [0, 1_800_000],
      series: [
        { name: 'total', values: [0, 20], color: '#1f77b4' },
        { name: 'realized', values: [0, 10], color: '#2ca02c' },
      ],
      yFormat: (v) => v.toFixed(2),
    });
    const x = [...svg.matchAll(/<text x="([\d.]+)" y="[\d.]+" class="xlab"( style="text-anchor:end")?>([^<]*)</g)];
    expect(x).toHaveLength(6);
    expect(x.slice(0, 5).every((m) => m[2] === undefined)).toBe(true);
    expect(x[5]![2]).toBeDefined(); // anchored at its end: drawn left of x, inside the SVG
    expect(Number(x[5]![1])).toBeLessThanOrEqual(960 - 16);
    // the highest y label (11 px, centred on its grid line) starts at least 6 px below the legend's swatches
    const legendBottom = Math.max(
      ...[...svg.matchAll(/<rect x="[\d.]+" y="([\d.]+)" width="10" height="10"/g)].map((m) => Number(m[1]) + 10),
    );
    const topLabel = Math.min(
      ...[...svg.matchAll(/<text x="[\d.]+" y="([\d.]+)" class="ylab">/g)].map((m) => Number(m[1])),
    );
    expect(topLabel - 6).toBeGreaterThanOrEqual(legendBottom + 6);
  });
});

describe('backtest report: token labels', () => {
  it('tells apart two markets whose short questions would read the same; an unknown market by its token id, whole', () => {
    const r = sampleResult();
    const two = {
      ...r,
      markets: [
        { ...r.markets[0]!, market: 'a', question: 'Will the price of Ethereum be above $3,750 on November 27?' },
        { ...r.markets[0]!, market: 'b', question: 'Will the price of Ethereum be above $3,500 on November 27?' },
      ],
    };
    const id = '1'.repeat(77);
    expect(
      tokenLabels(two, [
        { market: 'a', outcome: 'Yes', tokenId: 'y1' },
        { market: 'b', outcome: 'No', tokenId: 'n2' },
        { market: 'c', outcome: 'Yes', tokenId: id },
      ]),
    ).toEqual([
      'Yes · Will the price of Ethereum be above $3,750…',
      'No · Will the price of Ethereum be above $3,500…',
      id,
    ]);
  });
});
