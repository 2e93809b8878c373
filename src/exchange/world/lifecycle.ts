/**
 * The world's market lifecycle, on the exchange's clock:
 *
 *  - a market closes when its end time passes and resolves shortly after (crypto: seconds; others:
 *    up to two minutes), to the outcome of its hidden model (fair.ts);
 *  - a rolling crypto up/down event gets the next window's market as soon as one closes; a game
 *    series gets its next game a couple of minutes after the last one resolved;
 *  - a market on the 0.01 tick whose price nears 0.04 or 0.96 moves to the 0.001 tick;
 *  - new comments appear at a slow Poisson rate.
 *
 * Every decision is a function of the exchange's state, the seed and the time, so a restarted
 * world (state replayed from the journal) takes the same decisions.
 */
import type { Rng } from '../../core/random.ts';
import { tickPips } from '../../core/units.ts';
import type { PaperExchange } from '../exchange.ts';
import { eventIdBase } from './generator.ts';
import { gameEvent } from './games.ts';
import { cryptoWindowMarket, rollingOf } from './rolling-crypto.ts';
import { commentIdBase, commentRecord, type CommentParent } from './world-comments.ts';
import { withWorldFee } from './world-fees.ts';
import { GAME_SPORTS } from './catalog.ts';
import { giveWorldRewards } from '../rewards/world-configs.ts';
import type { EventRec } from './model.ts';
import type { LiveMarket, WorldRuntime } from './runtime.ts';
import { hash32, rngFor } from './seeding.ts';

/** Options of the lifecycle. */
export interface LifecycleOptions {
  /** New comments per minute over the whole world. Default 1. */
  commentsPerMin: number;
  /** Pause between the end of a game and the next game of its series, ms. Default 120 000. */
  gamePauseMs: number;
  /** The taker fee rate of the markets it lists, bps. Default 0. */
  feeRateBps: number;
}

export const DEFAULT_LIFECYCLE: LifecycleOptions = { commentsPerMin: 1, gamePauseMs: 120_000, feeRateBps: 0 };

/** Delay between a market's end and its resolution (deterministic per market). */
export function resolveDelayMs(cid: string, crypto: boolean): number {
  const u = (hash32(`resolve:${cid}`) % 1000) / 1000;
  return crypto ? 3_000 + Math.floor(u * 9_000) : 20_000 + Math.floor(u * 70_000);
}

/** Runs the lifecycle of a world (see the module comment). */
export class Lifecycle {
  private readonly rng: Rng;
  private readonly ex: PaperExchange;

  constructor(
    private readonly rt: WorldRuntime,
    private readonly opts: LifecycleOptions,
  ) {
    this.ex = rt.ex;
    this.rng = rngFor(rt.seed, `lifecycle:${rt.clock.now()}`);
  }

  start(): void {
    this.step();
    this.rt.timers.every(1000, () => this.step());
    this.rt.timers.every(5000, () => this.tickSizes());
    if (this.opts.commentsPerMin > 0)
      this.rt.timers.poisson(
        this.rng,
        () => 60_000 / this.opts.commentsPerMin,
        () => this.comment(),
      );
  }

  /** Close, resolve and roll what is due now. */
  step(): void {
    const now = this.rt.clock.now();
    for (const m of [...this.rt.live.values()]) {
      const status = m.entry.state.status;
      if (status === 'active' && now >= m.endMs) {
        this.ex.closeMarket(m.cid);
        this.rt.stats.marketsClosed++;
      }
      if (
        m.entry.state.status === 'closed' &&
        now >= m.endMs + resolveDelayMs(m.cid, m.entry.meta.cryptoSymbol !== undefined)
      )
        this.resolve(m);
    }
    this.roll(now);
  }

  private resolve(m: LiveMarket): void {
    const yes = this.rt.fair.resolvesYes(m.cid);
    this.ex.resolveMarket(m.cid, yes ? m.yes : m.no);
    this.rt.stats.marketsResolved++;
  }

  /** Next crypto windows and next games. */
  private roll(now: number): void {
    const store = this.ex.world;
    for (const ev of [...store.events.values()]) {
      const rc = rollingOf(ev);
      if (rc === undefined) continue;
      const lastId = ev.marketIds[ev.marketIds.length - 1];
      const last = lastId === undefined ? undefined : this.ex.market(lastId);
      if (last !== undefined && last.state.status === 'active') continue;
      const L = rc.windowMin * 60_000;
      const prevEnd = last === undefined ? now : Date.parse(last.meta.endDate);
      // chain windows; after a long pause (a restart) start a fresh window now
      const startMs = now - prevEnd < 60_000 && now >= prevEnd ? prevEnd : Math.floor(now / 1000) * 1000;
      const endMs = startMs + L;
      const strike = this.rt.walk(rc.symbol).priceAt(startMs);
      const meta = cryptoWindowMarket(this.rt.seed, ev, rc, ev.marketIds.length, startMs, endMs, strike, now);
      this.putEvent({ ...ev, marketIds: [...ev.marketIds, meta.conditionId], endDate: meta.endDate });
      this.ex.addMarket(withWorldFee(meta, this.opts.feeRateBps));
      giveWorldRewards(this.ex, this.rt.seed, meta);
      this.rt.stats.marketsCreated++;
    }
    for (const g of GAME_SPORTS) {
      let latest: EventRec | undefined;
      let n = 0;
      for (const ev of store.events.values()) {
        if (ev.seriesSlug !== g.seriesSlug) continue;
        n++;
        latest = ev;
      }
      if (latest !== undefined) {
        const done = latest.marketIds.every((c) => this.ex.market(c)?.state.status === 'resolved');
        if (!done || now < Date.parse(latest.endDate) + this.opts.gamePauseMs) continue;
      }
      const { event, markets } = gameEvent(this.rt.seed, g, n, this.freeEventId(), now);
      this.putEvent(event);
      this.rt.stats.eventsCreated++;
      for (const m of markets) {
        this.ex.addMarket(withWorldFee(m, this.opts.feeRateBps));
        giveWorldRewards(this.ex, this.rt.seed, m);
        this.rt.stats.marketsCreated++;
      }
    }
  }

  private putEvent(event: EventRec): void {
    this.ex.exec({ k: 'event', event });
  }

  private freeEventId(): string {
    const events = this.ex.world.events;
    let id = eventIdBase(this.rt.seed) + events.size;
    while (events.has(String(id))) id++;
    return String(id);
  }

  /**
   * Markets on 0.01 whose book has moved near the edges trade on 0.001 from now on (markets with
   * more than an hour to go: short windows are left alone as they converge to 0 or 1).
   */
  tickSizes(): void {
    const now = this.rt.clock.now();
    for (const m of this.rt.active()) {
      if (m.entry.state.tick !== '0.01' || m.endMs - now < 3_600_000) continue;
      const { bid, ask } = this.ex.engine.bestBidAsk(m.yes);
      if (bid === null || ask === null) continue;
      const mid = (bid + ask) / 2;
      if (mid < 400 || mid > 9600) {
        this.ex.setTickSize(m.cid, tickPips('0.001'));
        this.rt.stats.tickChanges++;
      }
    }
  }

  /** A new comment by a world profile on an active market or its event. */
  comment(): void {
    const active = this.rt.active();
    if (active.length === 0) return;
    const store = this.ex.world;
    const rng = this.rng;
    const m = rng.pick(active);
    const ev = store.eventOfMarket.get(m.cid);
    const parent: CommentParent =
      ev !== undefined && rng.next() < 0.6
        ? { type: 'Event', id: ev.id, text: ev.title }
        : { type: 'Market', id: m.cid, text: m.entry.meta.question };
    const profiles = [...store.profiles.values()];
    if (profiles.length === 0) return;
    const author = rng.pick(profiles).address;
    let replyTo: string | undefined;
    if (rng.next() < 0.2) {
      for (let i = store.comments.length - 1, seen = 0; i >= 0 && seen < 200; i--, seen++) {
        const c = store.comments[i]!;
        if (c.parentEntityId === parent.id && c.userAddress !== author) {
          replyTo = c.id;
          break;
        }
      }
    }
    const id = store.nextCommentId(commentIdBase(this.rt.seed));
    const comment = commentRecord(rng, id, parent, author, this.rt.clock.now(), replyTo);
    this.ex.exec({ k: 'comment', comment });
    this.rt.stats.comments++;
  }
}
