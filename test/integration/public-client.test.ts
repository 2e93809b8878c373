/**
 * Conformance: the public TypeScript client of the best-known venue (@polymarket/clob-client, used
 * unchanged: its own L1 key creation, L2 headers and EIP-712 order building) works against the
 * paper exchange.
 */
import { ClobClient, OrderType, Side } from '@polymarket/clob-client';
import { createWalletClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVenue, yes, no, type TestVenue } from './support/setup.ts';

let v: TestVenue;
const wallet = () =>
  createWalletClient({
    account: privateKeyToAccount(generatePrivateKey()),
    chain: polygon,
    transport: http('http://127.0.0.1:9'),
  });

async function client(): Promise<ClobClient> {
  const w = wallet();
  const l1 = new ClobClient(v.clob, 137, w as any);
  const creds = await l1.createOrDeriveApiKey();
  expect(creds.key).toMatch(/^[0-9a-f-]{36}$/);
  return new ClobClient(v.clob, 137, w as any, creds);
}

beforeAll(async () => {
  // @polymarket/clob-client signs V1 orders: the exchange speaks V1 (`--protocol 1`)
  v = await startVenue({ exchange: { protocol: 1 }, http: { rateLimits: { enabled: true, scale: 10, queueMs: 500 } } });
});
afterAll(async () => v?.close());

describe('@polymarket/clob-client against the paper exchange', () => {
  it('heartbeats with throwOnError, the closed-only status, allowances by contract address', async () => {
    const w = wallet();
    const creds = await new ClobClient(v.clob, 137, w as any).createOrDeriveApiKey();
    const strict = new ClobClient(
      v.clob,
      137,
      w as any,
      creds,
      undefined,
      undefined,
      undefined,
      false,
      undefined,
      undefined,
      false,
      undefined,
      true,
    );
    const hb = await strict.postHeartbeat(null);
    expect(hb.heartbeat_id).toEqual(expect.any(String));
    expect(hb).not.toHaveProperty('error');
    expect(await strict.getClosedOnlyMode()).toEqual({ closed_only: false });
    expect(await strict.getNotifications()).toEqual([]);
    await strict.dropNotifications({ ids: ['1', '2'] });
    // cancel of an id that is no live order of ours: 200, not an error, with the venue's reason
    const gone = `0x${'cd'.repeat(32)}`;
    expect(await strict.cancelOrder({ orderID: gone })).toEqual({
      canceled: [],
      not_canceled: { [gone]: "order can't be found - already canceled or matched" },
    });
    const ba = (await strict.getBalanceAllowance({ asset_type: 'COLLATERAL' as any })) as any;
    for (const contract of [
      '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E',
      '0xC5d563A36AE78145C45a50134d48A1215220f80a',
      '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
    ])
      expect(BigInt(ba.allowances[contract])).toBeGreaterThan(0n);
  });

  it('reads markets, books and server time', async () => {
    const c = new ClobClient(v.clob, 137);
    const t = await c.getServerTime();
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(5);
    const page = await c.getMarkets();
    expect(page.data.length).toBeGreaterThan(0);
    const book = await c.getOrderBook(yes(v.m1));
    expect(book.asset_id).toBe(yes(v.m1));
    expect(await c.getTickSize(yes(v.m1))).toBe('0.01');
    expect(await c.getNegRisk(yes(v.negRisk))).toBe(true);
  });

  it('creates keys, places, matches, lists and cancels orders', async () => {
    const maker = await client();
    const taker = await client();
    const m = v.m1;
    const resting = await maker.createAndPostOrder(
      { tokenID: yes(m), price: 0.45, size: 20, side: Side.BUY },
      { tickSize: '0.01', negRisk: false },
    );
    expect(resting).toMatchObject({ success: true, status: 'live' });
    const open = await maker.getOpenOrders();
    expect(open.map((o: any) => o.id)).toContain(resting.orderID);
    const one = await maker.getOrder(resting.orderID);
    expect(one).toMatchObject({ id: resting.orderID, status: 'LIVE', price: '0.45', original_size: '20' });

    // the taker buys NO at 0.55 against it: a complementary (mint) match, built by the client itself
    const hit = await taker.createAndPostOrder(
      { tokenID: no(m), price: 0.55, size: 5, side: Side.BUY },
      undefined,
      OrderType.GTC,
    );
    expect(hit).toMatchObject({ success: true, status: 'matched' });
    const trades = await taker.getTrades();
    expect(trades.length).toBe(1);
    expect(trades[0]).toMatchObject({ side: 'BUY', price: '0.55', size: '5', asset_id: no(m) });
    const makerTrades = await maker.getTrades();
    expect(makerTrades[0]!.maker_orders[0]).toMatchObject({ order_id: resting.orderID, matched_amount: '5' });

    // a market order (FOK, amount in collateral) priced by the client from the book
    const sell = await maker.createAndPostOrder({ tokenID: no(m), price: 0.5, size: 10, side: Side.BUY });
    expect(sell.status).toBe('live');
    const mkt = await taker.createAndPostMarketOrder(
      { tokenID: yes(m), amount: 3, side: Side.BUY, orderType: OrderType.FOK },
      undefined,
      OrderType.FOK,
    );
    expect(mkt, JSON.stringify(mkt)).toMatchObject({ success: true, status: 'matched' });

    const hb = await maker.postHeartbeat(null);
    expect(typeof hb.heartbeat_id).toBe('string');

    const cancel = await maker.cancelOrder({ orderID: resting.orderID });
    expect(cancel.canceled).toEqual([resting.orderID]);
    const all = await maker.cancelAll();
    expect(all.canceled).toEqual([sell.orderID]);
    expect(await maker.getOpenOrders()).toEqual([]);

    const bal = await maker.getBalanceAllowance({ asset_type: 'COLLATERAL' as any });
    expect(Number(bal.balance)).toBeGreaterThan(0);
  });

  it('posts a batch and sees a duplicate refused', async () => {
    const c = await client();
    const m = v.m1;
    const orders = await Promise.all(
      [0.1, 0.11, 0.12].map((price) =>
        c.createOrder({ tokenID: yes(m), price, size: 10, side: Side.BUY }, { tickSize: '0.01', negRisk: false }),
      ),
    );
    const res = await c.postOrders(orders.map((order) => ({ order, orderType: OrderType.GTC })));
    expect(res.map((r: any) => r.success)).toEqual([true, true, true]);
    const dup = await c.postOrder(orders[0]!, OrderType.GTC);
    expect(JSON.stringify(dup)).toContain('INVALID_ORDER_DUPLICATED');
    const cancelled = await c.cancelOrders(res.map((r: any) => r.orderID));
    expect(cancelled.canceled.length).toBe(3);
  });

  it('manages read-only API keys with throwOnError, and reads live activity', async () => {
    const w = wallet();
    const creds = await new ClobClient(v.clob, 137, w as any).createOrDeriveApiKey();
    const strict = new ClobClient(
      v.clob,
      137,
      w as any,
      creds,
      undefined,
      undefined,
      undefined,
      false,
      undefined,
      undefined,
      false,
      undefined,
      true,
    );
    const { apiKey } = await strict.createReadonlyApiKey();
    expect(apiKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(await strict.getReadonlyApiKeys()).toEqual([apiKey]);
    const address = w.account.address;
    expect(await strict.validateReadonlyApiKey(address, apiKey)).toEqual({ valid: true });
    // the read-only key reads the account as a Bearer token
    const orders = await fetch(`${v.clob}/data/orders`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(orders.status).toBe(200);
    expect(await strict.deleteReadonlyApiKey(apiKey)).toBe(true);
    expect(await strict.getReadonlyApiKeys()).toEqual([]);
    expect(await strict.validateReadonlyApiKey(address, apiKey)).toEqual({ valid: false });

    // live activity of a market: a trade between two clients shows, newest first
    const m = v.markets.find((x) => !x.neg_risk && x.minimum_tick_size === 0.01 && x !== v.m1) ?? v.m1;
    const maker = await client();
    const taker = await client();
    await maker.createAndPostOrder({ tokenID: yes(m), price: 0.3, size: 10, side: Side.BUY }, { tickSize: '0.01' });
    const hit = await taker.createAndPostOrder(
      { tokenID: no(m), price: 0.7, size: 10, side: Side.BUY },
      { tickSize: '0.01' },
    );
    expect(hit).toMatchObject({ success: true, status: 'matched' });
    const events = await new ClobClient(v.clob, 137).getMarketTradesEvents(m.condition_id);
    expect(events[0]).toMatchObject({
      event_type: 'trade',
      market: { condition_id: m.condition_id, asset_id: no(m) },
      side: 'BUY',
      size: '10',
      price: '0.7',
      outcome: 'No',
      outcome_index: 1,
    });
    expect(events[0]!.user.address).toMatch(/^0x[0-9a-f]{40}$/);
  });
});
