/**
 * Conformance: the public V2 TypeScript client (@polymarket/clob-client-v2, used unchanged: its own
 * L1 key creation, L2 headers and response parsing, with throwOnError) against the paper exchange
 * started with `protocol: 2`: /version, market info, markets by token, price history, pre-migration
 * orders, live activity, builder keys, builder fees and trades, heartbeats. A second exchange at the
 * default protocol answers version 1. Orders are placed with V1 signatures (test/integration/support
 * /trader.ts): the V2 client's own order round-trip waits for V2 order verification (issue 17).
 */
import { ClobClient, PriceHistoryInterval } from '@polymarket/clob-client-v2';
import { createWalletClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Trader } from './support/trader.ts';
import { no, startVenue, yes, type TestVenue } from './support/setup.ts';

let v: TestVenue;
let v1: TestVenue;

const walletOf = (pk: `0x${string}`) =>
  createWalletClient({ account: privateKeyToAccount(pk), chain: polygon, transport: http('http://127.0.0.1:9') });

/** A V2 client with throwOnError, and a V1-signing trader of the same wallet and API key. */
async function pair(venue: TestVenue): Promise<{ c: ClobClient; t: Trader }> {
  const pk = generatePrivateKey();
  const signer = walletOf(pk);
  const creds = await new ClobClient({ host: venue.clob, chain: 137, signer }).createOrDeriveApiKey();
  expect(creds.key).toMatch(/^[0-9a-f-]{36}$/);
  const t = new Trader(venue.clob, pk);
  t.protocol = venue.running.exchange.protocol;
  t.creds = { apiKey: creds.key, secret: creds.secret, passphrase: creds.passphrase };
  return { c: new ClobClient({ host: venue.clob, chain: 137, signer, creds, throwOnError: true }), t };
}

const CODE = `0x${'ab'.repeat(32)}`;

beforeAll(async () => {
  [v, v1] = await Promise.all([
    startVenue({ exchange: { protocol: 2 }, http: { rateLimits: { enabled: true, scale: 10, queueMs: 500 } } }),
    startVenue({ exchange: { protocol: 1 } }),
  ]);
});
afterAll(async () => {
  await Promise.all([v?.close(), v1?.close()]);
});

describe('@polymarket/clob-client-v2 against the paper exchange', () => {
  it('reads the protocol: 2 when started with protocol 2, 1 with protocol 1', async () => {
    expect(await new ClobClient({ host: v.clob, chain: 137, throwOnError: true }).getVersion()).toBe(2);
    expect(await new ClobClient({ host: v1.clob, chain: 137, throwOnError: true }).getVersion()).toBe(1);
  });

  it('reads market info and resolves markets by token, as order building does', async () => {
    const c = new ClobClient({ host: v.clob, chain: 137, throwOnError: true });
    const m = v.m1;
    const info = await c.getClobMarketInfo(m.condition_id);
    expect(info).toMatchObject({
      c: m.condition_id,
      t: [
        { t: yes(m), o: 'Yes' },
        { t: no(m), o: 'No' },
      ],
      mts: 0.01,
      nr: false,
      mos: m.minimum_order_size,
      fd: { r: expect.any(Number), e: 1, to: true },
    });
    // the client caches tick and neg-risk from it: no /tick-size or /neg-risk round trip
    expect(await c.getTickSize(no(m))).toBe('0.01');
    expect(await c.getNegRisk(yes(m))).toBe(false);
    const nr = await c.getClobMarketInfo(v.negRisk.condition_id);
    expect(nr.nr).toBe(true);

    // a token the client has not seen: /markets-by-token, then /clob-markets (the fee exponent path)
    const fresh = new ClobClient({ host: v.clob, chain: 137, throwOnError: true });
    expect(await fresh.getFeeExponent(no(v.negRisk))).toBe(1);
    expect(await fresh.getNegRisk(no(v.negRisk))).toBe(true);
    const other = v.markets.find((x) => x.minimum_tick_size !== 0.01);
    if (other) expect(await fresh.getTickSize(yes(other))).toBe(String(other.minimum_tick_size));
  });

  it('reads price history, live activity and pre-migration orders', async () => {
    const m = v.markets.find((x) => !x.neg_risk && x.minimum_tick_size === 0.01 && x !== v.m1) ?? v.m1;
    const { c: maker, t: makerT } = await pair(v);
    const { t: takerT } = await pair(v);
    const rest = await makerT.place(yes(m), 'BUY', '0.42', '10');
    expect(rest.body).toMatchObject({ success: true, status: 'live' });
    // a V1 order signed before the migration: placed while the exchange spoke V1
    (v.running.exchange.opts as { protocol?: 1 | 2 }).protocol = 1;
    const resting = await makerT.place(yes(m), 'BUY', '0.30', '10', { protocol: 1 });
    (v.running.exchange.opts as { protocol?: 1 | 2 }).protocol = 2;
    expect((await takerT.place(no(m), 'BUY', '0.58', '10')).body).toMatchObject({ status: 'matched' });

    const hist = (await maker.getPricesHistory({
      market: yes(m),
      interval: PriceHistoryInterval.ONE_DAY,
      fidelity: 1,
    })) as unknown as { history: Array<{ t: number; p: number }> };
    expect(hist.history.at(-1)).toEqual({ t: expect.any(Number), p: 0.42 });
    const now = Math.floor(Date.now() / 1000);
    const ranged = (await maker.getPricesHistory({ market: no(m), startTs: now - 600, endTs: now + 60 })) as any;
    expect(ranged.history.at(-1).p).toBe(0.58);

    const events = await maker.getMarketTradesEvents(m.condition_id);
    expect(events[0]).toMatchObject({
      event_type: 'trade',
      market: { condition_id: m.condition_id, asset_id: no(m) },
      side: 'BUY',
      price: '0.58',
      outcome: 'No',
    });

    // every order on the book is V1-signed: on a V2 exchange they are the pre-migration orders
    const pre = await maker.getPreMigrationOrders();
    expect(pre.map((o) => o.id)).toEqual([resting.id]);
    expect(pre[0]).toMatchObject({ status: 'LIVE', price: '0.3', original_size: '10', asset_id: yes(m) });
    // on a V1 exchange nothing predates a migration
    const { c: onV1, t: onV1T } = await pair(v1);
    expect((await onV1T.place(yes(v1.m1), 'BUY', '0.2', '10')).status).toBe(200);
    expect(await onV1.getPreMigrationOrders()).toEqual([]);
    expect((await onV1.getOpenOrders()).length).toBe(1);
  });

  it('creates, lists and revokes builder keys; reads builder fees and trades', async () => {
    const { c } = await pair(v);
    const made = await c.createBuilderApiKey();
    expect(made).toEqual({
      key: expect.stringMatching(/^[0-9a-f-]{36}$/),
      secret: expect.any(String),
      passphrase: expect.any(String),
    });
    const second = await c.createBuilderApiKey();
    expect(second.key).not.toBe(made.key);
    const listed = await c.getBuilderApiKeys();
    expect(listed.map((k) => k.key)).toEqual([made.key, second.key]);
    expect(Number.isNaN(Date.parse(listed[0]!.createdAt!))).toBe(false);
    expect(listed[0]).not.toHaveProperty('revokedAt');
    await c.revokeBuilderApiKey();
    const after = await c.getBuilderApiKeys();
    expect(after.map((k) => k.key)).toEqual([made.key, second.key]);
    for (const k of after) expect(Number.isNaN(Date.parse(k.revokedAt!))).toBe(false);

    // builder fees, as order building reads them (0 bps here)
    expect(await (c as any).getBuilderTakerFeeRate(CODE)).toBe(0);
    expect((c as any).builderFeeRates[CODE]).toEqual({ maker: 0, taker: 0 });

    // builder trades: none for a code no order carried
    const none = await c.getBuilderTrades({ builder_code: `0x${'cd'.repeat(32)}` });
    expect(none).toMatchObject({ trades: [], count: 0, next_cursor: 'LTE=' });
    // an order carrying the code (a V1 order's `builder`, until V2 orders sign it) is attributed
    const m = v.negRisk;
    const { t: maker } = await pair(v);
    const { t: taker } = await pair(v);
    const { body } = maker.order(yes(m), 'BUY', '0.35', '10', {
      negRisk: true,
      tick: String(m.minimum_tick_size) as any,
    });
    expect((await maker.l2('POST', '/order', { ...body, builder: CODE })).body).toMatchObject({ status: 'live' });
    const hit = await taker.place(no(m), 'BUY', '0.65', '10', {
      negRisk: true,
      tick: String(m.minimum_tick_size) as any,
    });
    expect(hit.body).toMatchObject({ status: 'matched' });
    const page = await c.getBuilderTrades({ builder_code: CODE, market: m.condition_id });
    expect(page.count).toBe(1);
    expect(page.trades[0]).toMatchObject({
      tradeType: 'MAKER',
      builder: CODE,
      builderCode: CODE,
      market: m.condition_id,
      assetId: yes(m),
      side: 'BUY',
      size: '10',
      sizeUsdc: '3.5',
      price: '0.35',
      maker: maker.address,
      builderFee: '0',
    });
  });

  it('heartbeats with throwOnError', async () => {
    const { c } = await pair(v);
    const hb = await c.postHeartbeat();
    expect(hb.heartbeat_id).toEqual(expect.any(String));
    expect(hb).not.toHaveProperty('error');
    const again = await c.postHeartbeat(hb.heartbeat_id);
    expect(again.heartbeat_id).toEqual(expect.any(String));
  });
});
