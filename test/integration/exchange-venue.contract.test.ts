/**
 * The synthetic backtest's venue (src/venues/paper/exchange-venue.ts: the Venue port over an in-process
 * PaperExchange, in virtual time) through the shared contract suite, plus what only it has: the
 * same seed gives the same order ids; market events follow the exchange's books exactly; a latency
 * delays a request's effect by that much virtual time; our taker orders pay the V1 fee, or the V2
 * curve's with `feeProtocol` 2.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import type { FillEvent, MarketEvent } from '../../src/core/events.ts';
import type { ConditionId, TokenId } from '../../src/core/ids.ts';
import { AMOUNT_SCALE, PRICE_SCALE, type Micro, type Pips } from '../../src/core/units.ts';
import { curveFee, v1Fee } from '../../src/core/fees.ts';
import { initialMarkets } from '../../src/exchange/markets.ts';
import { createExchangeVenue } from '../../src/venues/paper/exchange-venue.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../src/exchange/exchange.ts';
import { seedWorld } from '../../src/exchange/world/index.ts';
import { BookMirrors } from '../../src/book/mirror.ts';
import { runVenueContract } from '../contract/venue.contract.ts';

const START = Date.UTC(2026, 0, 1);
const COUNTERPARTY = '0x00000000000000000000000000000000000c0c0c';

function exchange(clock = new VirtualClock(START)): PaperExchange {
  const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock });
  seedWorld(ex, 11);
  ex.fund(COUNTERPARTY, 1_000_000 * AMOUNT_SCALE);
  return ex;
}

let cpSeq = 0;
function take(ex: PaperExchange, tokenId: string, side: 'BUY' | 'SELL', price: number, size: number): void {
  const r = ex.placeInternal({
    id: `0xcp${(++cpSeq).toString(16).padStart(62, '0')}`,
    account: COUNTERPARTY,
    tokenId,
    side,
    price,
    size,
    type: 'FAK',
  });
  if (!r.ok || r.status !== 'matched') throw new Error(`counterparty order: ${JSON.stringify(r)}`);
}

runVenueContract('exchange venue (in-process paper exchange, virtual time)', async () => {
  const ex = exchange();
  const venue = createExchangeVenue({ exchange: ex, collateral: 10_000 * AMOUNT_SCALE });
  const all = await venue.markets();
  const market = all.find((m) => m.active && !m.negRisk && m.tick === '0.01')!;
  return {
    venue,
    market,
    timeoutMs: 2000,
    counterparty: {
      // a SELL of YES at p, sent as the equivalent BUY of NO at 1 - p (a complementary match)
      async take(o) {
        const m = all.find((x) => x.market === o.market)!;
        const no = m.tokens[1].tokenId;
        if (o.tokenId === m.tokens[0].tokenId && o.side === 'SELL') take(ex, no, 'BUY', PRICE_SCALE - o.price, o.size);
        else take(ex, o.tokenId, o.side, o.price, o.size);
      },
    },
    close: () => venue.close(),
  };
});

describe('exchange venue specifics', () => {
  it('a FAK BUY at a 4-decimal price fills the shares its whole-cent amount buys, as on the paper exchange over HTTP (trial 12 F1)', async () => {
    const ex = exchange();
    const venue = createExchangeVenue({ exchange: ex, collateral: 10_000 * AMOUNT_SCALE });
    const m = (await venue.markets()).find((x) => x.active && !x.negRisk)!;
    ex.setTickSize(m.market, 1);
    await venue.markets();
    const yes = m.tokens[0].tokenId;
    // asks at 0.5001 and 0.5675 (a counterparty's BUYs of NO), nothing between
    for (const p of [5001, 5675]) {
      const r = ex.placeInternal({
        id: `0xcpa${p.toString(16).padStart(61, '0')}`,
        account: COUNTERPARTY,
        tokenId: m.tokens[1].tokenId,
        side: 'BUY',
        price: PRICE_SCALE - p,
        size: 100 * AMOUNT_SCALE,
        type: 'GTC',
      });
      expect(r.ok).toBe(true);
    }
    const fak = async (shares: number, price: number): Promise<number> => {
      const [p] = venue.prepare([
        {
          market: m.market,
          tokenId: yes,
          side: 'BUY',
          price: price as Pips,
          size: (shares * AMOUNT_SCALE) as Micro,
          type: 'FAK',
        },
      ]);
      const [o] = await venue.place([p!]);
      expect(o).toMatchObject({ ok: true, status: 'matched' });
      return (await venue.fills(0)).filter((f) => f.orderId === p!.id).reduce((s, f) => s + f.size, 0) / AMOUNT_SCALE;
    };
    expect(await fak(5, 5001)).toBe(5.01); // 2.5005 -> signed 2.51 -> 5.01 shares
    expect(await fak(5, 5675)).toBe(5); // 2.8375 -> 2.84 -> 5
    await venue.close();
  });
  it('the same id seed gives the same order ids; another seed, others', () => {
    const ex = exchange();
    const a = createExchangeVenue({ exchange: ex, idSeed: 5 });
    const b = createExchangeVenue({ exchange: ex, idSeed: 5, address: '0x0000000000000000000000000000000000000b0b' });
    const c = createExchangeVenue({ exchange: ex, idSeed: 6, address: '0x0000000000000000000000000000000000000c0c' });
    const req = {
      market: '0x' as ConditionId,
      tokenId: '1' as TokenId,
      side: 'BUY' as const,
      price: 100 as Pips,
      size: 5_000_000 as Micro,
      type: 'GTC' as const,
    };
    const ida = a.prepare([req, req]).map((p) => p.id);
    expect(b.prepare([req, req]).map((p) => p.id)).toEqual(ida);
    expect(c.prepare([req, req]).map((p) => p.id)).not.toEqual(ida);
    expect(ida[0]).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('a mirror fed by the market events equals the exchange books after agents-like flow, on both tokens', async () => {
    const ex = exchange();
    const venue = createExchangeVenue({ exchange: ex, collateral: 10_000 * AMOUNT_SCALE });
    const m = (await venue.markets()).find((x) => x.active && !x.negRisk && x.tick === '0.01')!;
    const [yes, no] = [m.tokens[0].tokenId, m.tokens[1].tokenId];
    const mirrors = new BookMirrors({ verifyTop: true });
    const seen: MarketEvent[] = [];
    const sub = venue.marketEvents([yes, no]).subscribe((e) => {
      seen.push(e);
      const r = mirrors.apply(e);
      expect(r.desynced).toEqual([]);
    });
    // resting orders of a counterparty on both tokens, then crossing flow that trades through levels
    let n = 0;
    const place = (tokenId: string, side: 'BUY' | 'SELL', price: number, size: number, type: 'GTC' | 'FAK' = 'GTC') => {
      const r = ex.placeInternal({
        id: `0xmm${(++n).toString(16).padStart(62, '0')}`,
        account: COUNTERPARTY,
        tokenId,
        side,
        price,
        size,
        type,
      });
      expect(r).toMatchObject({ ok: true });
    };
    for (const p of [4000, 4100, 4200]) place(yes, 'BUY', p, 10_000_000);
    for (const p of [5000, 5100]) place(no, 'BUY', p, 7_000_000); // YES asks at 0.50, 0.49
    const mine = venue.prepare([
      { market: m.market, tokenId: yes, side: 'BUY', price: 4300 as Pips, size: 5_000_000 as Micro, type: 'GTC' },
    ]);
    await venue.place(mine);
    place(no, 'BUY', 5800, 12_000_000, 'FAK'); // sells YES down to 0.42: ours at 0.43, then 0.42
    place(yes, 'BUY', 5100, 5_000_000, 'FAK'); // takes part of the 0.49 ask
    for (const tok of [yes, no]) {
      const book = ex.engine.book(tok);
      const lv = mirrors.get(tok)!.levels(Infinity);
      expect(lv.bids).toEqual(book.bids.map((l) => [l.price, l.size]));
      expect(lv.asks).toEqual(book.asks.map((l) => [l.price, l.size]));
    }
    expect(seen.filter((e) => e.type === 'last_trade').length).toBeGreaterThanOrEqual(4);
    sub.unsubscribe();
    await venue.close();
  });

  it('fills: our maker order filled across the complement is a MAKER fill on our token, then MINED and CONFIRMED in virtual time', async () => {
    const clock = new VirtualClock(START);
    const ex = exchange(clock);
    const venue = createExchangeVenue({ exchange: ex, collateral: 10_000 * AMOUNT_SCALE });
    const m = (await venue.markets()).find((x) => x.active && !x.negRisk && x.tick === '0.01')!;
    const fills: FillEvent[] = [];
    venue.userEvents([m.market]).subscribe((e) => {
      if (e.type === 'fill') fills.push(e);
    });
    const [p] = venue.prepare([
      {
        market: m.market,
        tokenId: m.tokens[0].tokenId,
        side: 'BUY',
        price: 4500 as Pips,
        size: 10_000_000 as Micro,
        type: 'GTC',
      },
    ]);
    expect((await venue.place([p!]))[0]).toMatchObject({ ok: true, status: 'live' });
    take(ex, m.tokens[1].tokenId, 'BUY', 5500, 6_000_000);
    expect(fills).toHaveLength(1);
    expect(fills[0]).toMatchObject({
      orderId: p!.id,
      role: 'MAKER',
      side: 'BUY',
      tokenId: m.tokens[0].tokenId,
      price: 4500,
      size: 6_000_000,
      status: 'MATCHED',
    });
    clock.advance(ex.opts.minedMs);
    expect(fills.map((f) => f.status)).toEqual(['MATCHED', 'MINED']);
    clock.advance(ex.opts.confirmedMs);
    expect(fills.map((f) => f.status)).toEqual(['MATCHED', 'MINED', 'CONFIRMED']);
    expect(new Set(fills.map((f) => `${f.tradeId}|${f.orderId}`)).size).toBe(1);
    const vf = await venue.fills(0);
    expect(vf).toEqual([
      expect.objectContaining({ orderId: p!.id, role: 'MAKER', fee: 0, size: 6_000_000, status: 'CONFIRMED' }),
    ]);
    await venue.close();
  });

  it('with a latency, a request takes effect that much virtual time later, and its answer comes as much later again', async () => {
    const clock = new VirtualClock(START);
    const ex = exchange(clock);
    const venue = createExchangeVenue({ exchange: ex, collateral: 10_000 * AMOUNT_SCALE, latencyMs: 50 });
    const m = (await venue.markets()).find((x) => x.active && !x.negRisk && x.tick === '0.01')!;
    const [p] = venue.prepare([
      {
        market: m.market,
        tokenId: m.tokens[0].tokenId,
        side: 'BUY',
        price: 4500 as Pips,
        size: 10_000_000 as Micro,
        type: 'GTC',
      },
    ]);
    let answered = false;
    const out = venue.place([p!]).then((r) => ((answered = true), r));
    await Promise.resolve();
    expect(await venue.order(p!.id)).toBeUndefined();
    clock.advance(49);
    await Promise.resolve();
    expect(answered).toBe(false);
    expect(await venue.order(p!.id)).toBeUndefined();
    clock.advance(1);
    expect(await venue.order(p!.id)).toMatchObject({ status: 'LIVE' });
    await Promise.resolve();
    expect(answered).toBe(false);
    clock.advance(50);
    expect((await out)[0]).toMatchObject({ ok: true, status: 'live' });
    await venue.close();
  });

  for (const protocol of [undefined, 1, 2] as const)
    it(`the taker fee our order pays: protocol ${protocol ?? '(default: 1)'}`, async () => {
      const clock = new VirtualClock(START);
      const ex = exchange(clock);
      const meta = { ...initialMarkets(9292, START)[0]!, feeRateBps: 1000 };
      ex.addMarket(meta);
      const venue = createExchangeVenue({
        exchange: ex,
        collateral: 10_000 * AMOUNT_SCALE,
        ...(protocol !== undefined ? { feeProtocol: protocol } : {}),
      });
      const m = (await venue.markets()).find((x) => x.market === meta.conditionId)!;
      const fills: FillEvent[] = [];
      venue.userEvents([m.market]).subscribe((e) => {
        if (e.type === 'fill' && e.status === 'MATCHED') fills.push(e);
      });
      // a resting YES ask at 0.55 (a BUY of NO at 0.45), taken by our FAK BUY of 10 YES
      const r = ex.placeInternal({
        id: `0xcp${(++cpSeq).toString(16).padStart(62, '0')}`,
        account: COUNTERPARTY,
        tokenId: m.tokens[1].tokenId,
        side: 'BUY',
        price: 4500,
        size: 10_000_000,
        type: 'GTC',
      });
      expect(r.ok).toBe(true);
      const [p] = venue.prepare([
        {
          market: m.market,
          tokenId: m.tokens[0].tokenId,
          side: 'BUY',
          price: 5500 as Pips,
          size: 10_000_000 as Micro,
          type: 'FAK',
        },
      ]);
      expect((await venue.place([p!]))[0]).toMatchObject({ ok: true });
      expect(fills).toHaveLength(1);
      const want = protocol === 2 ? curveFee(10_000_000, 5500, 1000) : v1Fee(10_000_000, 5500, 1000);
      expect(fills[0]).toMatchObject({ role: 'TAKER', price: 5500, size: 10_000_000, fee: want });
      expect(curveFee(10_000_000, 5500, 1000)).not.toBe(v1Fee(10_000_000, 5500, 1000));
      await venue.close();
    });
});
