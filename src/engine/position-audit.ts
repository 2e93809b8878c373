/**
 * Position reconciliation: the venue's holdings are the truth, the store's ledger follows them.
 *
 * At start, after every reconnect of the user channel and every `venue.positionAuditMs`, the daemon
 * reads every token balance the venue reports for the account (`Venue.holdings`) and compares it
 * with the ledger's positions of the current epoch. Each difference becomes an ADJUSTMENT in the
 * ledger (with its cause and its price), the engine's positions move with it (risk limits and the
 * strategy read them), and the caller logs and counts it.
 *
 * What never makes an adjustment:
 *  - fills the ledger has but the venue has not settled yet (MATCHED, MINED, RETRYING): the venue
 *    may show the size with or without them, both are accepted;
 *  - FAILED fills: void in the ledger (reversed at the venue too);
 *  - a difference seen once while trading: a fill may be in the venue's balance before the user
 *    channel delivers it. While the bot trades (`confirm: true`), a difference is adjusted only when
 *    the next audit sees the same one again with no fill of that token recorded in between (both
 *    tokens of a market moved by one amount, a split or merge made beside the daemon: the same
 *    difference twice, fills or not, else a market the bot trades all the time never confirmed it).
 *    The start audit runs before anything is quoted, after the restart backfill, so it adjusts at once.
 *
 * The cause of a difference: the venue's account activity when it reports one for the token
 * (split, merge, redeem, conversion, reward; a TRADE, most often the bot's own, does not overrule a
 * difference of both tokens by one amount: a split or merge), else the shape of the difference: a resolved market's
 * token going to zero is a redeem (both tokens too), the two tokens of a market moving by the same
 * amount together are a split (+) or a merge (−), the opening holdings of a new epoch are
 * `venue_reset` (or `unknown` on a first epoch), anything else `unknown`. The adjustment's price: in a
 * resolved market whose winner is known, the payout (1 for the winning token, 0 for the losing one:
 * `venue`) whatever the cause (a redeem, or a merge there); else the venue's average entry price when
 * it reports one (`venue`), else the token's mid (`mid`), else 0 (`none`); both tokens of a market
 * moved by one amount (a split or merge, whatever the cause) are priced as a pair: the first at its mid
 * p (else the venue's average price), the other at 1 - p, so the pair moves no PnL. The market facts come from
 * the engine for the markets it follows and from the venue's market record for the others
 * (`AuditMarkets.load`): a redeem made outside the daemon in a resolved market it does not trade is
 * priced at the payout too, not at that market's stale mid.
 *
 * In a fleet (`fleet`, issue 21) the members share the wallet, each with its own ledger: the venue
 * is compared with the SUM of the ledgers (this member's live one and the others' published ones,
 * their unsettled fills and fill counts included), and a difference is booked only by the member
 * that holds the token's market now (`fleet.books`), so it is booked once fleet-wide; the others
 * report it (`AuditReport.unbooked`) and book nothing. Nor is any difference booked while another
 * member's figures are a record put back from memory after the fleet's Redis lost them, not yet
 * published again by its member (`AuditFleet.unconfirmed`; `AuditReport.withheld`): that record may
 * be stale, on any market (one it traded after the memory's read is not in it), and the difference
 * its member's doing (trial 22 F3).
 */
import type { ConditionId, TokenId } from '../core/ids.ts';
import { PRICE_SCALE } from '../core/units.ts';
import type { Holdings, Venue } from '../core/venue.ts';

/** Why a position moved without a fill of the bot. */
export type AdjustmentCause =
  | 'external_trade'
  | 'split'
  | 'merge'
  | 'redeem'
  | 'convert'
  | 'venue_reset'
  | 'reward'
  | 'unknown';

/** Where an adjustment's price came from. */
export type AdjustmentPriceSource = 'venue' | 'mid' | 'none';

/** One adjustment to record. Sizes micro-shares (signed), prices pips. */
export interface PositionAdjustment {
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  /** Venue size minus ledger size, micro-shares. */
  readonly size: number;
  /** Pips. */
  readonly price: number;
  /** The exact price in millionths when it is the venue's average price (its 6 decimals). */
  readonly priceMicro?: number;
  readonly priceSource: AdjustmentPriceSource;
  readonly cause: AdjustmentCause;
  readonly note?: string;
}

/** What the audit reads and writes of the ledger (the store). */
export interface AuditLedger {
  /** Positions of the current epoch (non-zero or not). */
  positions(): readonly { readonly tokenId: string; readonly market: string; readonly size: number }[];
  /** Fills of the current epoch whose trade status is not final (MATCHED, MINED, RETRYING). */
  unsettledFills(): readonly { readonly tokenId: string; readonly side: 'BUY' | 'SELL'; readonly size: number }[];
  /** Fills of the current epoch recorded so far (any token): a counter that moves with every new fill of a token. */
  fillCount(tokenId: string): number;
  recordAdjustment(a: PositionAdjustment): void;
}

/** The market facts a cause is read from. */
export interface AuditMarkets {
  /** The token's market and its complement, when the market is known. */
  pair(tokenId: string): { readonly market: ConditionId; readonly other: TokenId } | undefined;
  /** The winning token of a resolved market: undefined when not known to be resolved, null when resolved without a known winner. */
  winner(market: string): TokenId | null | undefined;
  /**
   * Learns the markets of the differences to book before their causes and prices are read (optional):
   * a market the daemon does not follow has no pair or winner until its record is fetched.
   * @throws when the venue cannot tell (the audit goes on with what it knows)
   */
  load?(markets: readonly string[]): Promise<void>;
}

/** A kind of account activity the venue reports (the data API's `type`), by token. */
export type ActivityKind = 'TRADE' | 'SPLIT' | 'MERGE' | 'REDEEM' | 'CONVERSION' | 'REWARD';

/** One token of the other members' ledgers, summed (src/fleet/fleet-ledger.ts fits). Sizes micro-shares. */
export interface OthersToken {
  readonly market: string;
  readonly size: number;
  /** Signed size of their unsettled fills (BUY +, SELL −). */
  readonly unsettled: number;
  readonly fills: number;
}

/** The fleet as the audit sees it (PositionAuditOptions.fleet). */
export interface AuditFleet {
  /** The other members' ledgers, summed by token. @throws when they cannot be read (the audit fails, nothing is recorded) */
  others(): Promise<ReadonlyMap<string, OthersToken>>;
  /** Whether this member books the token's differences (it holds the token's market now). */
  books(tokenId: string, market: string): boolean;
  /**
   * The members whose ledger counts, as of the last `others()`, only as a record put back from memory
   * after the fleet's Redis lost it (src/fleet/ledger-memory.ts); while any, nothing is booked. Absent: none.
   */
  unconfirmed?(): readonly string[];
}

/** Options of `PositionAuditor`. */
export interface PositionAuditOptions {
  readonly venue: Pick<Venue, 'holdings'>;
  readonly ledger: AuditLedger;
  readonly markets: AuditMarkets;
  /** The token's mid (pips) when known. */
  mid(tokenId: string): number | undefined | Promise<number | undefined>;
  /** The venue's latest account activity kind per token since `sinceMs` (optional). */
  activity?(sinceMs: number): Promise<ReadonlyMap<string, ActivityKind>>;
  /** Applies an adjustment to the running state (the engine's positions). */
  apply?(a: PositionAdjustment): void;
  /**
   * Books the venue's trades of the account since `sinceMs` that the ledger lacks (each once, by
   * trade and order id: the bot's, and others' as external fills); resolves with how many were new.
   * Called before a difference is adjusted as an `external_trade`: the trade itself is booked, so a
   * later backfill of it finds it stored (trial 13 F16: the adjustment and then the shutdown's
   * backfill booked one trade twice).
   */
  bookTrades?(sinceMs: number): Promise<number>;
  readonly now: () => number;
  /** A fleet member's audit (see the module comment). Undefined: a lone daemon. */
  readonly fleet?: AuditFleet;
}

/** What one audit found. */
export interface AuditReport {
  /** Adjustments recorded. */
  readonly adjusted: readonly PositionAdjustment[];
  /** In a fleet: confirmed differences left to the member holding the token's market (not recorded here). */
  readonly unbooked: readonly PositionAdjustment[];
  /**
   * In a fleet: confirmed differences this member would book, not recorded while another member's
   * figures are an unconfirmed record put back from memory (`AuditFleet.unconfirmed`). Absent when none.
   */
  readonly withheld?: readonly PositionAdjustment[];
  /** Differences seen once, waiting for the next audit to confirm them. */
  readonly pending: number;
  /** Tokens compared. */
  readonly tokens: number;
  /** The venue's collateral (micro). */
  readonly collateral: Holdings['collateral'];
}

/** One difference between the venue and the ledger. */
export interface PositionDiff {
  readonly tokenId: string;
  readonly market: string;
  readonly venue: number;
  readonly ledger: number;
  readonly avgPrice?: number;
  readonly avgPriceMicro?: number;
}

/**
 * The differences between the venue's holdings and the ledger's positions (pure). A token whose
 * venue size equals the ledger's without its unsettled fills is not different (the venue has not
 * settled them yet).
 */
export function positionDiffs(
  holdings: Holdings['tokens'],
  ledger: readonly { readonly tokenId: string; readonly market: string; readonly size: number }[],
  unsettled: readonly { readonly tokenId: string; readonly side: 'BUY' | 'SELL'; readonly size: number }[],
): PositionDiff[] {
  const pendingBy = new Map<string, number>();
  for (const f of unsettled)
    pendingBy.set(f.tokenId, (pendingBy.get(f.tokenId) ?? 0) + (f.side === 'BUY' ? f.size : -f.size));
  const seen = new Map<
    string,
    { market: string; venue: number; ledger: number; avgPrice?: number; avgPriceMicro?: number }
  >();
  for (const h of holdings)
    seen.set(h.tokenId, {
      market: h.market,
      venue: h.size,
      ledger: 0,
      ...(h.avgPrice !== undefined ? { avgPrice: h.avgPrice } : {}),
      ...(h.avgPrice !== undefined && h.avgPriceMicro !== undefined ? { avgPriceMicro: h.avgPriceMicro } : {}),
    });
  for (const p of ledger) {
    const s = seen.get(p.tokenId);
    if (s !== undefined) s.ledger += p.size;
    else if (p.size !== 0) seen.set(p.tokenId, { market: p.market, venue: 0, ledger: p.size });
  }
  const out: PositionDiff[] = [];
  for (const [tokenId, s] of seen) {
    if (s.venue === s.ledger) continue;
    const pending = pendingBy.get(tokenId) ?? 0;
    if (pending !== 0 && s.venue === s.ledger - pending) continue;
    out.push({ tokenId, ...s });
  }
  return out;
}

/**
 * The cause of each difference, from the venue's activity when it names one, else from its shape
 * (see the module comment). `opening`: the cause of differences in a new epoch's first audit.
 */
export function causesOf(
  diffs: readonly PositionDiff[],
  markets: AuditMarkets,
  activity: ReadonlyMap<string, ActivityKind> | undefined,
  opening: AdjustmentCause | undefined,
): Map<string, AdjustmentCause> {
  const byToken = new Map(diffs.map((d) => [d.tokenId, d]));
  const out = new Map<string, AdjustmentCause>();
  for (const d of diffs) {
    const delta = d.venue - d.ledger;
    const act = activity?.get(d.tokenId);
    const pairOf = markets.pair(d.tokenId);
    const twin = pairOf === undefined ? undefined : byToken.get(pairOf.other);
    // the latest activity of a token the bot trades is most often one of its own trades: a difference
    // of both tokens by one amount is a split or merge however the latest activity reads (trial 8 F12)
    if (act === 'TRADE' && twin !== undefined && twin.venue - twin.ledger === delta && opening === undefined) {
      out.set(d.tokenId, delta > 0 ? 'split' : 'merge');
      continue;
    }
    if (act !== undefined) {
      out.set(d.tokenId, ACTIVITY_CAUSE[act]);
      continue;
    }
    if (opening !== undefined) {
      out.set(d.tokenId, opening);
      continue;
    }
    const pair = markets.pair(d.tokenId);
    // (before the merge shape: redeeming both tokens of a resolved market moves them together too)
    if (pair !== undefined && markets.winner(pair.market) !== undefined && d.venue === 0 && delta < 0) {
      out.set(d.tokenId, 'redeem');
      continue;
    }
    const o = pair === undefined ? undefined : byToken.get(pair.other);
    if (o !== undefined && o.venue - o.ledger === delta) {
      out.set(d.tokenId, delta > 0 ? 'split' : 'merge');
      continue;
    }
    out.set(d.tokenId, 'unknown');
  }
  return out;
}

const ACTIVITY_CAUSE: Record<ActivityKind, AdjustmentCause> = {
  TRADE: 'external_trade',
  SPLIT: 'split',
  MERGE: 'merge',
  REDEEM: 'redeem',
  CONVERSION: 'convert',
  REWARD: 'reward',
};

/** Audits the ledger against the venue (see the module comment). */
export class PositionAuditor {
  readonly #o: PositionAuditOptions;
  /** Differences seen once while trading: token -> (delta, the token's fill count then, pair-shaped then). */
  readonly #seen = new Map<string, { delta: number; fills: number; pair: boolean }>();
  #lastAt: number | undefined;
  #running: Promise<AuditReport> | undefined;
  /** Audits done and adjustments made, for status. */
  audits = 0;
  adjustments = 0;

  constructor(o: PositionAuditOptions) {
    this.#o = o;
  }

  /**
   * One audit. `confirm`: adjust only differences seen by the previous audit too (while trading);
   * `opening`: the cause of every difference (a new epoch's first audit). Concurrent calls share
   * one audit.
   * @throws what `venue.holdings` throws (the caller logs it; nothing is recorded)
   */
  audit(opts: { confirm: boolean; opening?: AdjustmentCause }): Promise<AuditReport> {
    this.#running ??= this.#audit(opts).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #audit(opts: { confirm: boolean; opening?: AdjustmentCause }): Promise<AuditReport> {
    const o = this.#o;
    const startedAt = o.now();
    const h = await o.venue.holdings!();
    // in a fleet the others' ledgers are read after the venue: a fill they booked in between is counted
    const others = o.fleet === undefined ? undefined : await o.fleet.others();
    const diffs = positionDiffs(h.tokens, ...withOthers(o.ledger.positions(), o.ledger.unsettledFills(), others));
    const ready: PositionDiff[] = [];
    const next = new Map<string, { delta: number; fills: number; pair: boolean }>();
    const pairs = pairShaped(diffs, o.markets);
    for (const d of diffs) {
      const delta = d.venue - d.ledger;
      const fills = o.ledger.fillCount(d.tokenId) + (others?.get(d.tokenId)?.fills ?? 0);
      if (!opts.confirm) {
        ready.push(d);
        continue;
      }
      // the same difference twice with no fill of the token in between; or, for both tokens of a market
      // moved together by the same amount (a split or merge made beside the daemon), twice whatever was
      // filled meanwhile: a market the bot trades all the time would otherwise never confirm it (trial 8
      // F12), and no fill in flight moves both tokens by one amount twice
      const pair = pairs.has(d.tokenId);
      const before = this.#seen.get(d.tokenId);
      if (before !== undefined && before.delta === delta && (before.fills === fills || (pair && before.pair)))
        ready.push(d);
      else next.set(d.tokenId, { delta, fills, pair });
    }
    this.#seen.clear();
    for (const [k, v] of next) this.#seen.set(k, v);
    let activity: ReadonlyMap<string, ActivityKind> | undefined;
    if (ready.length > 0 && o.activity !== undefined && opts.opening === undefined) {
      try {
        activity = await o.activity((this.#lastAt ?? startedAt) - 24 * 3_600_000);
      } catch {
        activity = undefined; // the shape of the differences decides
      }
    }
    if (ready.length > 0 && o.markets.load !== undefined)
      try {
        await o.markets.load([...new Set(ready.map((d) => d.market))]);
      } catch {
        /* the markets known so far decide (a redeem of an unknown market is then priced at its mid) */
      }
    let causes = causesOf(ready, o.markets, activity, opts.opening);
    // a trade the ledger lacks: booked as the trade it is (a fill), not as an adjustment; the
    // differences are then read again and only what the trades do not explain is adjusted
    if (o.bookTrades !== undefined && [...causes.values()].includes('external_trade')) {
      let booked = 0;
      try {
        booked = await o.bookTrades((this.#lastAt ?? startedAt) - 24 * 3_600_000);
      } catch {
        booked = 0; // the adjustment books the difference, as before
      }
      if (booked > 0) {
        const now = new Map(
          positionDiffs(h.tokens, ...withOthers(o.ledger.positions(), o.ledger.unsettledFills(), others)).map(
            (d) => [d.tokenId, d] as const,
          ),
        );
        const still = ready.flatMap((d) => {
          const x = now.get(d.tokenId);
          return x === undefined ? [] : [x];
        });
        ready.length = 0;
        ready.push(...still);
        causes = causesOf(ready, o.markets, activity, opts.opening);
      }
    }
    const adjusted: PositionAdjustment[] = [];
    const unbooked: PositionAdjustment[] = [];
    const withheld: PositionAdjustment[] = [];
    const unconfirmed = (o.fleet?.unconfirmed?.() ?? []).length > 0;
    // both tokens of a market moved together by one amount (a split or a merge, whatever the cause says):
    // the first token's leg at its price p, its complement's at 1 - p, so the pair is worth 1 and moves
    // no PnL, as the daemon's own merges are booked (trial 8 F10: a merge before a new store's first
    // epoch was booked at the venue's average price of one token and the mid of the other)
    const readyPairs = pairShaped(ready, o.markets);
    const pairPrice = new Map<string, { price: number | undefined; source: 'venue' | 'mid' | 'none' }>();
    for (const d of ready) {
      let price: number | undefined;
      // the venue's average price to its 6 decimals, when that is the price (trial 13 F10)
      let priceMicro: number | undefined;
      let priceSource: 'venue' | 'mid' | 'none' = 'venue';
      const complement = readyPairs.get(d.tokenId);
      const priced = complement === undefined ? undefined : pairPrice.get(complement);
      if (priced !== undefined && priced.price !== undefined) {
        price = PRICE_SCALE - priced.price;
        priceSource = priced.source;
      } else if (complement !== undefined) {
        // the pair's first leg: the mark (the mid), else the venue's average price
        price = await o.mid(d.tokenId);
        priceSource = 'mid';
        if (price === undefined) {
          price = d.avgPrice;
          priceSource = price === undefined ? 'none' : 'venue';
        }
        // (whole pips, so that the two legs add up to exactly 1)
        if (price !== undefined) price = Math.round(price);
        pairPrice.set(d.tokenId, { price, source: priceSource });
      } else {
        price = d.avgPrice;
        priceMicro = d.avgPriceMicro;
        if (price === undefined) {
          price = await o.mid(d.tokenId);
          priceSource = price === undefined ? 'none' : 'mid';
        }
      }
      const cause = causes.get(d.tokenId) ?? 'unknown';
      // a resolved market's tokens are worth their payout, 1 for the winner and 0 for the loser: a redeem
      // (or a merge) there is priced so (the venue's average price is the entry, the mid a stale one)
      const pair = o.markets.pair(d.tokenId);
      const winner = pair === undefined ? undefined : o.markets.winner(pair.market);
      if (winner !== undefined && winner !== null) {
        price = winner === d.tokenId ? PRICE_SCALE : 0;
        priceMicro = undefined;
        priceSource = 'venue';
      }
      const a: PositionAdjustment = {
        market: d.market as ConditionId,
        tokenId: d.tokenId as TokenId,
        size: d.venue - d.ledger,
        price: Math.round(price ?? 0),
        ...(priceMicro !== undefined && price !== undefined ? { priceMicro } : {}),
        priceSource,
        cause,
        note: `venue ${d.venue}, ledger ${d.ledger}`,
      };
      if (o.fleet !== undefined && !o.fleet.books(d.tokenId, d.market)) {
        unbooked.push(a);
        continue;
      }
      if (unconfirmed) {
        withheld.push(a);
        continue;
      }
      o.ledger.recordAdjustment(a);
      o.apply?.(a);
      adjusted.push(a);
    }
    this.audits++;
    this.adjustments += adjusted.length;
    this.#lastAt = startedAt;
    return {
      adjusted,
      unbooked,
      ...(withheld.length > 0 ? { withheld } : {}),
      pending: this.#seen.size,
      tokens: h.tokens.length,
      collateral: h.collateral,
    };
  }
}

/**
 * The differences whose market's other token differs by the same amount (both up: a split; both down:
 * a merge), by token, each to its complement (pure).
 */
export function pairShaped(diffs: readonly PositionDiff[], markets: AuditMarkets): Map<string, string> {
  const delta = new Map(diffs.map((d) => [d.tokenId, d.venue - d.ledger]));
  const out = new Map<string, string>();
  for (const d of diffs) {
    const pair = markets.pair(d.tokenId);
    if (pair === undefined) continue;
    const other = delta.get(pair.other);
    if (other !== undefined && other === d.venue - d.ledger) out.set(d.tokenId, pair.other);
  }
  return out;
}

type Positions = readonly { readonly tokenId: string; readonly market: string; readonly size: number }[];
type Unsettled = readonly { readonly tokenId: string; readonly side: 'BUY' | 'SELL'; readonly size: number }[];

/** This member's positions and unsettled fills with the other members' added (pure). */
export function withOthers(
  positions: Positions,
  unsettled: Unsettled,
  others: ReadonlyMap<string, OthersToken> | undefined,
): [Positions, Unsettled] {
  if (others === undefined || others.size === 0) return [positions, unsettled];
  const p = [...positions];
  const u = [...unsettled];
  for (const [tokenId, t] of others) {
    p.push({ tokenId, market: t.market, size: t.size });
    if (t.unsettled !== 0) u.push({ tokenId, side: t.unsettled > 0 ? 'BUY' : 'SELL', size: Math.abs(t.unsettled) });
  }
  return [p, u];
}
