/**
 * The traders who know something (profiles other than calm; profiles.ts):
 *
 *  - News jumps (news.ts) are announced on the exchange's clock at the moment they happen: the world
 *    counts them, logs them (`RunningWorld.news()`) and tells its listeners.
 *  - Fast traders react to each jump within `fast.latencyMs` and take every quote resting at least
 *    `fast.marginPips` on the wrong side of the new fair value (a FAK sweep up to that price): quotes
 *    left at their price through a jump are picked off. On crypto markets they do the same after
 *    each one-second step of the price feed.
 *  - Informed traders each have a delay and an error (drawn per agent). A share of them learn of each
 *    jump after their delay; they also look at random markets at Poisson times (agents.ts calls
 *    `look`). Their estimate is the fair value with the news known as of their delay, plus their
 *    error; they trade aggressively (FAK) toward it when the book is `informed.edgePips` away.
 *
 * Orders go through the agents' desk (agents.ts), which tracks holdings and counts orders.
 */
import type { Rng } from '../../core/random.ts';
import { PRICE_SCALE, tickPips } from '../../core/units.ts';
import type { OrderType } from '../matching/types.ts';
import type { AgentAccounts } from './agent-accounts.ts';
import { ceilTo, clamp, floorTo } from './grid.ts';
import type { NewsEvent } from './news.ts';
import type { InformedParams } from './profiles.ts';
import type { LiveMarket, WorldRuntime } from './runtime.ts';
import { rngFor } from './seeding.ts';

/** What the news flow needs from the agents (agents.ts implements it). */
export interface AgentDesk {
  readonly accounts: AgentAccounts;
  held(account: string, token: string): number;
  order(account: string, tokenId: string, side: 'BUY' | 'SELL', price: number, size: number, type: OrderType): boolean;
  sizeMicro(shares: number, minSize: number): number;
  /**
   * How much deeper than usual a market's provider ladder is (1: the usual three levels; more on a
   * busy market, profiles with uneven activity): the fast traders' sweeps scale with it, so what a
   * jump leaves stale is still taken.
   */
  depthScale(cid: string): number;
}

interface InformedAgent {
  account: string;
  delayMs: number;
  errorProb: number;
}

const uniform = (rng: Rng, [lo, hi]: readonly [number, number]) => lo + (hi - lo) * rng.next();

/** See the module comment. */
export class NewsFlow {
  private readonly informed: InformedAgent[] = [];
  private readonly fast: string[];
  private readonly scheduled = new Map<string, number>();
  private readonly rng: Rng;

  constructor(
    private readonly rt: WorldRuntime,
    private readonly desk: AgentDesk,
    start: number,
  ) {
    const p = rt.profile;
    this.rng = rngFor(rt.seed, `news-flow:${start}`);
    if (p.informed !== null) {
      const accounts = [...desk.accounts.informed, ...desk.accounts.newsInformed.slice(0, p.informed.agents)];
      accounts.forEach((account, i) => {
        const r = rngFor(rt.seed, `informed-agent:${i}`);
        this.informed.push({
          account,
          delayMs: Math.round(uniform(r, p.informed!.delayMs)),
          errorProb: uniform(r, p.informed!.errorProb),
        });
      });
    }
    this.fast = p.fast !== null ? desk.accounts.fast.slice(0, p.fast.agents) : [];
  }

  start(): void {
    const p = this.rt.profile;
    const t = this.rt.timers;
    if (p.news !== null && this.rt.fair.news !== undefined) {
      this.scheduleNews();
      t.every(1000, () => this.scheduleNews());
    }
    if (p.fast?.crypto === true && this.fast.length > 0) t.every(1000, () => this.cryptoTick());
  }

  /** Every active market with news has its next jump on a timer. */
  private scheduleNews(): void {
    const news = this.rt.fair.news;
    if (news === undefined) return;
    const now = this.rt.clock.now();
    for (const m of this.rt.active()) {
      if (this.scheduled.has(m.cid) || m.entry.meta.cryptoSymbol !== undefined) continue;
      const life = this.rt.fair.newsLife(m.cid);
      if (life === undefined) continue;
      const next = news.nextAfter(m.cid, life, now);
      if (next === undefined || next.at >= m.endMs) {
        this.scheduled.set(m.cid, Infinity);
        continue;
      }
      this.scheduled.set(m.cid, next.at);
      this.rt.timers.after(next.at - now, () => this.onJump(m, next.at));
    }
    for (const cid of this.scheduled.keys()) if (!this.rt.live.has(cid)) this.scheduled.delete(cid);
  }

  private onJump(m: LiveMarket, at: number): void {
    this.scheduled.delete(m.cid);
    if (!this.rt.live.has(m.cid) || m.entry.state.status !== 'active') return;
    const fair = this.rt.fair;
    const ev: NewsEvent = { market: m.cid, at, before: fair.fair(m.cid, at - 1), after: fair.fair(m.cid, at) };
    this.rt.recordNews(ev);
    // the next jump of this market
    this.scheduleNews();
    const p = this.rt.profile;
    const rng = this.rng;
    if (p.fast !== null)
      for (const a of this.fast) this.rt.timers.after(uniform(rng, p.fast.latencyMs), () => this.sweep(a, m));
    if (p.informed !== null)
      for (const ag of this.informed)
        if (rng.next() < p.informed.reactShare) this.rt.timers.after(ag.delayMs, () => this.trade(ag, m, p.informed!));
  }

  /** Fast traders on crypto markets: after each price step, take what the move left stale. */
  private cryptoTick(): void {
    const p = this.rt.profile.fast;
    if (p === null) return;
    for (const m of this.rt.active()) {
      if (m.entry.meta.cryptoSymbol === undefined) continue;
      const a = this.rng.pick(this.fast);
      this.rt.timers.after(uniform(this.rng, p.cryptoLatencyMs), () => this.sweep(a, m));
    }
  }

  /** A fast trader takes every quote at least the margin on the wrong side of the fair value now. */
  private sweep(account: string, m: LiveMarket): void {
    const p = this.rt.profile.fast;
    if (p === null || m.entry.state.status !== 'active') return;
    const f = this.rt.fair.fair(m.cid, this.rt.clock.now()) * PRICE_SCALE;
    // the margin is an edge in price, whatever the tick (a 0.1-tick book left 5 cents stale is taken)
    this.take(account, m, f, p.marginPips, p.maxShares * this.desk.depthScale(m.cid), 1);
  }

  /** A background look by a random informed trader (agents.ts calls it at Poisson times). */
  look(m: LiveMarket, rng: Rng): void {
    const p = this.rt.profile.informed;
    if (p === null || this.informed.length === 0) return;
    this.trade(rng.pick(this.informed), m, p);
  }

  private trade(ag: InformedAgent, m: LiveMarket, p: InformedParams): void {
    if (m.entry.state.status !== 'active') return;
    const now = this.rt.clock.now();
    const rng = this.rng;
    const view = clamp(this.rt.fair.fair(m.cid, now, now - ag.delayMs) + ag.errorProb * rng.normal(), 0, 1);
    const tick = tickPips(m.entry.state.tick);
    const shares = uniform(rng, p.sizeShares);
    this.take(ag.account, m, view * PRICE_SCALE, Math.max(2 * tick, p.edgePips), shares, 0.5);
  }

  /**
   * Take liquidity toward `f` (YES pips) when the book is at least `edge` away: buy YES (or sell NO
   * held) up to f - edge * keep, or sell YES held (or buy NO) down to f + edge * keep.
   */
  private take(account: string, m: LiveMarket, f: number, edge: number, shares: number, keep: number): void {
    const tick = tickPips(m.entry.state.tick);
    const { bid, ask } = this.rt.ex.engine.bestBidAsk(m.yes);
    const minSize = m.entry.meta.minSizeMicro;
    const size = this.desk.sizeMicro(shares, minSize);
    const top = PRICE_SCALE - tick;
    const d = this.desk;
    if (ask !== null && ask <= f - edge) {
      const p = clamp(floorTo(f - edge * keep, tick), ask, top);
      const heldNo = d.held(account, m.no);
      if (heldNo >= minSize) d.order(account, m.no, 'SELL', PRICE_SCALE - p, Math.min(size, heldNo), 'FAK');
      else d.order(account, m.yes, 'BUY', p, size, 'FAK');
    } else if (bid !== null && bid >= f + edge) {
      const p = clamp(ceilTo(f + edge * keep, tick), tick, bid);
      const heldYes = d.held(account, m.yes);
      if (heldYes >= minSize) d.order(account, m.yes, 'SELL', p, Math.min(size, heldYes), 'FAK');
      else d.order(account, m.no, 'BUY', PRICE_SCALE - p, size, 'FAK');
    }
  }
}
