/**
 * The live venue's market cache (src/venues/live/live-venue.ts): what `prepare` signs orders from
 * (each market's tick size, neg-risk flag and fee rate) and what its streams and account views look
 * markets up by.
 *
 *  - Filled by `markets()` (GET /markets) and `learnMarkets`; an entry is replaced, never mutated,
 *    when something about its market changes.
 *  - When a market's events are asked for, what orders of it are built from is fetched once, in the
 *    background: on a V2 venue the market's GET /clob-markets info (tick, neg-risk, fee rate), on V1
 *    its fee rate (signed in V1 orders). A failed lookup is warned of and tried again next time;
 *    orders meanwhile sign with the cached info.
 *  - The market channel's tick-size changes (and a snapshot's tick) are followed.
 *
 * Each token also has a small number, given when first seen: its slots in the presign pool
 * (./presign-pool.ts).
 */
import type { ClobClient } from '../../api/clob.ts';
import type { LoggerLike } from '../../api/http/transport.ts';
import type { OrderProtocol } from '../../api/orders.ts';
import { tickFromPips, type TickSize } from '../../core/units.ts';
import type { MarketInfo } from '../../core/venue.ts';
import type { PresignToken } from './presign-pool.ts';

/** The live venue's market cache (see the module comment). */
export class LiveMarketCache {
  /** Per token: its market's info (as last seen) and a small number (its presign slots). */
  readonly #byToken = new Map<string, PresignToken>();
  readonly #byMarket = new Map<string, MarketInfo>();
  readonly #fees = new Map<string, number>();
  readonly #feeAsked = new Set<string>();

  /**
   * @param clob asked for fee rates (V1) or market info (V2)
   * @param builder the venue's order builder (its protocol)
   * @param logger where failed lookups are warned of
   */
  constructor(
    private readonly clob: Pick<ClobClient, 'feeRate' | 'clobMarket'>,
    private readonly builder: { readonly protocol: OrderProtocol },
    private readonly logger: LoggerLike | undefined,
  ) {}

  /** Takes these markets' info as the current one (new tokens get the next numbers). */
  learnMarkets(markets: readonly MarketInfo[]): void {
    for (const m of markets) {
      this.#byMarket.set(m.market, m);
      for (const t of m.tokens) {
        const e = this.#byToken.get(t.tokenId);
        if (e === undefined) this.#byToken.set(t.tokenId, { m, no: this.#byToken.size });
        else e.m = m;
      }
    }
  }

  /** A token's entry (its market's info and its number), undefined when unknown. */
  token(tokenId: string): PresignToken | undefined {
    return this.#byToken.get(tokenId);
  }

  /** A market's info by condition id, undefined when unknown. */
  market(conditionId: string): MarketInfo | undefined {
    return this.#byMarket.get(conditionId);
  }

  /** The fee rate a listing of the market is given: the one fetched, else the cached info's, else 0. */
  feeRateOf(conditionId: string): number {
    return this.#fees.get(conditionId) ?? this.#byMarket.get(conditionId)?.feeRateBps ?? 0;
  }

  /**
   * Fetches, once and in the background, what orders of these tokens' markets are built from: on a
   * V2 venue the market's `GET /clob-markets` info (tick, neg-risk, fee rate); on V1 its fee rate
   * (signed in V1 orders).
   */
  learnFees(tokenIds: readonly string[]): void {
    if (this.builder.protocol === 2) {
      this.#learnClobMarkets(tokenIds);
      return;
    }
    for (const t of tokenIds) {
      const m = this.#byToken.get(t)?.m;
      if (m === undefined || this.#feeAsked.has(m.market)) continue;
      this.#feeAsked.add(m.market);
      this.clob.feeRate(t).then(
        (bps) => {
          this.#fees.set(m.market, bps);
          const cur = this.#byMarket.get(m.market);
          if (cur !== undefined && cur.feeRateBps !== bps) this.learnMarkets([{ ...cur, feeRateBps: bps }]);
        },
        (err: unknown) => {
          this.#feeAsked.delete(m.market);
          this.logger?.warn(
            { market: m.market, err: (err as Error).message?.slice(0, 200) },
            'fee rate lookup failed (orders sign with the cached rate)',
          );
        },
      );
    }
  }

  #learnClobMarkets(tokenIds: readonly string[]): void {
    for (const t of tokenIds) {
      const m = this.#byToken.get(t)?.m;
      if (m === undefined || this.#feeAsked.has(m.market)) continue;
      this.#feeAsked.add(m.market);
      this.clob.clobMarket(m.market).then(
        (info) => {
          this.#fees.set(m.market, info.feeRateBps);
          const cur = this.#byMarket.get(m.market);
          if (
            cur !== undefined &&
            (cur.tick !== info.tick || cur.negRisk !== info.negRisk || cur.feeRateBps !== info.feeRateBps)
          )
            this.learnMarkets([{ ...cur, tick: info.tick, negRisk: info.negRisk, feeRateBps: info.feeRateBps }]);
        },
        (err: unknown) => {
          this.#feeAsked.delete(m.market);
          this.logger?.warn(
            { market: m.market, err: (err as Error).message?.slice(0, 200) },
            'market info lookup failed (GET /clob-markets; orders are built from the cached info)',
          );
        },
      );
    }
  }

  /** A tick size the market channel reported for a token (in pips): its market's tick follows. */
  onTick(tokenId: string, tickPipsNew: number): void {
    const m = this.#byToken.get(tokenId)?.m;
    if (m === undefined) return;
    let tick: TickSize;
    try {
      tick = tickFromPips(tickPipsNew);
    } catch {
      return;
    }
    if (m.tick !== tick) this.learnMarkets([{ ...m, tick }]);
  }
}
