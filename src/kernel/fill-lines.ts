/**
 * The kernel's log lines of fills that did not come from the user channel as the bot's own: another
 * client's fills (external), and fills found later in the venue's trade history (at the restart, or
 * by the position audit), each named as the user channel's fills are (market, token and its outcome,
 * side, size, price, order, trade), and the audit's booking of the account's trades the ledger lacks;
 * and the lines of an order the venue rejected, or cancelled without the bot's asking, named the same way.
 */
import { fillLogFields, type OrderUpdateEvent } from '../core/events.ts';
import { RateLimitedLog } from '../core/rate-limited-log.ts';
import { formatAmount, formatPrice } from '../core/units.ts';
import type { TrackedOrder } from '../execution/tracker.ts';
import type { MarketInfo, Venue, VenueFill } from '../core/venue.ts';
import { backfillFills } from '../engine/restart.ts';
import type { TraderLogger } from './types.ts';

type FillLike = Parameters<typeof fillLogFields>[0] & { readonly market: string };

/** Logs fills by the markets the trader follows (an outcome named where the market is one of them). */
export function fillLines(
  markets: readonly MarketInfo[],
  marketLog: (component: string, market: string) => Pick<TraderLogger, 'info' | 'warn'>,
) {
  const outcomeOf = (f: { readonly market: string; readonly tokenId: string }): string | undefined =>
    markets.find((m) => m.market === f.market)?.tokens.find((t) => t.tokenId === f.tokenId)?.outcome;
  // (a cancel-all of many orders: the first 10 lines, then every 1000th, the others at debug)
  const outside = new RateLimitedLog({ others: 'debug' });
  return {
    /**
     * An open order of the bot's that the venue cancelled without the bot's asking (trial 15 F5: a
     * `mmkit cancel-all` beside the daemon was said nowhere, and the daemon quoted again at once).
     */
    cancelledOutside(e: OrderUpdateEvent): void {
      const outcome = outcomeOf(e);
      outside.log(
        marketLog('executor', e.market),
        'info',
        'cancelled-outside',
        {
          order: e.id,
          token: e.tokenId,
          ...(outcome !== undefined ? { outcome } : {}),
          side: e.side,
          price: formatPrice(e.price),
          size: formatAmount(e.originalSize),
        },
        "order cancelled at the venue, not by the daemon (mmkit cancel-all, another client of the key, the market's close or an expiry): the strategy quotes again",
      );
    },
    /** A fill of an order the bot did not place, from the user channel. */
    external(f: FillLike): void {
      marketLog('executor', f.market).info(
        fillLogFields(f, outcomeOf(f)),
        "external fill (an order the bot did not place): recorded, not the strategy's",
      );
    },
    /** A fill found in the venue's trade history (`why`: where), the bot's or another client's. */
    backfilled(f: FillLike, external: boolean, why: string): void {
      marketLog('executor', f.market).info(
        { ...fillLogFields(f, outcomeOf(f)), source: external ? 'external' : 'bot', backfilled: true },
        `${external ? 'external fill' : 'fill'} (${why})`,
      );
    },
    /** An order the venue rejected: its code and message, and what it was (when the tracker has it). */
    rejected(r: { id: string; market: string; code: string; message: string }, t: TrackedOrder | undefined): void {
      const outcome = t === undefined ? undefined : outcomeOf(t);
      marketLog('executor', r.market).warn(
        {
          order: r.id,
          code: r.code,
          message: r.message,
          ...(t !== undefined
            ? {
                token: t.tokenId,
                ...(outcome !== undefined ? { outcome } : {}),
                side: t.side,
                price: formatPrice(t.price),
                size: formatAmount(t.originalSize),
              }
            : {}),
        },
        'order rejected',
      );
    },
  };
}

/**
 * The position audit's `bookTrades`: the account's trades since `sinceMs` that the ledger lacks,
 * booked as the fills they are (`book`: the executor's `onVenueFill`, true for a new one), each
 * handed to `seen` (the engine state) and logged; resolves with how many were new (trial 13 F16).
 */
export function tradeBooker(o: {
  readonly venue: Pick<Venue, 'fills'>;
  readonly book: (f: VenueFill) => boolean;
  readonly isExternal: (f: VenueFill) => boolean;
  readonly seen: (f: VenueFill) => void;
  readonly lines: ReturnType<typeof fillLines>;
  /** Each one booked, with whether it is external (TraderHooks.onAuditFill). */
  readonly booked?: (f: VenueFill, external: boolean) => void;
}): (sinceMs: number) => Promise<number> {
  return async (sinceMs) => {
    const { fresh } = await backfillFills(o.venue, sinceMs, o.book);
    for (const f of fresh) {
      o.seen(f);
      const external = o.isExternal(f);
      o.lines.backfilled(f, external, 'booked by the position audit');
      o.booked?.(f, external);
    }
    return fresh.length;
  };
}
