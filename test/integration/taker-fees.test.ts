/**
 * Taker fees booked as the venue charges them (trial 8 F8): the bot's live venue takes with a FAK
 * BUY on a market with a fee rate, against the real paper exchange on loopback, under protocol 2
 * (the exchange's default: the V2 curve `size × rate × p × (1 − p)`, floored to 0.00001) and
 * protocol 1 (`size × rate × min(p, 1 − p)`, floored to the micro). The taker meets three resting
 * orders on two levels, so the fee is the sum of three matches, each floored apart. The fee the
 * store books from the user stream's fill (store/fills.ts `fillFromEvent`, as the executor does)
 * and from the venue's trade history (`Venue.fills`: the restart backfill and the audit) equals the
 * fee the exchange charged: its Data API trade record and the taker's collateral.
 */
import { firstValueFrom, filter } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FillEvent } from '../../src/core/events.ts';
import type { ConditionId, TokenId } from '../../src/core/ids.ts';
import { parseAmount, type Micro, type Pips } from '../../src/core/units.ts';
import { initialMarkets, type MarketMeta } from '../../src/exchange/markets.ts';
import { fillFromEvent, openStore } from '../../src/store/store.ts';
import type { LiveVenue } from '../../src/venues/live/live-venue.ts';
import { eventually, getJson, startVenue, type TestVenue, partsVenueFor } from './support/setup.ts';

/** A fee rate whose V1 fee per match leaves a remainder (so flooring each match apart shows). */
const FEE_BPS = 333;

/** Collateral of an account (available + reserved), micro, from the exchange's engine. */
function collateralOf(v: TestVenue, addr: string): number {
  const b = v.running.exchange.engine.balance(addr.toLowerCase());
  return b.collateral + b.collateralReserved;
}

for (const protocol of [2, 1] as const) {
  describe(`protocol ${protocol}: the taker fee the bot books is the one the exchange charged`, () => {
    let v: TestVenue;
    let venue: LiveVenue;
    let address: string;
    let market: MarketMeta;
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-taker-fees-'));

    beforeAll(async () => {
      v = await startVenue({ exchange: { protocol } });
      market = { ...initialMarkets(9090 + protocol, Date.now())[0]!, feeRateBps: FEE_BPS, minSizeMicro: 1_000_000 };
      expect(market.tick).toBe('0.01');
      v.running.exchange.addMarket(market);
      const made = await partsVenueFor(v, { transport: { budgets: { enabled: false } }, protocol, presign: false });
      venue = made.venue;
      address = made.wallet.address.toLowerCase();
    });
    afterAll(async () => {
      await venue?.close();
      await v?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('a FAK BUY sweeping three resting orders: stream fill, backfill and store equal the venue’s fee', async () => {
      const [yesTok, noTok] = market.tokens;
      const cond = market.conditionId as ConditionId;
      // makers: BUY NO at 0.45 (7.77 and 3.33) and at 0.44 (5.55): YES asks at 0.55 and 0.56
      const maker = await v.trader();
      for (const [price, size] of [
        ['0.45', '7.77'],
        ['0.45', '3.33'],
        ['0.44', '5.55'],
      ] as const) {
        const r = await maker.place(noTok, 'BUY', price, size, { feeRateBps: FEE_BPS });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
      }
      const fill$ = venue
        .userEvents([cond])
        .pipe(filter((e): e is FillEvent => e.type === 'fill' && e.role === 'TAKER'));
      const got = firstValueFrom(fill$);
      // as the bot: the market channel of the tokens (the venue learns the market's fee rate, signed in V1 orders)
      const book = venue.marketEvents([yesTok as TokenId, noTok as TokenId]).subscribe();
      // let the channels subscribe and the fee rate arrive before the trade
      await new Promise((r) => setTimeout(r, 500));
      const before = collateralOf(v, address);
      const [p] = venue.prepare([
        {
          market: cond,
          tokenId: yesTok as TokenId,
          side: 'BUY',
          price: 5600 as Pips,
          size: 20_000_000 as Micro,
          type: 'FAK',
        },
      ]);
      const [out] = await venue.place([p!]);
      expect(out, JSON.stringify(out)).toMatchObject({ ok: true });
      const e = await got;
      book.unsubscribe();
      expect(e.size).toBe(16_650_000);

      // the venue's charge: its trade record (Data API) and the taker's collateral
      const page = await getJson(`${v.running.urls.data_url}/users/${address}/trades?role=TAKER`);
      const rows = page.data as Array<{ fee: string; role: string; notional: string }>;
      const row = rows.find((r) => r.role === 'TAKER');
      expect(row).toBeDefined();
      const charged = parseAmount(row!.fee);
      expect(charged).toBeGreaterThan(0);
      await eventually(() => before - collateralOf(v, address) === parseAmount(row!.notional) + charged);
      expect(before - collateralOf(v, address)).toBe(parseAmount(row!.notional) + charged);
      // the expected figure, by hand: each match floored apart
      // V2: 7.77 × r × 0.55 × 0.45, 3.33 × r × 0.55 × 0.45, 5.55 × r × 0.56 × 0.44, each floored to 10 micro
      // V1: 7.77 × r × 0.45, 3.33 × r × 0.45, 5.55 × r × 0.44, each floored to the micro
      expect(charged).toBe(protocol === 2 ? 64_030 + 27_440 + 45_530 : 116_433 + 49_900 + 81_318);

      // the user stream's fill as the executor books it, into a real store
      const store = openStore(join(dir, `p${protocol}.db`));
      try {
        expect(fillFromEvent(e).fee).toBe(charged);
        store.applyFill(fillFromEvent(e));
        expect(store.fills().find((f) => f.role === 'TAKER')?.fee).toBe(charged);
      } finally {
        store.close();
      }
      // the venue's trade history (restart backfill, audit)
      const back = (await venue.fills(0)).find((f) => f.role === 'TAKER');
      expect(back?.fee).toBe(charged);
    });

    it("the world's own takers (flow agents: placeInternal) pay this protocol's fee too (trial 19 F3)", async () => {
      const [yesTok, noTok] = market.tokens;
      const maker = await v.trader();
      expect((await maker.place(noTok, 'BUY', '0.30', '7.77', { feeRateBps: FEE_BPS })).status).toBe(200); // YES ask 0.70
      const agent = '0x00000000000000000000000000000000000a9e47';
      v.running.exchange.fund(agent, 100_000_000);
      const r = v.running.exchange.placeInternal({
        id: `agent-taker-${protocol}`,
        account: agent,
        tokenId: yesTok,
        side: 'BUY',
        price: 7000,
        size: 7_770_000,
        type: 'FAK',
      });
      expect(r.ok).toBe(true);
      const t = v.running.exchange.allTrades().at(-1)!.trade;
      expect(t.takerOrderId).toBe(`agent-taker-${protocol}`);
      // V2: 7.77 × r × 0.7 × 0.3 floored to 10 micro; V1: 7.77 × r × 0.3 floored to the micro
      expect(t.fee).toBe(protocol === 2 ? 54_330 : 77_622);
    });
  });
}
