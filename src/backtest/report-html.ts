/**
 * The HTML report of a backtest: ONE self-contained file (no script, no stylesheet, no font, no
 * image fetched: inline CSS and inline SVG drawn here), so it opens offline and can be mailed or
 * archived as is. Pure: a string from a result and its metrics.
 *
 * Charts, all against virtual time: PnL (total and realized), drawdown, inventory (position per
 * token), and per token the quotes against the mid (mid, our best bid and ask) with our fills on
 * it (buys ▲ green, sells ▼ red), plus a table of figures and the last fills.
 *
 * Fills drawn: every fill when the result holds all its fill rows (`fills.length === fillCount`);
 * for a longer run, the result's downsampled `fillPoints` (one fill in `stride`, said in the fill
 * chart's title). The figures are over all the fills either way (`fillStats`, via the metrics).
 */
import { distinctShortQuestions, shortQuestion, tokenLabel } from '../core/labels.ts';
import { AMOUNT_SCALE, formatAmount, PRICE_SCALE } from '../core/units.ts';
import type { Metrics } from './metrics.ts';
import {
  describeSource,
  duration,
  endpointBudgets,
  formatSummary,
  inventoryLimitText,
  rewardsLine,
  riskLimitsText,
  sharpeLine,
  shares,
  usd,
} from './report.ts';
import type { Side } from '../core/units.ts';
import type { BacktestResult } from './types.ts';

/** The per-market rewards table (empty without rewards). */
function rewardsTable(r: BacktestResult): string {
  const rw = r.rewards;
  if (rw === undefined) return '';
  const world = rw.source === 'exchange';
  const head = `<tr><th>market</th><th>earned (USDC)</th>${world ? '<th>credited at epoch ends</th><th>bot estimate</th>' : ''}<th>samples scored</th></tr>`;
  const body = rw.byMarket
    .map((x) => {
      const mk = r.markets.find((m) => m.market === x.market);
      const name = mk === undefined ? x.market : shortQuestion(mk.question, 60);
      return `<tr><td>${esc(name)}</td><td>${usd(x.accrued)}</td>${world ? `<td>${usd(x.paid ?? 0)}</td><td>${usd(x.estimated ?? 0)}</td>` : ''}<td>${x.scoredSamples} / ${x.samples}</td></tr>`;
    })
    .join('');
  const how = world
    ? 'our share of the paper exchange&#39;s pools (the epochs closed during the run and the running epoch&#39;s standing at its end, before the minimum payout)'
    : 'estimated: our quotes scored every minute against the recorded book&#39;s competition';
  return `<h2>Liquidity rewards</h2>
<p>${usd(rw.total)} USDC, ${how}; not in the PnL above.</p>
<table class="rewards">${head}${body}</table>
`;
}

const W = 960;
const H = 260;
const PAD = { l: 70, r: 16, t: 28, b: 30 };
/** The title's line holds this many characters (about 7 px each at 13 px, bold). */
const TITLE_CHARS = Math.floor((W - PAD.l - PAD.r) / 7.2);
/** The legend's first line (top of its swatches, below the title's baseline at 18) and line height. */
const LEGEND_TOP = 26;
const LEGEND_ROW = 15;
/** Width of a legend entry: its swatch, a gap, its name at about 6.5 px a character (11 px). */
const legendWidth = (name: string): number => 13 + name.length * 6.5 + 14;

/**
 * Where each legend entry goes: its line (0 = the first, below the title) and its x from the
 * plot's left edge; entries wrap onto a new line when the next would pass `width`.
 */
export function legendLayout(names: readonly string[], width: number): { x: number; row: number }[] {
  const out: { x: number; row: number }[] = [];
  let x = 0;
  let row = 0;
  for (const name of names) {
    const w = legendWidth(name);
    if (x > 0 && x + w > width) {
      row++;
      x = 0;
    }
    out.push({ x, row });
    x += w;
  }
  return out;
}

/** Escapes text for HTML and SVG. */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

interface Series {
  readonly name: string;
  readonly values: readonly (number | null)[];
  readonly color: string;
  /** An SVG `stroke-dasharray` (none: a solid line); the legend's swatch is then an outline in that pattern. */
  readonly dash?: string;
  /** Draw as steps (values hold until the next point). */
  readonly step?: boolean;
  /** Fill the area down to 0. */
  readonly area?: boolean;
}
interface Point {
  readonly t: number;
  readonly v: number;
  readonly color: string;
  readonly up: boolean;
}
interface Chart {
  readonly id: string;
  readonly title: string;
  readonly t: readonly number[];
  readonly series: readonly Series[];
  readonly points?: readonly Point[];
  readonly yFormat: (v: number) => string;
}

const n2 = (x: number): string => (Math.round(x * 10) / 10).toString();

function niceTicks(lo: number, hi: number, n = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((k) => k * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.round(v / step) * step);
  return out;
}

function clock(t: number, span: number): string {
  const d = new Date(Math.floor(t));
  const iso = d.toISOString();
  return span > 2 * 86_400_000
    ? iso.slice(5, 16).replace('T', ' ')
    : span > 600_000
      ? iso.slice(11, 16)
      : iso.slice(11, 19);
}

/** One chart as an inline SVG (lines broken where a value is null). */
export function svgChart(c: Chart): string {
  const t = c.t;
  const t0 = t[0] ?? 0;
  const t1 = t[t.length - 1] ?? t0 + 1;
  const span = Math.max(1, t1 - t0);
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of c.series) for (const v of s.values) if (v !== null) (lo = Math.min(lo, v)), (hi = Math.max(hi, v));
  for (const p of c.points ?? []) (lo = Math.min(lo, p.v)), (hi = Math.max(hi, p.v));
  if (c.series.some((s) => s.area)) (lo = Math.min(lo, 0)), (hi = Math.max(hi, 0));
  if (!Number.isFinite(lo)) (lo = 0), (hi = 1);
  if (hi === lo) (hi += 1), (lo -= 1);
  const padY = (hi - lo) * 0.06;
  lo -= padY;
  hi += padY;
  const rows =
    c.series.length === 0
      ? 0
      : Math.max(
          ...legendLayout(
            c.series.map((s) => s.name),
            W - PAD.l - PAD.r,
          ).map((it) => it.row),
        ) + 1;
  // a clear gap below the last legend line: the top y label (centred on its grid line) never touches it
  const top = LEGEND_TOP + rows * LEGEND_ROW + 14;
  const plotH = H - PAD.t - PAD.b;
  const height = top + plotH + PAD.b;
  const x = (v: number): number => PAD.l + ((v - t0) / span) * (W - PAD.l - PAD.r);
  const y = (v: number): number => top + (1 - (v - lo) / (hi - lo)) * plotH;
  const parts: string[] = [];
  parts.push(
    `<svg id="${c.id}" class="chart" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="${esc(c.title)}">`,
  );
  // the title on its own line, the legend on the lines below it (wrapped), the plot below both:
  // a legend is never drawn over the title, however many series or however long their names
  const title = c.title.length > TITLE_CHARS ? `${c.title.slice(0, TITLE_CHARS - 1)}…` : c.title;
  parts.push(`<text x="${PAD.l}" y="18" class="title"><title>${esc(c.title)}</title>${esc(title)}</text>`);
  const legend: string[] = [];
  for (const [i, it] of legendLayout(
    c.series.map((s) => s.name),
    W - PAD.l - PAD.r,
  ).entries()) {
    const s = c.series[i]!;
    const yy = LEGEND_TOP + it.row * LEGEND_ROW;
    const swatch =
      s.dash === undefined
        ? `fill="${s.color}"`
        : `fill="#fff" stroke="${s.color}" stroke-width="2" stroke-dasharray="${swatchDash(s.dash)}"`;
    legend.push(
      `<rect x="${n2(PAD.l + it.x)}" y="${yy}" width="10" height="10" ${swatch}/><text x="${n2(PAD.l + it.x + 13)}" y="${yy + 9}" class="legend">${esc(s.name)}</text>`,
    );
  }
  // grid and axes
  for (const v of niceTicks(lo, hi)) {
    const yy = n2(y(v));
    parts.push(
      `<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${yy}" y2="${yy}" class="grid"/><text x="${PAD.l - 6}" y="${yy}" class="ylab">${esc(c.yFormat(v))}</text>`,
    );
  }
  // the last time label ends at the plot's right edge (centred there, it was cut at the SVG's edge);
  // an inline style, so it holds also for an SVG taken out of the page without its stylesheet
  for (let i = 0; i <= 5; i++) {
    const tv = t0 + (span * i) / 5;
    const anchor = i === 5 ? ' style="text-anchor:end"' : '';
    parts.push(`<text x="${n2(x(tv))}" y="${height - 10}" class="xlab"${anchor}>${esc(clock(tv, span))}</text>`);
  }
  parts.push(`<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${height - PAD.b}" y2="${height - PAD.b}" class="axis"/>`);
  // series
  for (const s of c.series) {
    let d = '';
    let open = false;
    let prevY = 0;
    for (let i = 0; i < t.length; i++) {
      const v = s.values[i];
      if (v === null || v === undefined) {
        open = false;
        continue;
      }
      const xx = n2(x(t[i]!));
      const yy = n2(y(v));
      if (!open) d += `M${xx} ${yy}`;
      else if (s.step) d += `H${xx}V${yy}`;
      else d += `L${xx} ${yy}`;
      open = true;
      prevY = v;
    }
    void prevY;
    if (d === '') continue;
    if (s.area)
      parts.push(
        `<path d="${d}V${n2(y(0))}H${n2(x(t.find((_, i) => s.values[i] !== null) ?? t0))}Z" fill="${s.color}" fill-opacity="0.18" stroke="none"/>`,
      );
    const dash = s.dash === undefined ? '' : ` stroke-dasharray="${s.dash}"`;
    parts.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.4"${dash}/>`);
  }
  for (const p of c.points ?? []) {
    const xx = x(p.t);
    const yy = y(p.v);
    const s = 4;
    const pts = p.up
      ? `${n2(xx)},${n2(yy - s)} ${n2(xx - s)},${n2(yy + s)} ${n2(xx + s)},${n2(yy + s)}`
      : `${n2(xx)},${n2(yy + s)} ${n2(xx - s)},${n2(yy - s)} ${n2(xx + s)},${n2(yy - s)}`;
    parts.push(`<polygon points="${pts}" fill="${p.color}"/>`);
  }
  parts.push(...legend);
  parts.push('</svg>');
  return parts.join('');
}

const money = (v: number): string => usd(v);
const px = (v: number): string => (v / PRICE_SCALE).toFixed(2);
const sh = (v: number): string => shares(v);

/** A fill as the charts draw it. */
interface DrawnFill {
  readonly t: number;
  readonly tokenId: string;
  readonly side: Side;
  readonly price: number;
  readonly size: number;
}

/** The fills the charts draw, and one in how many fills that is (see the module comment). */
export function drawnFills(r: BacktestResult): { readonly fills: readonly DrawnFill[]; readonly stride: number } {
  if (r.fills.length >= r.fillCount) return { fills: r.fills, stride: 1 };
  const p = r.fillPoints;
  return {
    fills: p.t.map((t, i) => ({ t, tokenId: p.tokenId[i]!, side: p.side[i]!, price: p.price[i]!, size: p.size[i]! })),
    stride: p.stride,
  };
}

/**
 * The tokens' labels in a chart: outcome and market question, shortened ("Yes · Will the Fed raise
 * rates…"), longer where two questions would read the same; the token id, whole, only when its
 * market is unknown.
 */
export function tokenLabels(
  r: BacktestResult,
  tokens: readonly { readonly market: string; readonly outcome: string; readonly tokenId: string }[],
  max = 28,
): string[] {
  const questions = tokens.map((x) => r.markets.find((m) => m.market === x.market)?.question);
  const short = distinctShortQuestions(
    questions.filter((q): q is string => q !== undefined),
    max,
  );
  let k = 0;
  return tokens.map((x, i) => (questions[i] === undefined ? x.tokenId : `${x.outcome} · ${short[k++]}`));
}

/** Ten colours told apart easily (Tableau 10), then again in each dash pattern: 40 distinct series. */
const COLORS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
];
const DASHES = [undefined, '7 4', '2 3', '10 3 2 3'];

/**
 * The colour and dash pattern of series `i` of a chart with many (the inventory: one per token):
 * the colours first as solid lines, then the same colours dashed, dotted and dash-dotted, so no two
 * of the first 40 series look alike (24 tokens of 12 markets drew in 8 colours, 3 tokens a colour).
 */
export function seriesStyle(i: number): { readonly color: string; readonly dash?: string } {
  const color = COLORS[i % COLORS.length]!;
  const dash = DASHES[Math.floor(i / COLORS.length) % DASHES.length];
  return dash === undefined ? { color } : { color, dash };
}

/** A dash pattern shrunk to show in a 10-px legend swatch. */
function swatchDash(dash: string): string {
  return dash
    .split(' ')
    .map((v) => n2(Math.max(1, Number(v) / 2)))
    .join(' ');
}

/** The whole report page (see the module comment). */
export function renderHtmlReport(r: BacktestResult, m: Metrics): string {
  const s = r.samples;
  const charts: string[] = [];
  charts.push(
    svgChart({
      id: 'chart-pnl',
      title: 'PnL (USDC): total (realized + unrealized at the mid − fees) and realized',
      t: s.t,
      series: [
        { name: 'total', values: s.pnl.total, color: '#1f77b4' },
        { name: 'realized', values: s.pnl.realized, color: '#2ca02c', step: true },
      ],
      yFormat: money,
    }),
  );
  let peak = -Infinity;
  const dd = s.pnl.total.map((v) => {
    peak = Math.max(peak, v);
    return -(peak - v);
  });
  charts.push(
    svgChart({
      id: 'chart-drawdown',
      title: `Drawdown from the running peak (USDC); max ${usd(m.maxDrawdown.value)}`,
      t: s.t,
      series: [{ name: 'drawdown', values: dd, color: '#d62728', area: true }],
      yFormat: money,
    }),
  );
  const inventoryNames = tokenLabels(r, s.tokens);
  charts.push(
    svgChart({
      id: 'chart-inventory',
      title: `Inventory (shares) per token; limit ${sh(m.inventory.limit)}${m.inventory.markets !== undefined ? ' (other limits for some markets: see the figures)' : ''}`,
      t: s.t,
      series: s.tokens.map((x, i) => ({
        name: inventoryNames[i]!,
        values: x.pos.map((v) => v),
        ...seriesStyle(i),
        step: true,
      })),
      yFormat: sh,
    }),
  );
  const drawn = drawnFills(r);
  const fillsBy = new Map<string, DrawnFill[]>();
  for (const f of drawn.fills) {
    let l = fillsBy.get(f.tokenId);
    if (l === undefined) fillsBy.set(f.tokenId, (l = []));
    l.push(f);
  }
  s.tokens.forEach((x, i) => {
    const mk = r.markets.find((q) => q.market === x.market);
    const fills = fillsBy.get(x.tokenId) ?? [];
    // quotes only where we quote or hold something (both tokens of a market are sampled)
    if (fills.length === 0 && x.bid.every((v) => v === null) && x.ask.every((v) => v === null) && i % 2 === 1) return;
    charts.push(
      svgChart({
        id: `chart-quotes-${i}`,
        title: `Quotes against the mid, and fills: ${x.outcome} of "${mk === undefined ? x.tokenId : shortQuestion(mk.question, 80)}"`,
        t: s.t,
        series: [
          { name: 'mid', values: x.mid, color: '#7f7f7f' },
          { name: 'our bid', values: x.bid, color: '#2ca02c', step: true },
          { name: 'our ask', values: x.ask, color: '#d62728', step: true },
        ],
        points: fills
          .filter((f) => f.t >= (s.t[0] ?? 0))
          .map((f) => ({ t: f.t, v: f.price, color: f.side === 'BUY' ? '#2ca02c' : '#d62728', up: f.side === 'BUY' })),
        yFormat: px,
      }),
    );
  });
  const fillsChartPoints = drawn.fills.map((f) => ({
    t: f.t,
    v: f.side === 'BUY' ? f.size : -f.size,
    color: f.side === 'BUY' ? '#2ca02c' : '#d62728',
    up: f.side === 'BUY',
  }));
  charts.push(
    svgChart({
      id: 'chart-fills',
      title: `Fills: size (shares, buys up, sells down); ${m.fills} fills${drawn.stride > 1 ? `, 1 in ${drawn.stride} drawn` : ''}`,
      t: s.t.length > 1 ? s.t : [r.startMs, r.endMs],
      series: [{ name: 'zero', values: s.t.map(() => 0), color: '#bbbbbb' }],
      points: fillsChartPoints,
      yFormat: sh,
    }),
  );

  const rows: Array<[string, string]> = [
    ['Strategy', `${r.strategy.name} ${JSON.stringify(r.strategy.params)}`],
    ['Source', describeSource(r)],
    ['Seed / latency', `${r.seed} / ${r.latencyMs} ms`],
    ...(r.feeProtocol === undefined ? [] : [['Fee protocol', String(r.feeProtocol)] as [string, string]]),
    ['Post-only', r.postOnly === true ? 'on' : 'off'],
    ...(r.risk === undefined ? [] : [['Risk limits', riskLimitsText(r.risk)] as [string, string]]),
    [
      'Virtual period',
      `${new Date(Math.floor(r.startMs)).toISOString()} → ${new Date(Math.floor(r.endMs)).toISOString()} (${duration(m.durationMs)})`,
    ],
    ['Stopped', r.stopReason],
    ['Fills', `${m.fills} (${m.makerFills} maker, ${m.takerFills} taker)`],
    ['Volume / notional', `${sh(m.volume)} shares / ${usd(m.notional)} USDC`],
    // fees exact, as the summary gives them: a taker fee on small fills is cents or less
    ['Fees', `${formatAmount(m.fees)} USDC`],
    ['PnL', `${usd(m.pnl, true)} USDC (realized ${usd(m.realized, true)}, unrealized ${usd(m.unrealized, true)})`],
    ...(r.rewards !== undefined ? [['Liquidity rewards', rewardsLine(r.rewards, m)] as [string, string]] : []),
    ['Sharpe', sharpeLine(m.sharpe)],
    ['Max drawdown', `${usd(m.maxDrawdown.value)} USDC`],
    [
      'Orders',
      `${m.orders.placed} placed, ${m.orders.rejected} rejected, ${m.orders.cancelRequests} cancel requests (${m.orders.idsCancelled} ids)`,
    ],
    [
      'Fill ratio per quote',
      m.fillRatio === null
        ? 'n/a'
        : `${(m.fillRatio * 100).toFixed(1)} % (${m.fillsPerOrder?.toFixed(3)} fills per order)`,
    ],
    ...m.markouts.map((x): [string, string] => [
      `Markout +${x.horizonMs / 1000} s`,
      x.avg === null
        ? 'n/a'
        : `${x.avg >= 0 ? '+' : ''}${x.avg.toFixed(4)} (price units, size-weighted, ${x.fills} fills)`,
    ]),
    ['Time at inventory limit', `${(m.inventory.maxFraction * 100).toFixed(1)} % (${inventoryLimitText(r, m)})`],
    ...endpointBudgets(m).map((b): [string, string] => [
      `Budget ${b.rule}`,
      `${b.requests} requests; peak ${b.peak} / ${b.limit} per ${duration(b.windowMs)} (${(b.utilisation * 100).toFixed(1)} %)${b.over > 0 ? `; ${b.over} waited for room` : ''}`,
    ]),
  ];
  const table = `<table class="figures">${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>`;
  const last = r.fills.slice(-200);
  const fillTable =
    last.length === 0
      ? r.fillCount > 0
        ? `<p>No fill row kept (maxFillRows 0); all ${r.fillCount} fills are in the run's store.</p>`
        : '<p>No fills.</p>'
      : `<table class="fills"><tr><th>time</th><th>token</th><th>side</th><th>price</th><th>size</th><th>role</th><th>fee</th><th>mid +1s</th><th>mid +10s</th><th>mid +60s</th></tr>${last
          .map((f) => {
            const mk = r.markets.find((q) => q.tokens.some((t) => t.tokenId === f.tokenId));
            const outcome = mk?.tokens.find((t) => t.tokenId === f.tokenId)?.outcome;
            const mo = f.markouts.map((v) => (v === null ? '' : (v / PRICE_SCALE).toFixed(4)));
            return `<tr><td>${esc(new Date(Math.floor(f.t)).toISOString().slice(11, 23))}</td><td>${esc(mk !== undefined && outcome !== undefined ? tokenLabel(outcome, mk.question, 40) : f.tokenId)}</td><td>${f.side}</td><td>${(f.price / PRICE_SCALE).toFixed(4)}</td><td>${(f.size / AMOUNT_SCALE).toFixed(2)}</td><td>${f.role}</td><td>${formatAmount(f.fee)}</td><td>${mo[0]}</td><td>${mo[1]}</td><td>${mo[2]}</td></tr>`;
          })
          .join('')}</table>`;
  const markets = `<ol class="markets">${r.markets.map((mk) => `<li>${esc(mk.question)} <code>${esc(mk.market.slice(0, 12))}…</code> tick ${esc(mk.tick)}${mk.resolvedTo ? `, resolved to ${esc(mk.tokens.find((t) => t.tokenId === mk.resolvedTo)?.outcome ?? mk.resolvedTo)}` : ''}</li>`).join('')}</ol>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>mmkit backtest: ${esc(r.strategy.name)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 12px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
.chart{display:block;margin:10px 0;background:#fff;border:1px solid #e4e4e4;max-width:100%;height:auto}
.chart .title{font-size:13px;font-weight:600;fill:#333}.chart .grid{stroke:#eee}.chart .axis{stroke:#999}
.chart .ylab{font-size:11px;fill:#666;text-anchor:end;dominant-baseline:middle}.chart .xlab{font-size:11px;fill:#666;text-anchor:middle}.chart .legend{font-size:11px;fill:#333}
table{border-collapse:collapse;font-size:13px}th,td{padding:3px 10px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}table.figures td{word-break:break-word}
table.fills td{font-variant-numeric:tabular-nums}pre{background:#f7f7f7;padding:10px;overflow:auto;font-size:12px}
</style></head>
<body>
<h1>Backtest: ${esc(r.strategy.name)}</h1>
<p>${esc(describeSource(r))}; ${r.markets.length} market(s); ${esc(duration(m.durationMs))} of virtual time. Generated by mmkit from the run's result alone (no wall-clock values).</p>
${markets}
<h2>Figures</h2>
${table}
${rewardsTable(r)}<h2>Charts</h2>
${charts.join('\n')}
<h2>Last fills</h2>
${
  r.fillCount > r.fills.length && last.length > 0
    ? `<p>The last ${last.length} of ${r.fillCount} fills (the result keeps the last ${r.fills.length}; all are in the run's store).</p>
`
    : ''
}${fillTable}
<h2>Summary</h2>
<pre>${esc(formatSummary(r, m))}</pre>
</body></html>
`;
}
