/**
 * The realistic world bites (issue 18): a quote left at its price through a news jump is taken
 * within a second, and a probe that keeps one small bid and ask at the touch loses at +60 s over
 * every one of 5 seeds. The world runs in virtual time inside this process (the exchange's real
 * matching engine and world), so a run of hours takes seconds and is deterministic.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import { AMOUNT_SCALE, PRICE_SCALE } from '../../src/core/units.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../src/exchange/exchange.ts';
import { measureWorld } from '../../src/exchange/world/facts.ts';
import { PROFILES, seedWorld, startWorld, type NewsEvent } from '../../src/exchange/world/index.ts';
import { addressFor } from '../../src/exchange/world/seeding.ts';

describe('the realistic world', () => {
  it('takes quotes left at their price through a news jump within a second', () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock });
    seedWorld(ex, 4);
    ex.start();
    const world = startWorld(ex, {
      seed: 4,
      agents: 'default',
      lifecycle: true,
      priceFeed: false,
      profile: 'realistic',
    });
    const me = addressFor('test:stale-quoter');
    ex.fund(me, 10_000_000 * AMOUNT_SCALE);
    let n = 0;
    const id = () => `0x${'e'.repeat(48)}${(++n).toString(16).padStart(16, '0')}`;
    // our quotes: one bid and one ask at the touch of every active market, re-placed every 5 s
    // (never in between: they sit at their price through whatever happens)
    const quote = () => {
      for (const e of ex.listMarkets()) {
        if (e.state.status !== 'active') continue;
        const [yes, no] = e.meta.tokens;
        const mine = ex.engine.openOrders(me, { market: e.meta.conditionId });
        if (mine.length > 0)
          ex.cancel(
            me,
            mine.map((o) => o.id),
          );
        const { bid, ask } = ex.engine.bestBidAsk(yes);
        if (bid === null || ask === null) continue;
        const size = Math.max(e.meta.minSizeMicro, 10 * AMOUNT_SCALE);
        const base = { account: me, side: 'BUY' as const, size, type: 'GTC' as const, postOnly: true };
        ex.placeInternal({ ...base, id: id(), tokenId: yes, price: bid });
        ex.placeInternal({ ...base, id: id(), tokenId: no, price: PRICE_SCALE - ask });
      }
    };
    // at each jump: which of our quotes the new fair value leaves stale by at least the fast
    // traders' margin (a bid above it, an ask below it); when is each filled
    // (one cent beyond the margin: the fair value diffuses on between the jump and the sweep)
    const margin = PROFILES.realistic.fast!.marginPips + 100;
    const stale: Array<{ jump: NewsEvent; orderId: string }> = [];
    world.onNews((j) => {
      const e = ex.market(j.market)!;
      const f = j.after * PRICE_SCALE;
      for (const o of ex.engine.openOrders(me, { market: j.market })) {
        const isBid = o.tokenId === e.meta.tokens[0];
        const yesPrice = isBid ? o.price : PRICE_SCALE - o.price;
        if ((isBid && yesPrice >= f + margin) || (!isBid && yesPrice <= f - margin))
          stale.push({ jump: j, orderId: o.id });
      }
    });
    const filledAt = new Map<string, number>();
    ex.subscribe((events) => {
      for (const ev of events)
        if (ev.type === 'trade')
          for (const m of ev.trade.makers)
            if (m.account === me && !filledAt.has(m.orderId)) filledAt.set(m.orderId, ev.trade.matchTime);
    });
    clock.advance(120_000);
    const end = clock.now() + 3 * 3_600_000;
    while (clock.now() < end) {
      quote();
      clock.advance(5_000);
    }
    world.stop();
    ex.stop();
    expect(world.stats().newsJumps).toBeGreaterThan(100);
    expect(stale.length).toBeGreaterThanOrEqual(10);
    for (const s of stale) {
      const at = filledAt.get(s.orderId);
      expect(at, `quote ${s.orderId} stale after the jump of ${s.jump.market} at ${s.jump.at}`).toBeDefined();
      expect(at! - s.jump.at).toBeLessThanOrEqual(1_000);
    }
  }, 600_000); // (virtual time, deterministic: CPU only, ~10-20 s alone; minutes on a loaded machine)

  it('makes a probe quoting at the touch lose at +60 s over every one of 5 seeds', () => {
    const marks: number[] = [];
    for (const seed of [1, 2, 3, 4, 5]) {
      const f = measureWorld({ profile: 'realistic', seed, hours: 2 });
      expect(f.probeFills).toBeGreaterThan(1000);
      expect(f.newsJumps).toBeGreaterThan(0);
      marks.push(f.probeMarkout60s!);
    }
    for (const m of marks) expect(m).toBeLessThan(0);
  }, 900_000); // (10 simulated hours: CPU only; minutes on a loaded machine)

  it('is harder than the calm world: the probe does better in calm, on the same seed', () => {
    const calm = measureWorld({ profile: 'calm', seed: 1, hours: 1 });
    const real = measureWorld({ profile: 'realistic', seed: 1, hours: 1 });
    expect(calm.newsJumps).toBe(0);
    expect(calm.fastShare).toBe(0);
    expect(real.fastShare).toBeGreaterThan(0);
    expect(real.probeMarkout60s!).toBeLessThan(calm.probeMarkout60s!);
  }, 600_000);
});
