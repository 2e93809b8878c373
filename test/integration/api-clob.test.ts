/**
 * The CLOB client against the real paper exchange on a loopback port: every endpoint, both auth
 * forms (L2 HMAC and Bearer), both envelopes, cursor pagination, typed errors, and an ambiguous
 * POST resolved by id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import { z } from 'zod';
import { AuthError, NotFoundError, OrderRejectedError, ValidationError } from '../../src/core/errors.ts';
import type { TickSize } from '../../src/core/units.ts';
import { createTransport, type HttpTransport, type TransportOptions } from '../../src/api/http/transport.ts';
import { ClobClient, END_CURSOR } from '../../src/api/clob.ts';
import { createApiKey, createOrDeriveApiKey, deriveApiKey } from '../../src/api/auth.ts';
import { clobUser, signV1Order as sign } from './support/clob-user.ts';
import { no, startVenue, yes, type TestVenue } from './support/setup.ts';

let v: TestVenue;
let base: string;
const open: HttpTransport[] = [];
/** A funded user with an API key, on a transport of the given auth form. */
const user = (authMode: 'l2' | 'bearer' = 'l2', extra: Partial<TransportOptions> = {}) =>
  clobUser(open, { urls: { clob: v.clob, data: `${base}/data`, content: `${base}/content` }, authMode, ...extra });

beforeAll(async () => {
  v = await startVenue({ exchange: { protocol: 1 } }); // its orders are V1-signed (signV1Order)
  base = v.clob.replace(/\/clob$/, '');
});
afterAll(async () => {
  for (const t of open) await t.close();
  await v?.close();
});

describe('public market data', () => {
  it('serves time, health, every market list, one market, and metadata of a token', async () => {
    const t = createTransport({ urls: { clob: v.clob } });
    open.push(t);
    const clob = new ClobClient(t);
    expect(await clob.ok()).toBe(true);
    expect(Math.abs((await clob.time()) - Date.now() / 1000)).toBeLessThan(5);
    const all = [];
    for await (const m of clob.marketsAll({ limit: 7 })) all.push(m);
    expect(all.length).toBe(v.markets.length);
    expect(new Set(all.map((m) => m.conditionId)).size).toBe(all.length);
    const page = await clob.markets(undefined, { limit: 5 });
    expect(page.data).toHaveLength(5);
    expect(page.nextCursor).not.toBe(END_CURSOR);
    expect((await clob.samplingMarkets()).data.every((m) => m.active)).toBe(true);
    expect((await clob.simplifiedMarkets()).data[0]).toMatchObject({
      conditionId: expect.any(String),
      tokens: expect.any(Array),
    });
    expect((await clob.samplingSimplifiedMarkets()).data.every((m) => m.active)).toBe(true);
    const m = await clob.market(v.m1.condition_id);
    expect(m).toMatchObject({
      conditionId: v.m1.condition_id,
      tickSize: '0.01',
      negRisk: false,
      minOrderSize: 5_000_000,
    });
    expect(m.tokens.map((x) => x.tokenId)).toEqual([yes(v.m1), no(v.m1)]);
    expect(await clob.marketByQuery(v.m1.condition_id)).toEqual(m);
    expect(await clob.tickSize(yes(v.m1))).toBe('0.01');
    expect(await clob.negRisk(yes(v.negRisk))).toBe(true);
    expect(await clob.negRisk(yes(v.m1))).toBe(false);
    expect(typeof (await clob.feeRate(yes(v.m1)))).toBe('number');
    await expect(clob.market('0x' + 'ab'.repeat(32))).rejects.toBeInstanceOf(NotFoundError);
    await expect(clob.book('123456789')).rejects.toBeInstanceOf(NotFoundError);
    await expect(clob.book('not-a-token')).rejects.toBeInstanceOf(ValidationError);
  });

  it('serves books, mids, prices, spreads and last trades (single and batch) in pips, best level first', async () => {
    const a = await user();
    const tok = yes(v.m1);
    await a.clob.postOrder(sign(a.wallet, tok, 'BUY', '0.40', '10'));
    await a.clob.postOrder(sign(a.wallet, tok, 'BUY', '0.42', '10'));
    await v.admin('/balances', { address: a.wallet.address, tokens: { [tok]: '100' } });
    await a.clob.postOrder(sign(a.wallet, tok, 'SELL', '0.47', '10'));
    await a.clob.postOrder(sign(a.wallet, tok, 'SELL', '0.45', '10'));
    const clob = a.clob;
    const book = await clob.book(tok);
    expect(book.bids.slice(0, 2)).toEqual([
      { price: 4200, size: 10_000_000 },
      { price: 4000, size: 10_000_000 },
    ]);
    expect(book.asks.slice(0, 2)).toEqual([
      { price: 4500, size: 10_000_000 },
      { price: 4700, size: 10_000_000 },
    ]);
    expect(book).toMatchObject({
      assetId: tok,
      market: v.m1.condition_id,
      tickSize: '0.01',
      minOrderSize: 5_000_000,
      negRisk: false,
    });
    expect(Math.abs(book.timestamp - Date.now())).toBeLessThan(5000);
    const books = await clob.books([tok, no(v.m1)]);
    expect(books.map((b) => b.assetId)).toEqual([tok, no(v.m1)]);
    expect(books[1]!.bids[0]!.price).toBe(10_000 - 4500); // the complement view
    const viaGet = await clob.books([tok, no(v.m1)], { via: 'GET' });
    expect(viaGet.map((b) => [b.assetId, b.bids, b.asks])).toEqual(books.map((b) => [b.assetId, b.bids, b.asks]));
    expect(await clob.midpoint(tok)).toBe(4350);
    expect((await clob.midpoints([tok])).get(tok as never)).toBe(4350);
    expect(await clob.price(tok, 'BUY')).toBe(4200);
    expect(await clob.price(tok, 'SELL')).toBe(4500);
    expect((await clob.prices([{ tokenId: tok }])).get(tok as never)).toEqual({ BUY: 4200, SELL: 4500 });
    expect(await clob.spread(tok)).toBe(300);
    expect((await clob.spreads([tok])).get(tok as never)).toBe(300);
    // no trade yet: the venue's sentinel on the single read (side ''), left out of the batch (findings-3 F8)
    expect(await clob.lastTradePrice(tok)).toEqual({ price: 5000, side: '' });
    expect(await clob.lastTradesPrices([tok])).toEqual([]);
    await clob.cancelAll();
  });
});

describe('auth', () => {
  it('creates, derives, reads, lists and deletes API keys (L1 and L2)', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const t = createTransport({ urls: { clob: v.clob }, signer: wallet });
    open.push(t);
    const created = await createApiKey(t, { nonce: 0 });
    await expect(createApiKey(t, { nonce: 0 })).rejects.toBeInstanceOf(ValidationError);
    expect(await deriveApiKey(t, { nonce: 0 })).toEqual(created);
    expect(await createOrDeriveApiKey(t, { nonce: 0 })).toEqual(created); // falls back to derive
    const clob = new ClobClient(t);
    expect(await clob.deriveApiKey(0)).toEqual(created);
    const second = await clob.createApiKey(1);
    t.setCredentials(created);
    expect(await clob.getApiKey()).toMatchObject({ apiKey: created.apiKey, address: wallet.address.toLowerCase() });
    expect((await clob.apiKeys()).sort()).toEqual([created.apiKey, second.apiKey].sort());
    t.setCredentials(second);
    await clob.deleteApiKey();
    await expect(clob.getApiKey()).rejects.toBeInstanceOf(AuthError);
    t.setCredentials(created);
    expect(await clob.apiKeys()).toEqual([created.apiKey]);
  });

  it('works with Bearer and with L2; a bad credential is an AuthError without the secret in it', async () => {
    const l2 = await user('l2');
    const bearer = await user('bearer');
    expect((await l2.clob.balances()).collateral.balance).toBeGreaterThan(0);
    expect((await bearer.clob.balances()).collateral.balance).toBeGreaterThan(0);
    const placed = await bearer.clob.postOrder(sign(bearer.wallet, yes(v.m1), 'BUY', '0.10', '5'));
    expect(placed.status).toBe('live');
    expect((await bearer.clob.cancelOrder(placed.orderId)).canceled).toEqual([placed.orderId]);
    const secret = Buffer.alloc(32, 9).toString('base64');
    const bad = createTransport({
      urls: { clob: v.clob },
      signer: l2.wallet,
      credentials: { apiKey: l2.t.apiKey!, secret, passphrase: 'nope-nope' },
    });
    open.push(bad);
    const e = await new ClobClient(bad).balances().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthError);
    expect((e as Error).message).not.toContain(secret);
    const badBearer = createTransport({
      urls: { clob: v.clob },
      authMode: 'bearer',
      credentials: { apiKey: 'not-a-key-at-all', secret, passphrase: 'x' },
    });
    open.push(badBearer);
    const be = await new ClobClient(badBearer).openOrders().catch((x: unknown) => x);
    expect(be).toBeInstanceOf(AuthError);
    expect((be as Error).message).not.toContain('not-a-key-at-all');
  });
});

describe('orders', () => {
  it('posts, reads, paginates and cancels orders; refusals carry the venue code', async () => {
    const { wallet, clob } = await user();
    const tok = yes(v.m1);
    const o = sign(wallet, tok, 'BUY', '0.30', '10');
    const r = await clob.postOrder(o, { postOnly: true });
    expect(r).toMatchObject({ orderId: o.id, status: 'live', makingAmount: 0, takingAmount: 0, resolved: false });
    const got = await clob.getOrder(o.id);
    expect(got).toMatchObject({
      id: o.id,
      status: 'live',
      side: 'BUY',
      price: 3000,
      originalSize: 10_000_000,
      sizeMatched: 0,
      assetId: tok,
      market: v.m1.condition_id,
      orderType: 'GTC',
    });
    expect(await clob.getOrderByQuery(o.id)).toEqual(got);
    expect(await clob.resolveOrder(o.id)).toEqual(got);
    expect(await clob.resolveOrder('0x' + '12'.repeat(32))).toBeUndefined();
    await expect(clob.getOrder('0x' + '12'.repeat(32))).rejects.toBeInstanceOf(NotFoundError);

    const refused = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as OrderRejectedError;
    const small = await refused(clob.postOrder(sign(wallet, tok, 'BUY', '0.30', '1')));
    expect(small).toBeInstanceOf(OrderRejectedError);
    expect(small.code).toBe('INVALID_ORDER_MIN_SIZE');
    expect((await refused(clob.postOrder(sign(wallet, tok, 'BUY', '0.305', '10', { tick: '0.001' })))).code).toBe(
      'INVALID_ORDER_MIN_TICK_SIZE',
    );
    expect((await refused(clob.postOrder(o))).code).toBe('INVALID_ORDER_DUPLICATED'); // no ambiguity: a plain refusal
    expect(
      (await refused(clob.postOrder(sign(wallet, tok, 'BUY', '0.30', '10'), { orderType: 'FOK', postOnly: true })))
        .constructor,
    ).toBe(ValidationError);
    expect((await refused(clob.postOrder(sign(wallet, tok, 'BUY', '0.30', '10', { negRisk: true })))).code).toBe(
      'INVALID_SIGNATURE',
    );

    // a batch: one bad entry does not sink the others, and never throws
    const batch = Array.from({ length: 15 }, (_, i) => ({
      order: sign(wallet, tok, 'BUY', '0.05', i === 3 ? '1' : '5'),
    }));
    const res = await clob.postOrders(batch);
    expect(res).toHaveLength(15);
    expect(res.filter((x) => x.ok)).toHaveLength(14);
    expect(res[3]).toMatchObject({ ok: false, code: 'INVALID_ORDER_MIN_SIZE', orderId: batch[3]!.order.id });
    await expect(clob.postOrders([...batch, batch[0]!])).rejects.toBeInstanceOf(ValidationError);
    await expect(clob.postOrders([])).rejects.toBeInstanceOf(ValidationError);

    // cursor pagination over many orders
    for (let k = 0; k < 3; k++)
      await clob.postOrders(Array.from({ length: 15 }, () => ({ order: sign(wallet, tok, 'BUY', '0.02', '5') })));
    const ids: string[] = [];
    for await (const x of clob.openOrdersAll({ limit: 7 })) ids.push(x.id);
    expect(ids.length).toBe(1 + 14 + 45);
    expect(new Set(ids).size).toBe(ids.length);
    const page = await clob.orders({ limit: 10 });
    expect(page.data).toHaveLength(10);
    expect((await clob.openOrders({ id: o.id })).data.map((x) => x.id)).toEqual([o.id]);

    // cancels
    expect(await clob.cancelOrder(o.id)).toEqual({ canceled: [o.id], notCanceled: {} });
    // an id that is no live order of ours: not an error (the public service's answer), its reason given
    expect(await clob.cancelOrder('0x' + '34'.repeat(32))).toEqual({
      canceled: [],
      notCanceled: { ['0x' + '34'.repeat(32)]: "order can't be found - already canceled or matched" },
    });
    const two = ids.slice(1, 3);
    const c2 = await clob.cancelOrders([...two, '0x' + '56'.repeat(32)]);
    expect(c2.canceled).toEqual(two);
    expect(Object.keys(c2.notCanceled)).toEqual(['0x' + '56'.repeat(32)]);
    const other = await clob.postOrder(
      sign(wallet, yes(v.negRisk), 'BUY', '0.10', '5', {
        negRisk: true,
        tick: String(v.negRisk.minimum_tick_size) as TickSize,
      }),
    );
    const cm = await clob.cancelMarketOrders({ market: v.negRisk.condition_id });
    expect(cm.canceled).toEqual([other.orderId]);
    const ca = await clob.cancelAll();
    expect(ca.canceled.length).toBe(ids.length - 3);
    expect((await clob.openOrders()).data).toEqual([]);
  });

  it('trades, balances, positions, allowance and heartbeats', async () => {
    const maker = await user();
    const taker = await user('bearer');
    // a market of its own: no other test's orders rest there
    const m2 = v.markets.find(
      (m) => !m.neg_risk && m.minimum_tick_size === 0.01 && m.condition_id !== v.m1.condition_id,
    )!;
    const tok = yes(m2);
    await v.admin('/balances', { address: taker.wallet.address, tokens: { [tok]: '50' } });
    const bid = await maker.clob.postOrder(sign(maker.wallet, tok, 'BUY', '0.55', '10'));
    const hit = await taker.clob.postOrder(sign(taker.wallet, tok, 'SELL', '0.55', '10'), { orderType: 'FAK' });
    expect(hit).toMatchObject({ status: 'matched', makingAmount: 10_000_000, takingAmount: 5_500_000 });
    expect(hit.tradeIds).toHaveLength(1);
    const trades = [];
    for await (const t of maker.clob.tradesAll({ limit: 1 })) trades.push(t);
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ traderSide: 'MAKER', price: 5500, size: 10_000_000, side: 'SELL', assetId: tok });
    expect(trades[0]!.makerOrders[0]).toMatchObject({ orderId: bid.orderId, matchedAmount: 10_000_000, price: 5500 });
    expect((await taker.clob.trades()).data[0]).toMatchObject({ traderSide: 'TAKER', id: hit.tradeIds[0] });
    expect((await taker.clob.tradeHistory({ market: m2.condition_id })).data).toHaveLength(1);
    const bal = await maker.clob.balances();
    expect(bal.tokens.find((x) => x.assetId === tok)).toMatchObject({ balance: 10_000_000 });
    expect(bal.collateral.balance).toBe(bal.collateral.available + bal.collateral.reserved);
    const pos = await maker.clob.positions();
    expect(pos.find((p) => p.assetId === tok)).toMatchObject({ size: 10_000_000, cost: 5_500_000, realizedPnl: 0 });
    const ba = await maker.clob.balanceAllowance({ assetType: 'COLLATERAL' });
    expect(ba.balance).toBe(bal.collateral.balance);
    expect((await maker.clob.balanceAllowance({ assetType: 'CONDITIONAL', tokenId: tok })).balance).toBe(10_000_000);
    await maker.clob.updateBalanceAllowance({ assetType: 'COLLATERAL' });
    const hb1 = await maker.clob.heartbeat(null);
    expect(typeof (await maker.clob.heartbeat(hb1))).toBe('string');
  });
});

describe('envelopes', () => {
  it('unwraps the success envelope of the data API (a record and a page) through a raw RequestSpec', async () => {
    const { t } = await user();
    const health = await t.request(
      { api: 'data', method: 'GET', path: '/health', auth: 'none', idempotent: true },
      z.object({ status: z.literal('ok') }),
    );
    expect(health).toEqual({ status: 'ok' });
    const page = await t.request(
      { api: 'data', method: 'GET', path: '/markets', query: { limit: 3 }, auth: 'none', idempotent: true },
      z.object({ data: z.array(z.object({ condition_id: z.string() })), next_cursor: z.string() }),
    );
    expect(page.data).toHaveLength(3);
    expect(page.next_cursor).not.toBe(END_CURSOR);
    const article = await t.request(
      { api: 'content', method: 'GET', path: '/articles', query: { limit: 1 }, auth: 'none', idempotent: true },
      z.object({ data: z.array(z.object({ id: z.string() })) }),
    );
    expect(article.data).toHaveLength(1);
    await expect(
      t.request({ api: 'data', method: 'GET', path: '/nope', auth: 'none', idempotent: true }, z.unknown()),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('ambiguous POST', () => {
  it('a timed-out order is resent byte for byte; the duplicate refusal is resolved by id: placed exactly once', async () => {
    const { wallet, t, clob } = await user('l2', {
      timeoutMs: 500,
      retry: { baseMs: 1500, capMs: 5000, random: () => 0.999 },
    });
    const o = sign(wallet, yes(v.m1), 'BUY', '0.21', '5');
    // the first copy is held 2 s by the server (and placed then); the resend, after the rule has
    // expired, is answered at once with INVALID_ORDER_DUPLICATED
    v.running.faults.set([{ route: 'POST /clob/order', latencyMs: 2000, untilMs: Date.now() + 1500 }]);
    const r = await clob.postOrder(o);
    v.running.faults.clear();
    expect(r).toMatchObject({ orderId: o.id, status: 'live', resolved: true });
    expect(r.order?.id).toBe(o.id);
    const s = t.stats();
    expect(s.timeouts).toBe(1);
    expect(s.statuses[400]).toBe(1);
    const live = [];
    for await (const x of clob.openOrdersAll()) live.push(x.id);
    expect(live).toEqual([o.id]);
    await clob.cancelAll();
  });
});
