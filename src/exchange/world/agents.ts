/**
 * Flow agents: internal accounts that trade on every active market through the matching engine, so
 * a market maker connected to the paper exchange meets a living market.
 *
 *  - Liquidity providers keep a ladder of resting quotes (3 levels a side, a few ticks wide) around
 *    their own estimate of each market's value. The estimate follows the hidden fair value with a
 *    lag and is skewed by inventory; the ladder is refreshed every few seconds and soon after one
 *    of its orders fills. Bids are BUY YES (or SELL NO out of NO inventory), asks are BUY NO at
 *    1 - price (or SELL YES out of YES inventory): one book per market serves both tokens.
 *  - Noise traders arrive as a Poisson process: limit orders near the touch (GTD, they leave after
 *    a few minutes) and marketable FAK orders, on both sides of both tokens.
 *  - Informed traders look at markets at Poisson times and, when the book is far from the hidden
 *    probability, take liquidity toward it (FAK): a passive quote that was left behind by news or
 *    a crypto move gets filled adversely.
 *
 * Sizes respect each market's minimum and current tick; SELL orders only use tokens the agent holds
 * (tracked from the exchange's trade events), so rejections are rare. Nothing is logged per order.
 * Every change goes through the exchange's commands (placeInternal, cancel, fund): journaled, and
 * replayed exactly after a restart.
 */
import { keccak256, toUtf8Bytes } from 'ethers';
import type { Rng } from '../../core/random.ts';
import { AMOUNT_SCALE, PRICE_SCALE, tickPips } from '../../core/units.ts';
import type { ExchangeEvent, InternalOrder, PaperExchange } from '../exchange.ts';
import type { OrderType } from '../matching/types.ts';
import { agentAccounts, type AgentAccounts } from './agent-accounts.ts';
import { ceilLot, ceilTo, clamp, floorLot, floorTo } from './grid.ts';
import type { LiveMarket, WorldRuntime } from './runtime.ts';
import { hash32, rngFor } from './seeding.ts';

import { marketActivity, pickWeighted, type MarketActivity } from './activity.ts';
import { NewsFlow, type AgentDesk } from './news-flow.ts';
import type { AgentRates, WorldProfile } from './profiles.ts';

export { DEFAULT_AGENT_RATES, type AgentRates } from './profiles.ts';

/** Collateral each agent account starts with (micro). */
export const AGENT_FUNDING = {
  lp: 2_000_000 * AMOUNT_SCALE,
  noise: 50_000 * AMOUNT_SCALE,
  informed: 250_000 * AMOUNT_SCALE,
  fast: 500_000 * AMOUNT_SCALE,
} as const;

const LEVELS = 3;
/** Sizes of the ladder's levels (in base sizes), innermost first: the usual three, then a busy market's extra ones. */
const LEVEL_SIZE = [1, 1.6, 2.4, 3.2, 4, 4.8] as const;
/** How far the liquidity providers' estimate moves toward the fair value per refresh. */
const LP_ALPHA = 0.2;
/** Informed traders act when the book is this far (pips) from the fair value (or 2 ticks). */
const EDGE_PIPS = 150;
const TOPUP_EVERY_MS = 60_000;

/**
 * Token holdings (available + reserved, micro) of the agent accounts, kept from trade and
 * resolution events: O(1) per lookup, however many markets an account has touched.
 */
class Holdings {
  private readonly byAccount = new Map<string, Map<string, number>>();
  constructor(accounts: readonly string[]) {
    for (const a of accounts) this.byAccount.set(a, new Map());
  }
  has(account: string): boolean {
    return this.byAccount.has(account);
  }
  get(account: string, token: string): number {
    return this.byAccount.get(account)?.get(token) ?? 0;
  }
  add(account: string, token: string, delta: number): void {
    const m = this.byAccount.get(account);
    if (m === undefined) return;
    const v = (m.get(token) ?? 0) + delta;
    if (v === 0) m.delete(token);
    else m.set(token, v);
  }
  /** Replace an account's holdings with the engine's balances. */
  sync(ex: PaperExchange, account: string): void {
    const m = new Map<string, number>();
    for (const [token, b] of ex.engine.balance(account).tokens)
      if (b.available + b.reserved > 0) m.set(token, b.available + b.reserved);
    this.byAccount.set(account, m);
  }
  dropTokens(tokens: readonly string[]): void {
    for (const m of this.byAccount.values()) for (const t of tokens) m.delete(t);
  }
  apply(e: ExchangeEvent): void {
    if (e.type !== 'trade') return;
    const t = e.trade;
    for (const mk of t.makers) {
      if (this.has(mk.account)) this.add(mk.account, mk.tokenId, mk.side === 'BUY' ? mk.size : -mk.size);
    }
    if (this.has(t.takerAccount)) this.add(t.takerAccount, t.tokenId, t.side === 'BUY' ? t.size : -t.size);
  }
}

/**
 * Order ids of the agents: 0x + 64 hex, a 24-byte prefix fixed per start (hash of the seed and the
 * start time) and an 8-byte counter. Deterministic for a run, and never repeated across restarts:
 * a start at the same clock time as an earlier one (virtual clocks) finds the earlier prefix in use
 * and takes the next.
 */
export class OrderIds {
  private n = 0;
  readonly prefix: string;
  /** @param exists whether the exchange already knows an order id */
  constructor(seed: number, startMs: number, exists: (id: string) => boolean) {
    let prefix = '';
    for (let attempt = 0; ; attempt++) {
      prefix = keccak256(toUtf8Bytes(`mmkit-world-orders:${seed}:${startMs}:${attempt}`)).slice(2, 50);
      // the first few, in case the first orders of the earlier run were refused (never recorded)
      let used = false;
      for (let k = 1; k <= 8 && !used; k++) used = exists(OrderIds.format(prefix, k));
      if (!used) break;
    }
    this.prefix = prefix;
  }
  private static format(prefix: string, n: number): string {
    return `0x${prefix}${n.toString(16).padStart(16, '0')}`;
  }
  next(): string {
    return OrderIds.format(this.prefix, ++this.n);
  }
}

/** A liquidity provider's view of one market. */
interface LpBook {
  account: string;
  /** Half the inner spread, pips (before rounding to the tick). */
  halfPips: number;
  /** Size of the first level, shares. */
  base: number;
  /** The provider's estimate of P(YES), 0..1 (undefined before its first refresh). */
  r: number | undefined;
  next: number;
  last: number;
  dirty: boolean;
  /** Extra widening after fills (profiles with defensive providers): size and when it was set. */
  widen: number;
  widenAt: number;
  /**
   * A reward farmer (profiles whose providers compete for rewards): one level a side at the min
   * size, at `bandFrac` of the max spread from its centre. Undefined for the market's provider.
   */
  farmer?: { bandFrac: number; sizeMult: number };
}

interface Level {
  bid: boolean;
  /** YES price, pips. */
  p: number;
  size: number;
}

/** The running flow agents of a world (see the module comment). */
export class Agents implements AgentDesk {
  readonly accounts: AgentAccounts;
  private readonly ex: PaperExchange;
  private readonly hold: Holdings;
  private readonly ids: OrderIds;
  private readonly lp = new Map<string, LpBook>();
  /** The reward farmers' books, per rewarded market (profiles with `lp.rewards`). */
  private readonly farm = new Map<string, LpBook>();
  private readonly lpSet: Set<string>;
  private readonly all: readonly string[];
  private readonly lastTopUp = new Map<string, number>();
  private readonly rngLp: Rng;
  private readonly rngNoise: Rng;
  private readonly rngInformed: Rng;
  private readonly profile: WorldProfile;
  /** The news reactions, fast traders and per-agent informed views (profiles other than calm). */
  private readonly flow: NewsFlow | undefined;
  /** Each market's activity (profiles with `activity`; activity.ts), by condition id. */
  private readonly activity = new Map<string, MarketActivity>();

  constructor(
    private readonly rt: WorldRuntime,
    private readonly rates: AgentRates,
  ) {
    this.ex = rt.ex;
    this.profile = rt.profile;
    this.accounts = agentAccounts(rt.seed);
    const p = this.profile;
    const all = [
      ...this.accounts.lp,
      ...this.accounts.noise,
      ...this.accounts.informed,
      ...(p.informed !== null ? this.accounts.newsInformed.slice(0, p.informed.agents) : []),
      ...(p.fast !== null ? this.accounts.fast.slice(0, p.fast.agents) : []),
    ];
    this.all = all;
    this.lpSet = new Set(this.accounts.lp);
    this.hold = new Holdings(all);
    const start = rt.clock.now();
    this.ids = new OrderIds(rt.seed, start, (id) => this.ex.engine.getOrder(id) !== undefined);
    this.rngLp = rngFor(rt.seed, `agents:lp:${start}`);
    this.rngNoise = rngFor(rt.seed, `agents:noise:${start}`);
    this.rngInformed = rngFor(rt.seed, `agents:informed:${start}`);
    this.flow = p.news !== null || p.informed !== null || p.fast !== null ? new NewsFlow(rt, this, start) : undefined;
  }

  // ---- the desk the news flow trades through (AgentDesk) ------------------------------------------

  /** Holdings of an agent account (micro), floored to the lot. */
  held(account: string, token: string): number {
    return floorLot(this.hold.get(account, token));
  }

  /** Place an agent order (counted in the world's stats); false when refused. */
  order(account: string, tokenId: string, side: 'BUY' | 'SELL', price: number, size: number, type: OrderType): boolean {
    return this.place(account, tokenId, side, price, size, type);
  }

  /** A size in shares as micro-shares, at least the market's minimum. */
  sizeMicro(shares: number, minSize: number): number {
    return this.sharesToMicro(shares, minSize);
  }

  /** The ladder's size over the usual three levels' (AgentDesk): 1 without uneven activity. */
  depthScale(cid: string): number {
    const extra = this.activityOf(cid).extraLevels;
    if (extra === 0) return 1;
    let usual = 0;
    let all = 0;
    for (let i = 0; i < LEVELS + extra; i++) {
      if (i < LEVELS) usual += LEVEL_SIZE[i]!;
      all += LEVEL_SIZE[i]!;
    }
    return all / usual;
  }

  /** Fund the accounts (only those never funded: a restored exchange keeps its balances), start the loops. */
  start(): void {
    const fund = (accounts: readonly string[], micro: number) => {
      for (const a of accounts) {
        const b = this.ex.engine.balance(a);
        if (b.collateral + b.collateralReserved === 0 && b.tokens.size === 0) this.ex.fund(a, micro);
        this.hold.sync(this.ex, a);
      }
    };
    fund(this.accounts.lp, AGENT_FUNDING.lp);
    fund(this.accounts.noise, AGENT_FUNDING.noise);
    fund(this.accounts.informed, AGENT_FUNDING.informed);
    const p = this.profile;
    if (p.informed !== null) fund(this.accounts.newsInformed.slice(0, p.informed.agents), AGENT_FUNDING.informed);
    if (p.fast !== null) fund(this.accounts.fast.slice(0, p.fast.agents), AGENT_FUNDING.fast);
    this.rt.onExchange((events) => this.onEvents(events));
    const t = this.rt.timers;
    const r = this.rates;
    t.every(250, () => this.lpLoop());
    // profiles with uneven activity: the providers' books are up from the start, as on a venue one
    // connects to (a market pick at once sees every ladder, the busy markets' deeper ones)
    if (p.activity !== null) this.openBooks();
    if (r.noisePerMarketPerMin > 0)
      t.poisson(
        this.rngNoise,
        () => 60_000 / (r.noisePerMarketPerMin * this.rt.active().length),
        () => this.noise(),
      );
    if (r.informedPerMarketPerMin > 0)
      t.poisson(
        this.rngInformed,
        () => 60_000 / (r.informedPerMarketPerMin * this.rt.active().length),
        () => this.informed(),
      );
    this.flow?.start();
  }

  private onEvents(events: readonly ExchangeEvent[]): void {
    for (const e of events) {
      if (e.type === 'trade') {
        this.hold.apply(e);
        const book = this.lp.get(e.trade.market);
        if (book !== undefined && e.trade.makers.some((m) => m.account === book.account)) {
          book.dirty = true;
          if (this.profile.lp.widenPerFill > 0) this.widenAfterFill(book, e.trade.makers, e.trade.matchTime);
        }
        const farm = this.farm.get(e.trade.market);
        if (farm !== undefined && e.trade.makers.some((m) => m.account === farm.account)) farm.dirty = true;
      } else if (e.type === 'market_status' && e.status === 'resolved') {
        const entry = this.ex.market(e.market);
        if (entry) {
          this.hold.dropTokens(entry.meta.tokens);
          // a resolution pays nobody by itself: the agents redeem, as holders do (next turn, not
          // from inside the exchange's notification)
          const tokens = entry.meta.tokens;
          this.rt.timers.after(0, () => this.redeem(e.market, tokens));
        }
        this.lp.delete(e.market);
        this.activity.delete(e.market);
        this.farm.delete(e.market);
      }
    }
  }

  // ---- order plumbing ---------------------------------------------------------------------------

  private place(
    account: string,
    tokenId: string,
    side: 'BUY' | 'SELL',
    price: number,
    size: number,
    type: OrderType,
    extra: Partial<InternalOrder> = {},
  ): boolean {
    const st = this.rt.stats;
    st.orders++;
    const r = this.ex.placeInternal({ id: this.ids.next(), account, tokenId, side, price, size, type, ...extra });
    if (!r.ok) {
      st.rejected[r.code] = (st.rejected[r.code] ?? 0) + 1;
      if (r.code === 'INVALID_ORDER_NOT_ENOUGH_BALANCE') this.replenish(account);
      return false;
    }
    if (r.trade !== null) st.takerTrades++;
    return true;
  }

  /** Redeem every agent's tokens of a resolved market. */
  private redeem(conditionId: string, tokens: readonly string[]): void {
    for (const a of this.all) {
      const b = this.ex.engine.balance(a).tokens;
      if (tokens.some((t) => (b.get(t)?.available ?? 0) > 0))
        this.ex.relayer(a, { type: 'REDEEM', conditionIds: [conditionId] });
    }
  }

  /** After a balance refusal: resync the holdings and top the collateral up (at most once a minute). */
  private replenish(account: string): void {
    this.hold.sync(this.ex, account);
    const now = this.rt.clock.now();
    if (now - (this.lastTopUp.get(account) ?? -Infinity) < TOPUP_EVERY_MS) return;
    this.lastTopUp.set(account, now);
    const target = this.lpSet.has(account)
      ? AGENT_FUNDING.lp
      : this.accounts.noise.includes(account)
        ? AGENT_FUNDING.noise
        : this.accounts.fast.includes(account)
          ? AGENT_FUNDING.fast
          : AGENT_FUNDING.informed;
    const have = this.ex.engine.balance(account).collateral;
    if (have < target / 4) {
      this.ex.fund(account, target - have);
      this.rt.stats.topUps += target - have;
    }
  }

  private sharesToMicro(shares: number, minSize: number): number {
    return Math.max(minSize, floorLot(Math.round(shares) * AMOUNT_SCALE));
  }

  // ---- liquidity providers ------------------------------------------------------------------------

  private lpBook(m: LiveMarket, now: number): LpBook {
    let b = this.lp.get(m.cid);
    if (b === undefined) {
      const r = rngFor(this.rt.seed, `lp:${m.cid}`);
      const crypto = m.entry.meta.cryptoSymbol !== undefined;
      b = {
        account: this.accounts.lp[hash32(m.cid) % this.accounts.lp.length]!,
        halfPips: (60 + 140 * r.next()) * this.profile.lp.spreadScale,
        base: (20 + 130 * r.next()) * (crypto ? 1.5 : 1),
        r: undefined,
        next: now + Math.floor(this.rngLp.next() * 1000),
        last: -Infinity,
        dirty: false,
        widen: 0,
        widenAt: now,
      };
      this.lp.set(m.cid, b);
    }
    return b;
  }

  /** A defensive provider widens after a fill, in proportion to the size filled (decaying). */
  private widenAfterFill(b: LpBook, makers: readonly { account: string; size: number }[], now: number): void {
    const lp = this.profile.lp;
    let filled = 0;
    for (const m of makers) if (m.account === b.account) filled += m.size;
    b.widen = this.widenNow(b, now) + (lp.widenPerFill * filled) / AMOUNT_SCALE / b.base;
    b.widenAt = now;
  }

  private widenNow(b: LpBook, now: number): number {
    if (b.widen === 0) return 0;
    return b.widen * Math.exp(-(now - b.widenAt) / this.profile.lp.widenDecayMs);
  }

  private lpLoop(): void {
    const now = this.rt.clock.now();
    const rewards = this.profile.lp.rewards;
    for (const m of this.rt.active()) {
      const b = this.lpBook(m, now);
      if (now >= b.next || (b.dirty && now - b.last >= this.rates.lpReactMs)) this.refresh(m, b, now);
      if (!rewards) continue;
      const f = this.farmBook(m, now);
      if (f !== undefined && (now >= f.next || (f.dirty && now - f.last >= this.rates.lpReactMs)))
        this.refresh(m, f, now);
    }
  }

  /**
   * Every active market's providers (and reward farmers) quote now rather than within their first
   * seconds. Not on a restart from the journal: a market whose provider already rests orders keeps
   * them as they were (the replayed state must stay the state it was).
   */
  private openBooks(): void {
    const now = this.rt.clock.now();
    for (const m of this.rt.active()) {
      const b = this.lpBook(m, now);
      if (this.rt.ex.engine.openOrders(b.account, { market: m.cid }).length > 0) continue;
      b.next = now;
      const f = this.profile.lp.rewards ? this.farmBook(m, now) : undefined;
      if (f !== undefined) f.next = now;
    }
    this.lpLoop();
  }

  /**
   * The reward farmer of a rewarded market (another provider account than the market's own):
   * created when the market first has a reward config; it cancels its quotes when the config goes.
   */
  private farmBook(m: LiveMarket, now: number): LpBook | undefined {
    let f = this.farm.get(m.cid);
    if (f === undefined) {
      if (this.ex.rewards.configOf(m.cid) === null) return undefined;
      const r = rngFor(this.rt.seed, `lp-rewards:${m.cid}`);
      const lps = this.accounts.lp;
      f = {
        account: lps[(hash32(m.cid) + 1) % lps.length]!,
        halfPips: 0,
        base: 0,
        r: undefined,
        next: now + Math.floor(r.next() * 2000),
        last: -Infinity,
        dirty: false,
        widen: 0,
        widenAt: now,
        farmer: { bandFrac: 0.2 + 0.3 * r.next(), sizeMult: 1.5 + 1.5 * r.next() },
      };
      this.farm.set(m.cid, f);
    }
    return f;
  }

  /** Bring one market's ladder to where the provider wants it: keep what is close, cancel, place. */
  private refresh(m: LiveMarket, b: LpBook, now: number): void {
    const rng = this.rngLp;
    b.last = now;
    b.dirty = false;
    b.next = now + this.rates.lpRefreshMs * (0.6 + 0.8 * rng.next());
    const ex = this.ex;
    const tick = tickPips(m.entry.state.tick);
    const f = this.rt.fair.fair(m.cid, now);
    b.r = b.r === undefined ? clamp(f + 0.01 * rng.normal(), 0, 1) : b.r + LP_ALPHA * (f - b.r);
    const a = b.account;
    const heldYes = this.hold.get(a, m.yes);
    const heldNo = this.hold.get(a, m.no);
    const lpp = this.profile.lp;
    // on a rewarded market (profiles whose providers compete for rewards): the inner quotes stay
    // inside the band, at the min size or more; a farmer quotes one level a side there
    const rc = lpp.rewards ? ex.rewards.configOf(m.cid) : null;
    const farmer = b.farmer;
    if (farmer !== undefined && rc === null) {
      const mine = ex.engine.openOrders(a, { market: m.cid });
      if (mine.length > 0) {
        this.rt.stats.cancels += mine.length;
        ex.cancel(
          a,
          mine.map((o) => o.id),
        );
      }
      return;
    }
    const halfPips =
      farmer !== undefined && rc !== null
        ? rc.maxSpread * farmer.bandFrac
        : lpp.widenPerFill > 0
          ? b.halfPips * Math.min(lpp.maxWiden, 1 + this.widenNow(b, now))
          : b.halfPips;
    let h = Math.max(tick, Math.round(halfPips / tick) * tick);
    if (rc !== null) h = Math.min(h, Math.max(tick, Math.floor((0.5 * rc.maxSpread) / tick) * tick));
    const d = Math.max(tick, Math.round((0.7 * h) / tick) * tick);
    const rewardSize = rc === null ? 0 : ceilLot(rc.minSize * (farmer?.sizeMult ?? 1));
    const base = farmer !== undefined ? rewardSize / AMOUNT_SCALE : b.base;
    const inv = clamp((heldYes - heldNo) / AMOUNT_SCALE / (6 * base), -1, 1);
    const skew = lpp.skew === 1 ? inv * h : inv * lpp.skew * h;
    const c = clamp(b.r * PRICE_SCALE - skew, tick, PRICE_SCALE - tick);
    const minSize = m.entry.meta.minSizeMicro;
    const want: Level[] = [];
    const levels = farmer !== undefined ? 1 : LEVELS + this.activityOf(m.cid).extraLevels;
    for (let i = 0; i < levels; i++) {
      const size = Math.max(this.sharesToMicro(b.base * LEVEL_SIZE[i]!, minSize), rewardSize);
      want.push({ bid: true, p: clamp(floorTo(c - h - i * d, tick), tick, PRICE_SCALE - 2 * tick), size });
      want.push({ bid: false, p: clamp(ceilTo(c + h + i * d, tick), 2 * tick, PRICE_SCALE - tick), size });
    }
    // keep live orders close to a wanted level; cancel the rest
    const tol = Math.floor(h / 2 / tick) * tick;
    const live = ex.engine.openOrders(a, { market: m.cid });
    const used = new Array<boolean>(live.length).fill(false);
    const todo: Level[] = [];
    let reservedYes = 0;
    let reservedNo = 0;
    const seen = new Set<number>();
    for (const w of want) {
      const key = w.bid ? w.p : -w.p;
      if (seen.has(key)) continue; // levels clamped onto the same price
      seen.add(key);
      let kept = false;
      for (let i = 0; i < live.length; i++) {
        if (used[i]) continue;
        const o = live[i]!;
        const isYes = o.tokenId === m.yes;
        const bid = isYes === (o.side === 'BUY');
        const yp = isYes ? o.price : PRICE_SCALE - o.price;
        const rem = o.originalSize - o.sizeMatched;
        if (bid === w.bid && Math.abs(yp - w.p) <= tol && rem * 2 >= w.size && (rc === null || rem >= rc.minSize)) {
          used[i] = true;
          kept = true;
          if (o.side === 'SELL') {
            if (isYes) reservedYes += rem;
            else reservedNo += rem;
          }
          break;
        }
      }
      if (!kept) todo.push(w);
    }
    const cancel: string[] = [];
    live.forEach((o, i) => {
      if (!used[i]) cancel.push(o.id);
    });
    if (cancel.length) {
      this.rt.stats.cancels += cancel.length;
      ex.cancel(a, cancel);
    }
    if (todo.length === 0) return;
    // never cross the book (post-only): step back behind the other side's best
    const { bid: bb, ask: ba } = ex.engine.bestBidAsk(m.yes);
    let freeYes = heldYes - reservedYes;
    let freeNo = heldNo - reservedNo;
    for (const w of todo) {
      let p = w.p;
      if (w.bid && ba !== null && p >= ba) p = ba - tick;
      if (!w.bid && bb !== null && p <= bb) p = bb + tick;
      if (p < tick || p > PRICE_SCALE - tick) continue;
      if (w.bid) {
        if (freeNo >= w.size) {
          freeNo -= w.size;
          this.place(a, m.no, 'SELL', PRICE_SCALE - p, w.size, 'GTC', { postOnly: true });
        } else this.place(a, m.yes, 'BUY', p, w.size, 'GTC', { postOnly: true });
      } else if (freeYes >= w.size) {
        freeYes -= w.size;
        this.place(a, m.yes, 'SELL', p, w.size, 'GTC', { postOnly: true });
      } else this.place(a, m.no, 'BUY', PRICE_SCALE - p, w.size, 'GTC', { postOnly: true });
    }
  }

  /** The market of a taker's order: uniform, or in proportion to activity (profiles with `activity`). */
  private pickMarket(rng: Rng, active: readonly LiveMarket[]): LiveMarket {
    if (this.profile.activity === null) return rng.pick(active);
    return pickWeighted(active, (m) => this.activityOf(m.cid).weight, rng.next());
  }

  /** A market's activity (profiles with `activity`), computed once. */
  private activityOf(cid: string): MarketActivity {
    const p = this.profile.activity;
    if (p === null) return { weight: 1, extraLevels: 0 };
    let a = this.activity.get(cid);
    if (a === undefined) this.activity.set(cid, (a = marketActivity(this.rt.seed, cid, p)));
    return a;
  }

  // ---- noise traders ----------------------------------------------------------------------------

  private noise(): void {
    const active = this.rt.active();
    if (active.length === 0) return;
    const rng = this.rngNoise;
    const m = this.pickMarket(rng, active);
    const a = rng.pick(this.accounts.noise);
    const tick = tickPips(m.entry.state.tick);
    const minSize = m.entry.meta.minSizeMicro;
    const token = rng.next() < 0.5 ? m.yes : m.no;
    const { bid, ask } = this.ex.engine.bestBidAsk(token);
    const held = floorLot(this.hold.get(a, token));
    const ns = this.profile.noiseSize;
    let size = this.sharesToMicro(
      clamp(Math.exp(Math.log(ns.median) + ns.sigma * rng.normal()), ns.min, ns.max),
      minSize,
    );
    const top = PRICE_SCALE - tick;
    if (held >= minSize && rng.next() < 0.35) {
      if (bid === null) return;
      size = Math.min(size, held);
      this.place(a, token, 'SELL', clamp(bid - rng.int(0, 1) * tick, tick, top), size, 'FAK');
    } else if (ask !== null && rng.next() < 0.4) {
      this.place(a, token, 'BUY', clamp(ask + rng.int(0, 2) * tick, tick, top), size, 'FAK');
    } else {
      const ref = bid ?? (ask !== null ? ask - 2 * tick : PRICE_SCALE / 2);
      let p = floorTo(ref, tick) + rng.int(-3, 1) * tick;
      if (ask !== null && p >= ask) p = ask - tick;
      p = clamp(p, tick, top);
      if (ask !== null && p >= ask) return;
      const life = Math.max(20_000, rng.exp(180_000));
      this.place(a, token, 'BUY', p, size, 'GTD', { expiresAt: this.rt.clock.now() + Math.round(life) });
    }
  }

  // ---- informed traders ---------------------------------------------------------------------------

  private informed(): void {
    const active = this.rt.active();
    if (active.length === 0) return;
    const rng = this.rngInformed;
    const m = this.pickMarket(rng, active);
    if (this.flow !== undefined && this.profile.informed !== null) {
      // profiles with news: one of all the informed traders looks, with its own delay and error
      this.flow.look(m, rng);
      return;
    }
    const a = rng.pick(this.accounts.informed);
    const tick = tickPips(m.entry.state.tick);
    const minSize = m.entry.meta.minSizeMicro;
    const f = this.rt.fair.fair(m.cid, this.rt.clock.now()) * PRICE_SCALE;
    const edge = Math.max(2 * tick, EDGE_PIPS);
    const { bid, ask } = this.ex.engine.bestBidAsk(m.yes);
    const size = this.sharesToMicro(rng.int(40, 300), minSize);
    const top = PRICE_SCALE - tick;
    if (ask !== null && ask <= f - edge) {
      // YES is cheap: buy YES (or sell NO held), up to fair - edge/2
      const p = clamp(floorTo(f - edge / 2, tick), ask, top);
      const heldNo = floorLot(this.hold.get(a, m.no));
      if (heldNo >= minSize) this.place(a, m.no, 'SELL', PRICE_SCALE - p, Math.min(size, heldNo), 'FAK');
      else this.place(a, m.yes, 'BUY', p, size, 'FAK');
    } else if (bid !== null && bid >= f + edge) {
      // YES is dear: sell YES held, or buy NO, down to fair + edge/2
      const p = clamp(ceilTo(f + edge / 2, tick), tick, bid);
      const heldYes = floorLot(this.hold.get(a, m.yes));
      if (heldYes >= minSize) this.place(a, m.yes, 'SELL', p, Math.min(size, heldYes), 'FAK');
      else this.place(a, m.no, 'BUY', PRICE_SCALE - p, size, 'FAK');
    }
  }
}
