/**
 * The daemon's session figures that a backtest reports beside fills and PnL, measured the same way
 * so the two can be compared (trial 11 F4):
 *  - markouts at +1 s, +10 s, +60 s: a fill's token's mid at the horizon minus the fill price for a
 *    BUY, the fill price minus that mid for a SELL, size-weighted, in price units; a horizon whose
 *    book is stale or one-sided then is left out, as a backtest leaves it out (the same online
 *    accumulator: src/backtest/fill-stats.ts, and the same horizons: src/backtest/metrics.ts);
 *  - the fill ratio: orders of the session that got a fill over orders placed (an order is counted
 *    at its first fill; its id is forgotten FILLED_MEMORY_MS after its last fill once it is no longer
 *    open, as a backtest forgets it (src/backtest/measurement.ts), so the set stays the recent
 *    orders' and does not grow with the session: mem18);
 *  - the max drawdown: the largest fall of total PnL from its running peak, on the status samples
 *    (every second), as a backtest measures it on its PnL samples (`--sample-ms`, 1 s by default).
 *
 * Time is the injected clock's (markout timers); the mids are read from the daemon's books.
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { FillEvent } from '../core/events.ts';
import { formatAmount } from '../core/units.ts';
import { FillStatsAccumulator } from '../backtest/fill-stats.ts';
import { MARKOUT_HORIZONS_MS } from '../backtest/metrics.ts';
import type { StatFill } from '../backtest/types.ts';

/** A markout horizon's figure: size-weighted, price units (6 decimals); null before any fill has one. */
export interface MarkoutStatus {
  readonly horizonMs: number;
  readonly fills: number;
  readonly avg: number | null;
}

/** The session's trade figures (see the module comment). */
export interface SessionTradeStatus {
  readonly markouts: readonly MarkoutStatus[];
  /** Orders of the session with at least one fill. */
  readonly ordersFilled: number;
  /** `ordersFilled` / the orders placed (6 decimals); null before any order. */
  readonly fillRatio: number | null;
  /** The largest fall of total PnL from its running peak, USDC (decimal string). */
  readonly maxDrawdown: string;
}

/** Options of SessionTradeStats. */
export interface SessionTradeStatsOptions {
  readonly clock: Clock;
  /** The token's mid now, pips (may be x.5); null when its book is stale or one-sided. */
  readonly mid: (tokenId: string) => number | null;
  readonly horizonsMs?: readonly number[];
  /** The ids of the bot's open orders now (an open order's id is kept however old its last fill). Default: none. */
  readonly openOrderIds?: () => Iterable<string>;
}

/** How long after its last fill an order that is no longer open is remembered as filled (ms). */
export const FILLED_MEMORY_MS = 600_000;
/** Time between two prunings of the orders remembered as filled (ms). */
const PRUNE_MS = 60_000;

/** The session's markouts, fill ratio and drawdown (see the module comment). */
export class SessionTradeStats {
  readonly #o: SessionTradeStatsOptions;
  readonly #horizons: readonly number[];
  readonly #acc: FillStatsAccumulator;
  /** Orders with a fill (id -> time of its last fill), forgotten as the module comment says. */
  readonly #filled = new Map<string, number>();
  #ordersFilled = 0;
  #prunedAt: number;
  readonly #timers = new Set<TimerHandle>();
  #peak: number | undefined;
  #drawdown = 0;
  #closed = false;

  constructor(o: SessionTradeStatsOptions) {
    this.#o = o;
    this.#horizons = o.horizonsMs ?? MARKOUT_HORIZONS_MS;
    this.#acc = new FillStatsAccumulator({ horizonsMs: this.#horizons, limit: 0, startMs: o.clock.now(), tokens: [] });
    this.#prunedAt = o.clock.now();
  }

  /** Counts the order at its first fill (each once while remembered). */
  #filledNow(orderId: string): void {
    const now = this.#o.clock.now();
    if (!this.#filled.has(orderId)) this.#ordersFilled++;
    this.#filled.set(orderId, now);
    if (now - this.#prunedAt >= PRUNE_MS) this.#prune(now);
  }

  /** Forgets the orders whose last fill is older than FILLED_MEMORY_MS and that are not open. */
  #prune(now: number): void {
    this.#prunedAt = now;
    let open: Set<string> | undefined;
    for (const [id, at] of this.#filled) {
      if (now - at < FILLED_MEMORY_MS) continue;
      open ??= new Set(this.#o.openOrderIds?.() ?? []);
      if (!open.has(id)) this.#filled.delete(id);
    }
  }

  /** A new fill of the bot's own order (each once): counted, and its markouts timed. */
  fill(f: FillEvent): void {
    if (this.#closed) return;
    const row: StatFill = {
      t: this.#o.clock.now(),
      tokenId: f.tokenId,
      side: f.side,
      price: f.price,
      size: f.size,
      fee: f.fee ?? 0,
      role: f.role,
    };
    this.#acc.add(row);
    this.#filledNow(f.orderId);
    this.#horizons.forEach((h, i) => {
      const handle = this.#o.clock.setTimeout(() => {
        this.#timers.delete(handle);
        this.#acc.markout(row, i, this.#o.mid(f.tokenId));
      }, h);
      this.#timers.add(handle);
    });
  }

  /**
   * An order of the bot's that got a fill the user channel never delivered (backfilled at shutdown):
   * counted as filled for the fill ratio, as the exit summary's fills count it (trial 13 F8); no
   * markout (its horizons would come after the exit).
   */
  filledOrder(orderId: string): void {
    this.#filledNow(orderId);
  }

  /** Orders remembered as filled now (for tests: bounded by the recent and the open orders). */
  get rememberedOrders(): number {
    return this.#filled.size;
  }

  /** A sample of total PnL, micro-USDC: the drawdown from the running peak. */
  pnl(total: number): void {
    if (this.#peak === undefined || total > this.#peak) this.#peak = total;
    this.#drawdown = Math.max(this.#drawdown, this.#peak - total);
  }

  /** The figures now; `placed`: the orders placed this session. */
  status(placed: number): SessionTradeStatus {
    const r = this.#acc.result(this.#o.clock.now());
    return {
      markouts: r.markouts.map((m) => ({ horizonMs: m.horizonMs, fills: m.fills, avg: m.avg })),
      ordersFilled: this.#ordersFilled,
      fillRatio: placed > 0 ? Math.round((this.#ordersFilled / placed) * 1e6) / 1e6 : null,
      maxDrawdown: formatAmount(this.#drawdown),
    };
  }

  /** Stops the markout timers (the pending markouts are left out). */
  close(): void {
    this.#closed = true;
    for (const h of this.#timers) this.#o.clock.clearTimeout(h);
    this.#timers.clear();
  }
}

/** The token's mid from its book top (pips; x.5 when the spread is odd); null when stale or one-sided. */
export function midOfTop(
  top: { readonly bestBid: number | null; readonly bestAsk: number | null; readonly stale: boolean } | undefined,
): number | null {
  if (top === undefined || top.stale || top.bestBid === null || top.bestAsk === null) return null;
  return (top.bestBid + top.bestAsk) / 2;
}

const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;

/**
 * The summary's lines, as a backtest's: `markouts  +1s +0.0082   +10s +0.0088   +60s +0.0087
 * (price units, size-weighted, over 121/117/97 fills)`, `fill ratio  19.7 % of orders placed got a
 * fill`, `max drawdown  0.19 USDC`.
 */
export function sessionTradeLines(s: SessionTradeStatus): { markouts: string; fillRatio: string; maxDrawdown: string } {
  return {
    markouts:
      s.markouts.map((m) => `+${m.horizonMs / 1000}s ${m.avg === null ? 'n/a' : signed(m.avg)}`).join('   ') +
      `   (price units, size-weighted, over ${s.markouts.map((m) => m.fills).join('/')} fills)`,
    fillRatio:
      s.fillRatio === null
        ? 'n/a (no order placed)'
        : `${(s.fillRatio * 100).toFixed(1)} % of orders placed got a fill (${s.ordersFilled})`,
    maxDrawdown: `${s.maxDrawdown} USDC (on the status samples, every second)`,
  };
}
