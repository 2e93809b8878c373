/**
 * `crypto-fair-value`: quotes crypto up/down and "above $K" markets around a fair probability
 * computed from the live crypto price, and pulls its quotes the moment that price goes stale.
 *
 * The idea: "Will BTC be at or above K at T?" is a cash-or-nothing digital option on the coin. With
 * the spot S from the real-time price stream (`price_tick` events, e.g. symbol `btcusdt`), its
 * volatility sigma (per sqrt(second), estimated online) and the time to expiry tau (seconds):
 *
 *     P(YES) = N(d2),   d2 = (ln(S/K) - sigma^2 tau / 2) / (sigma sqrt(tau))
 *
 * (zero rates; for a "below K" market P(YES) = 1 - N(d2)). The strategy quotes a bid and an ask
 * `spread` apart around that fair value, shifted against inventory by `inventorySkew` ticks at
 * maxPosition. It needs no two-sided book: it can quote an empty market, which is where it earns.
 *
 * Where each input comes from, per market (tokens[0] is YES / "Up"):
 *  - symbol: `symbol` param, else inferred from the question (Bitcoin/BTC -> btcusdt, Ethereum/ETH
 *    -> ethusdt, Solana/SOL -> solusdt, XRP -> xrpusdt, Dogecoin/DOGE -> dogeusdt);
 *  - strike K: `strike` param; else "Price to beat: $K" in the market description when the venue's
 *    MarketInfo carries one; else the first dollar amount of the question ("Will the price of
 *    Bitcoin be above $95,000 on Jan 5?"); else, for an up/down window ("Bitcoin Up or Down -
 *    Jan 5, 10:00-10:15 UTC", or "... on Jan 5?" for a daily one) with `strikeFromFeed`, the first
 *    feed price at or after the window's start (within `strikeWindowMs` of it). No strike: no quotes;
 *  - expiry T: `expiry` param (ISO time), else the market's endDate;
 *  - sigma: EWMA of squared log returns per second of the feed (venue timestamps), prior
 *    `annualVol`, floored at `minAnnualVol`.
 *
 * Staleness: no live tick for `staleMs` (local receive time against state.now), a disconnected
 * price stream, or no tick yet: the fair value is unknown and the market's quotes are pulled (an
 * empty set; the engine's timer events make this happen even when no tick arrives). A stale,
 * missing or crossed book pulls too. Within `stopBeforeExpiry` seconds of expiry nothing is quoted:
 * the digital's delta explodes there (one tick of the coin flips the outcome).
 *
 * Common rules (src/strategy/quoting.ts): refresh tolerance, max order age, minimum spread,
 * post-only, complement routing from one YES ladder, no quote without a trustworthy price.
 *
 * Markets (`selectMarkets`, when none are configured): the crypto price markets it can price, see
 * `selectCryptoMarkets`; deterministic. Risk band (`riskPriceBand`): quotes may stand up to 0.25
 * from the book's mid (CRYPTO_RISK_BAND), since the book lags the coin.
 *
 * NOTE: the engine must deliver the RTDS `price_tick` events of the markets' symbols to the
 * strategy (with timers); the handlers list those symbols in `priceSymbols`. Without the events
 * this strategy never quotes, by design.
 *
 * When to use: short crypto up/down windows and daily "above" ladders, where the coin's price is
 * the information and the book lags it. Risks: the feed is the whole edge: its latency versus other
 * traders' feeds is adverse selection; log-normal tails understate jumps; the strike inferred from
 * the feed for up/down windows can differ from the venue's by the tick-to-window-start gap (give
 * `strike` when you know it); near expiry small coin moves swing the fair value by the whole spread.
 *
 * Pure: reads no clock (state.now), does no I/O; imports only the plugin API, 'mmkit/strategy'.
 */
import {
  commonParam,
  type ConditionId,
  defineStrategy,
  type DesiredQuotes,
  digitalAbove,
  EwmaVariance,
  finishQuotes,
  inventoryOf,
  isFresh,
  type MarketRef,
  MarketRegistry,
  marketTop,
  type MmkitEvent,
  type ParamsOf,
  PRICE_SCALE,
  type PriceTickEvent,
  type QuoteIntent,
  type QuotingRules,
  rulesOf,
  SECONDS_PER_YEAR,
  type SelectContext,
  sharesToMicro,
  type StrategyOutput,
  type StrategyState,
  type YesLevel,
} from 'mmkit/strategy';

/** What the venue says about a market (the strategy context's MarketInfo). */
type MarketInfo = MarketRef['info'];

// ---- params --------------------------------------------------------------------------------------

/** The parameter schema of `crypto-fair-value`. */
export const CRYPTO_FAIR_VALUE_PARAMS = {
  tokens: commonParam.tokens('both'),
  size: { type: 'number', default: 10, min: 0.01, max: 100_000, doc: 'Shares quoted on each side.' },
  spread: {
    type: 'number',
    default: 0.04,
    min: 0,
    max: 0.9,
    doc: 'Full width between bid and ask around the (skewed) fair value, price units.',
  },
  staleMs: {
    type: 'integer',
    default: 3000,
    min: 100,
    max: 600_000,
    doc: 'The price feed is stale (quotes pulled) after this long without a live tick, ms.',
  },
  symbol: {
    type: 'string',
    default: '',
    doc: "The feed symbol (e.g. 'btcusdt'); empty: inferred from each market's question.",
  },
  strike: {
    type: 'number',
    default: 0,
    min: 0,
    max: 1e12,
    doc: 'Strike in USD for every market (set it for one market only); 0: from the market metadata or the feed.',
  },
  expiry: { type: 'string', default: '', doc: "Expiry as an ISO time for every market; empty: each market's endDate." },
  strikeFromFeed: {
    type: 'boolean',
    default: true,
    doc: "Up/down windows without a stated strike: take the first feed price at or after the window's start.",
  },
  strikeWindowMs: {
    type: 'integer',
    default: 2000,
    min: 0,
    max: 600_000,
    doc: "That price must be at most this long after the window's start, ms.",
  },
  annualVol: {
    type: 'number',
    default: 0.6,
    min: 0.01,
    max: 10,
    doc: 'Prior annualised volatility of the coin (0.6 = 60%), before the online estimate takes over.',
  },
  minAnnualVol: { type: 'number', default: 0.1, min: 0.001, max: 10, doc: 'Floor of the volatility used, annualised.' },
  volHalfLife: {
    type: 'number',
    default: 600,
    min: 1,
    max: 86_400,
    doc: 'Half-life of the volatility EWMA, seconds of feed time.',
  },
  stopBeforeExpiry: {
    type: 'number',
    default: 30,
    min: 0,
    max: 86_400,
    doc: 'No quotes this many seconds before expiry (and after it).',
  },
  inventorySkew: {
    type: 'number',
    default: 2,
    min: 0,
    max: 100,
    doc: 'Ticks both quotes shift against the position at maxPosition (linear in between).',
  },
  minSpread: commonParam.minSpread(0.02),
  postOnly: commonParam.postOnly('move'),
  outOfRange: commonParam.outOfRange('drop'),
  maxPosition: commonParam.maxPosition(100),
  priceTolerance: commonParam.priceTolerance(1),
  sizeTolerance: commonParam.sizeTolerance(0.2),
  maxOrderAge: commonParam.maxOrderAge(0),
  excludeOwnOrders: commonParam.excludeOwnOrders(true),
} as const;

export type CryptoFairValueParams = ParamsOf<typeof CRYPTO_FAIR_VALUE_PARAMS>;

/** The configuration in working units. */
export interface CryptoConfig {
  readonly rules: QuotingRules;
  /** Micro-shares. */
  readonly size: number;
  /** Pips. */
  readonly spread: number;
  readonly staleMs: number;
  readonly symbol: string;
  readonly strike: number;
  /** Unix ms; NaN: each market's endDate. */
  readonly expiryMs: number;
  readonly strikeFromFeed: boolean;
  readonly strikeWindowMs: number;
  /** Prior variance of log returns per second. */
  readonly initialVariance: number;
  /** Volatility floor per sqrt(second). */
  readonly minSigma: number;
  readonly volHalfLifeMs: number;
  readonly stopBeforeExpiryMs: number;
  readonly inventorySkew: number;
  readonly excludeOwnOrders: boolean;
}

export function cryptoConfig(p: CryptoFairValueParams): CryptoConfig {
  const perSec = (annual: number): number => annual / Math.sqrt(SECONDS_PER_YEAR);
  return {
    rules: rulesOf(p),
    size: sharesToMicro(p.size),
    spread: Math.round(p.spread * PRICE_SCALE),
    staleMs: p.staleMs,
    symbol: p.symbol.trim().toLowerCase(),
    strike: p.strike,
    expiryMs: p.expiry.trim() === '' ? NaN : Date.parse(p.expiry),
    strikeFromFeed: p.strikeFromFeed,
    strikeWindowMs: p.strikeWindowMs,
    initialVariance: perSec(p.annualVol) ** 2,
    minSigma: perSec(p.minAnnualVol),
    volHalfLifeMs: p.volHalfLife * 1000,
    stopBeforeExpiryMs: p.stopBeforeExpiry * 1000,
    inventorySkew: p.inventorySkew,
    excludeOwnOrders: p.excludeOwnOrders,
  };
}

// ---- market terms ------------------------------------------------------------------------------------

/** What a market pays on: YES when the coin is at or above (`above`) / below the strike at expiry. */
export interface CryptoTerms {
  readonly symbol: string;
  /** USD; undefined: to be found from the feed (`windowStartMs`) or unknown. */
  readonly strike: number | undefined;
  readonly direction: 'above' | 'below';
  /** Unix ms. */
  readonly expiryMs: number;
  /** Start of an up/down window (the strike is the price then), unix ms. */
  readonly windowStartMs: number | undefined;
}

const SYMBOLS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(bitcoin|btc)\b/i, 'btcusdt'],
  [/\b(ethereum|eth)\b/i, 'ethusdt'],
  [/\b(solana|sol)\b/i, 'solusdt'],
  [/\bxrp\b/i, 'xrpusdt'],
  [/\b(dogecoin|doge)\b/i, 'dogeusdt'],
];

/** The feed symbol a market text names, or undefined. */
export function inferSymbol(text: string): string | undefined {
  for (const [re, sym] of SYMBOLS) if (re.test(text)) return sym;
  return undefined;
}

const USD = '\\$\\s?([0-9][0-9,]*(?:\\.[0-9]+)?)';
const PRICE_TO_BEAT = new RegExp(`price to beat:?\\s*${USD}`, 'i');
const FIRST_USD = new RegExp(USD);

function usd(m: RegExpExecArray | null): number | undefined {
  if (m === null) return undefined;
  const v = Number(m[1]!.replace(/,/g, ''));
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

/**
 * The terms of a market (see the module comment for the sources), or undefined when its symbol or
 * expiry cannot be known. The strike may still be undefined (found later from the feed, or never).
 */
export function cryptoTerms(
  info: MarketInfo,
  cfg: Pick<CryptoConfig, 'symbol' | 'strike' | 'expiryMs'>,
): CryptoTerms | undefined {
  const description = (info as MarketInfo & { readonly description?: unknown }).description;
  const desc = typeof description === 'string' ? description : '';
  const symbol = cfg.symbol !== '' ? cfg.symbol : inferSymbol(`${info.question} ${desc}`);
  const expiryMs = Number.isFinite(cfg.expiryMs) ? cfg.expiryMs : Date.parse(info.endDate);
  if (symbol === undefined || !Number.isFinite(expiryMs)) return undefined;
  const strike = cfg.strike > 0 ? cfg.strike : (usd(PRICE_TO_BEAT.exec(desc)) ?? usd(FIRST_USD.exec(info.question)));
  const direction = /\b(below|under|lower than)\b/i.test(info.question) ? 'below' : 'above';
  let windowStartMs: number | undefined;
  const w = /up or down\b.*?(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*UTC/i.exec(info.question);
  if (w !== null) {
    const mins = (Number(w[3]) * 60 + Number(w[4]) - (Number(w[1]) * 60 + Number(w[2])) + 1440) % 1440;
    windowStartMs = expiryMs - (mins === 0 ? 1440 : mins) * 60_000;
  } else if (/up or down on\b/i.test(info.question)) windowStartMs = expiryMs - 86_400_000;
  return { symbol, strike, direction, expiryMs, windowStartMs };
}

// ---- the reference price -----------------------------------------------------------------------------

/** One symbol's feed: last price, freshness, volatility and a short history (for window strikes). */
export class ReferenceFeed {
  readonly vol: EwmaVariance;
  /** The latest price by venue time. */
  price: number | undefined;
  /** Local receive time of the last LIVE tick (snapshot history does not count); undefined: stale. */
  lastLiveAt: number | undefined;
  readonly #history: { t: number; v: number }[] = [];
  #lastT = -Infinity;

  constructor(halfLifeMs: number, initialVariance: number) {
    this.vol = new EwmaVariance(halfLifeMs, initialVariance);
  }

  /** Takes one price_tick of this symbol. Ticks older than the latest only refresh freshness. */
  observe(e: PriceTickEvent): void {
    if (!Number.isFinite(e.value) || e.value <= 0) return;
    if (!e.snapshot) this.lastLiveAt = e.recvTime;
    if (e.venueTime <= this.#lastT) return;
    this.#lastT = e.venueTime;
    this.price = e.value;
    this.vol.observe(e.venueTime, Math.log(e.value));
    this.#history.push({ t: e.venueTime, v: e.value });
    if (this.#history.length > 2000) this.#history.splice(0, this.#history.length - 1000);
  }

  /** The price stream went away: stale until the next live tick. */
  markStale(): void {
    this.lastLiveAt = undefined;
  }

  /** The first price at or after `t` when it is at most `windowMs` after it (and history reaches back before `t`). */
  priceAtStart(t: number, windowMs: number): number | undefined {
    const h = this.#history;
    if (h.length === 0 || h[0]!.t > t) return undefined;
    for (const x of h) if (x.t >= t) return x.t - t <= windowMs ? x.v : undefined;
    return undefined;
  }
}

/** Volatility per sqrt(second) to use: the estimate, floored. */
export function sigmaOf(feed: ReferenceFeed, cfg: Pick<CryptoConfig, 'minSigma'>): number {
  return Math.max(feed.vol.vol, cfg.minSigma);
}

/** P(YES) of a market: N(d2) for `above`, 1 - N(d2) for `below`. */
export function fairProbability(
  spot: number,
  strike: number,
  sigma: number,
  tauSec: number,
  direction: 'above' | 'below',
): number {
  const p = digitalAbove(spot, strike, sigma, tauSec);
  return direction === 'above' ? p : 1 - p;
}

/**
 * The desired quotes of one market given its fair probability (undefined: unknown or stale, no
 * quotes): bid and ask `spread` apart around fair - inventorySkew x (net / maxPosition) ticks,
 * through the common rules. Needs a trustworthy book (not stale, not crossed), not a two-sided one.
 */
export function quoteCrypto(
  ref: MarketRef,
  cfg: CryptoConfig,
  fair: number | undefined,
  state: StrategyState,
): QuoteIntent[] {
  if (fair === undefined || !Number.isFinite(fair)) return [];
  const top = marketTop(state, ref, { excludeOwn: cfg.excludeOwnOrders, tokens: cfg.rules.tokens });
  if (top === null) return [];
  const inv = inventoryOf(state, ref, cfg.rules.tokens);
  const ratio = cfg.rules.maxPosition > 0 ? Math.max(-1, Math.min(1, inv.net / cfg.rules.maxPosition)) : 0;
  const center = fair * PRICE_SCALE - cfg.inventorySkew * ratio * ref.tick;
  const levels: YesLevel[] = [
    { bid: true, price: center - cfg.spread / 2, size: cfg.size },
    { bid: false, price: center + cfg.spread / 2, size: cfg.size },
  ];
  return finishQuotes(levels, center, top, ref, cfg.rules, state);
}

// ---- market choice ---------------------------------------------------------------------------------

/** What kind of crypto price market a question asks, or undefined when it asks none. */
export function cryptoKind(question: string): 'threshold' | 'updown' | undefined {
  if (/\bup or down\b/i.test(question)) return 'updown';
  if (FIRST_USD.test(question) && /\b(above|below|over|under|higher than|lower than)\s*\$/i.test(question))
    return 'threshold';
  return undefined;
}

/** The least time a chosen market must have before `stopBeforeExpiry`, ms: quoting for less is not worth it. */
export const MIN_QUOTING_MS = 120_000;

/** The mid range of the YES book a chosen market must be in: a digital near 0 or 1 leaves no room for a spread. */
export const SELECT_MID_RANGE: readonly [number, number] = [0.05, 0.95];

/**
 * The markets this strategy can price, best first (`selectMarkets`; deterministic: the same markets
 * and books give the same answer). A market qualifies when its question is a crypto price market
 * (`cryptoKind`: "Will the price of Bitcoin be above $K ..." or "... Up or Down ...") naming a coin
 * with a feed symbol (`inferSymbol`; the `symbol` param, when set, must be that one), its expiry is
 * more than stopBeforeExpiry + MIN_QUOTING_MS away, its strike is known now (the `strike` param or
 * the question's dollar amount) or will be from the feed (an up/down window that has not started
 * yet: a window already running began before our feed history, so its strike is unknown), and its
 * YES book can be read and, when two-sided, has its mid in SELECT_MID_RANGE. Ranked: a two-sided
 * book before one that is not (yet: the risk gate quotes no one-sided book, and a venue that has
 * just started may have no book yet); a known strike before a window still to open; then the mid
 * nearest 0.50 (where the digital is most uncertain and both quotes fit), or, without a two-sided
 * book, the strike nearest its ladder's centre (`ladderCentres`); then the earlier window start;
 * then the condition id.
 */
export async function selectCryptoMarkets(
  markets: readonly MarketInfo[],
  ctx: Pick<SelectContext<CryptoFairValueParams>, 'now' | 'book' | 'params'>,
): Promise<ConditionId[]> {
  const cfg = cryptoConfig(ctx.params);
  // the markets it can price, before any book is read
  const priceable: Array<{ m: MarketInfo; terms: CryptoTerms }> = [];
  for (const m of markets) {
    if (!m.active || cryptoKind(m.question) === undefined) continue;
    const named = inferSymbol(m.question);
    if (named === undefined || (cfg.symbol !== '' && named !== cfg.symbol)) continue;
    const terms = cryptoTerms(m, cfg);
    if (terms === undefined || terms.expiryMs - ctx.now <= cfg.stopBeforeExpiryMs + MIN_QUOTING_MS) continue;
    const known = terms.strike !== undefined;
    const opens = !known && cfg.strikeFromFeed && terms.windowStartMs !== undefined && terms.windowStartMs > ctx.now;
    if (known || opens) priceable.push({ m, terms });
  }
  const ladders = ladderCentres(priceable.map((x) => x.terms));
  const ranked: Array<{ id: ConditionId; group: number; distance: number; start: number }> = [];
  for (const { m, terms } of priceable) {
    const b = await ctx.book(m.tokens[0].tokenId).catch(() => undefined);
    if (b === undefined) continue;
    const twoSided = !b.stale && b.mid !== null && b.bestBid !== null && b.bestAsk !== null && b.bestAsk > b.bestBid;
    if (twoSided && (b.mid! < SELECT_MID_RANGE[0] * PRICE_SCALE || b.mid! > SELECT_MID_RANGE[1] * PRICE_SCALE))
      continue;
    const known = terms.strike !== undefined;
    // no two-sided book yet: the strike nearest its ladder's centre (likely nearest the money)
    const centre = known ? ladders.get(ladderKey(terms)) : undefined;
    ranked.push({
      id: m.market,
      group: (known ? 0 : 1) + (twoSided ? 0 : 2),
      distance: twoSided
        ? Math.abs(b.mid! - PRICE_SCALE / 2) / PRICE_SCALE
        : centre !== undefined
          ? Math.abs(Math.log(terms.strike! / centre))
          : 0,
      start: terms.windowStartMs ?? 0,
    });
  }
  ranked.sort(
    (x, y) =>
      x.group - y.group || x.distance - y.distance || x.start - y.start || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
  );
  return ranked.map((r) => r.id);
}

const ladderKey = (t: CryptoTerms): string => `${t.symbol}|${t.expiryMs}`;

/**
 * The centre of each strike ladder (markets of one symbol and expiry with a known strike): the
 * geometric mean of its middle strike(s). A venue lists a ladder around the price when it opens it,
 * so the strikes nearest the centre are the likeliest near the money.
 */
export function ladderCentres(terms: readonly CryptoTerms[]): Map<string, number> {
  const by = new Map<string, number[]>();
  for (const t of terms) if (t.strike !== undefined) by.set(ladderKey(t), [...(by.get(ladderKey(t)) ?? []), t.strike]);
  const out = new Map<string, number>();
  for (const [k, ks] of by) {
    const s = [...ks].sort((a, b) => a - b);
    const lo = s[Math.floor((s.length - 1) / 2)]!;
    const hi = s[Math.ceil((s.length - 1) / 2)]!;
    out.set(k, Math.sqrt(lo * hi));
  }
  return out;
}

/**
 * The risk price band this strategy declares (`riskPriceBand`): its fair value comes from the coin's
 * price, not from the book, and the book lags the coin (that lag is where it earns), so its quotes
 * may stand up to 0.25 from the book's mid where the default `bot.risk.maxMidDistance` (0.10) would
 * refuse them. An operator's own maxMidDistance, when set and tighter, still applies.
 */
export const CRYPTO_RISK_BAND = { maxMidDistance: 0.25 } as const;

// ---- the plugin ------------------------------------------------------------------------------------

interface Plan {
  readonly terms: CryptoTerms;
  strike: number | undefined;
}

/** The `crypto-fair-value` plugin (see the module comment; params in CRYPTO_FAIR_VALUE_PARAMS). */
export default defineStrategy({
  name: 'crypto-fair-value',
  description:
    'Crypto up/down and above-K markets: fair P = N(d2) from the live coin price, its online volatility and the time to expiry; quotes around it, pulled when the feed is stale.',
  params: CRYPTO_FAIR_VALUE_PARAMS,
  riskPriceBand: CRYPTO_RISK_BAND,
  selectMarkets: (markets, ctx) => selectCryptoMarkets(markets, ctx),
  create(ctx, params) {
    const cfg = cryptoConfig(params);
    const reg = new MarketRegistry(ctx.markets.values());
    const plans = new Map<ConditionId, Plan>();
    const feeds = new Map<string, ReferenceFeed>();
    const bySymbol = new Map<string, MarketRef[]>();
    for (const ref of reg.all()) {
      const terms = cryptoTerms(ref.info, cfg);
      if (terms === undefined) {
        ctx.log.warn(
          { market: ref.market, question: ref.info.question },
          'crypto-fair-value: no symbol or expiry for this market: not quoted',
        );
        continue;
      }
      plans.set(ref.market, { terms, strike: terms.strike });
      if (!feeds.has(terms.symbol)) feeds.set(terms.symbol, new ReferenceFeed(cfg.volHalfLifeMs, cfg.initialVariance));
      bySymbol.set(terms.symbol, [...(bySymbol.get(terms.symbol) ?? []), ref]);
    }
    ctx.log.debug({ markets: reg.size, symbols: [...feeds.keys()] }, 'crypto-fair-value strategy ready');

    /** The market's fair probability now, or undefined (no plan, stale feed, no strike, too near expiry). */
    const fairOf = (ref: MarketRef, now: number): number | undefined => {
      const plan = plans.get(ref.market);
      if (plan === undefined) return undefined;
      const feed = feeds.get(plan.terms.symbol)!;
      if (!isFresh(feed.lastLiveAt, now, cfg.staleMs) || feed.price === undefined) return undefined;
      if (plan.strike === undefined && cfg.strikeFromFeed && plan.terms.windowStartMs !== undefined) {
        plan.strike = feed.priceAtStart(plan.terms.windowStartMs, cfg.strikeWindowMs);
        if (plan.strike !== undefined)
          ctx.log.info(
            { market: ref.market, strike: plan.strike },
            'crypto-fair-value: strike taken from the feed at the window start',
          );
      }
      if (plan.strike === undefined) return undefined;
      const tauMs = plan.terms.expiryMs - now;
      if (tauMs <= cfg.stopBeforeExpiryMs || tauMs <= 0) return undefined;
      return fairProbability(feed.price, plan.strike, sigmaOf(feed, cfg), tauMs / 1000, plan.terms.direction);
    };
    const desired = (ref: MarketRef, state: StrategyState): DesiredQuotes => ({
      market: ref.market,
      quotes: ref.quotable ? quoteCrypto(ref, cfg, fairOf(ref, state.now), state) : [],
      at: state.now,
    });
    const answer = (refs: readonly MarketRef[], state: StrategyState): StrategyOutput | undefined =>
      refs.length === 0 ? undefined : { quotes: refs.map((r) => desired(r, state)) };

    return {
      priceSymbols: [...feeds.keys()],
      onEvent(e: MmkitEvent, state: StrategyState): StrategyOutput | undefined {
        if (e.type === 'price_tick') {
          const feed = feeds.get(e.symbol.toLowerCase());
          if (feed === undefined) return undefined;
          feed.observe(e);
          return e.snapshot ? undefined : answer(bySymbol.get(e.symbol.toLowerCase()) ?? [], state);
        }
        if (e.type === 'disconnected' && e.stream === 'rtds') {
          for (const f of feeds.values()) f.markStale();
          return answer(reg.all(), state);
        }
        const a = reg.note(e);
        if (a.kind === 'none') return undefined;
        return answer(a.kind === 'all' ? reg.all() : [a.ref], state);
      },
    };
  },
});
