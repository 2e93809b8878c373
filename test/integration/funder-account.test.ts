/**
 * A proxy / Safe wallet's account (signatureType 1 or 2): the orders carry maker = the funder and
 * signer = the EOA, and the funds, positions and trades are the FUNDER's (the public service's
 * convention). The live venue of such a run (createLiveVenue with `funder`) must read the funder's
 * account everywhere, against the real paper exchange on loopback: its fills (the restart
 * backfill's source), its open orders (the restart's), its balance and holdings (the position
 * audit's), although the API key (the EOA's) also reaches the EOA's own orders and trades: those
 * belong to another account (F7 in findings-5: a gnosis-safe run backfilled the EOA's fills as
 * 'external' and reported the EOA's positions as the funder's), and its cancel-all (the shutdown's, the
 * kill switch's) cancels the funder's orders only, not every account of the key.
 */
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderBuilder, toPostBody } from '../../src/api/orders.ts';
import { parseAmount } from '../../src/core/units.ts';
import type { LiveVenue } from '../../src/venues/live/live-venue.ts';
import { no, startVenue, yes, type TestVenue, liveVenueFor } from './support/setup.ts';
import type { Trader } from './support/trader.ts';

let v: TestVenue;
let eoa: Trader;
let other: Trader;
let venue: LiveVenue;
/** A funder an operator registered to the EOA (not its derived proxy wallet or Safe). */
const FUNDER = new Wallet(Wallet.createRandom().privateKey).address.toLowerCase();
/** The EOA's own orders: one filled (a taker buy), one resting. */
const eoaOrders: string[] = [];
/** The funder's orders, placed by the EOA with signatureType 2: one partly filled and resting. */
const funderOrders: string[] = [];

beforeAll(async () => {
  v = await startVenue();
  eoa = await v.trader();
  other = await v.trader();
  expect((await v.admin('/funders', { signer: eoa.address, funder: FUNDER })).status).toBe(200);
  expect((await v.admin('/balances', { address: FUNDER, collateral: '500' })).status).toBe(200);
  const Y = yes(v.m1);
  // the EOA trades for itself: takes 10 YES at 0.55 (against a bid of 0.45 for NO: its position) and rests a bid at 0.30
  expect((await other.place(no(v.m1), 'BUY', '0.45', '10')).status).toBe(200);
  const buy = await eoa.place(Y, 'BUY', '0.55', '10');
  expect(buy.body).toMatchObject({ success: true, status: 'matched' });
  eoaOrders.push(buy.id);
  const rest = await eoa.place(Y, 'BUY', '0.30', '10');
  expect(rest.body).toMatchObject({ success: true, status: 'live' });
  eoaOrders.push(rest.id);
  // the funder's order (the EOA signs, the funder is the maker): a bid at 0.40 for 20, 5 of it filled
  const b = new OrderBuilder({
    wallet: eoa.wallet.privateKey,
    chainId: 137,
    protocol: v.running.exchange.protocol,
    signatureType: 2,
    funder: FUNDER,
  });
  const o = b.buildLimit({ tokenId: Y, side: 'BUY', price: '0.40', size: '20', tick: '0.01', negRisk: false });
  const r = await eoa.l2('POST', '/order', toPostBody(o, { owner: eoa.creds!.apiKey }));
  expect(r.body).toMatchObject({ success: true, status: 'live' });
  funderOrders.push(o.id);
  expect((await other.place(no(v.m1), 'BUY', '0.60', '5')).status).toBe(200); // fills 5 of the funder's bid
  venue = await liveVenueFor(
    v,
    { wallet: eoa.wallet, credentials: eoa.creds!, signatureType: 2, funder: FUNDER, silenceMs: 0, presign: false },
    'content',
    'relayer',
  );
}, 60_000);
afterAll(async () => {
  await venue?.close();
  await v?.close();
});

describe('a proxy / Safe run reads the funder account (venue.funder)', () => {
  it('is the funder address', async () => {
    expect(venue.address).toBe(FUNDER);
    expect((await venue.identity!()).address).toBe(FUNDER);
  });

  it("backfills the funder's fills only, never the EOA's own (they are another account's, not 'external' ones)", async () => {
    const fills = await venue.fills(0);
    expect(fills.map((f) => f.orderId)).toEqual(funderOrders);
    expect(fills[0]).toMatchObject({ role: 'MAKER', side: 'BUY', size: parseAmount('5') });
    for (const id of eoaOrders) expect(fills.map((f) => f.orderId)).not.toContain(id);
  });

  it("lists the funder's open orders only, not the EOA's", async () => {
    const open = await venue.openOrders();
    expect(open.map((o) => o.id)).toEqual(funderOrders);
  });

  it("reports the funder's balance and holdings, not the EOA's", async () => {
    const h = await venue.holdings!();
    // 500 collateral, 5 × 0.40 = 2 spent, 15 × 0.40 = 6 reserved by the resting bid
    expect(h.collateral).toEqual({ available: parseAmount('492'), reserved: parseAmount('6') });
    expect(h.tokens.map((t) => [t.tokenId, t.size])).toEqual([[yes(v.m1), parseAmount('5')]]);
    expect(h.tokens[0]!.avgPrice).toBe(4000);
    expect(await venue.balance()).toEqual({ available: parseAmount('492'), reserved: parseAmount('6') });
  });

  it('the paper exchange: maker_address picks one account of the key (trades, balances, positions); another address is a 400', async () => {
    const eoaTrades = (await eoa.l2('GET', '/data/trades', undefined, `maker_address=${eoa.address}`)).body.data;
    expect(eoaTrades).toHaveLength(1);
    expect(eoaTrades[0]).toMatchObject({ taker_order_id: eoaOrders[0], maker_address: eoa.address });
    const funderTrades = (await eoa.l2('GET', '/data/trades', undefined, `maker_address=${FUNDER}`)).body.data;
    expect(funderTrades.map((t: { maker_orders: { order_id: string }[] }) => t.maker_orders[0]!.order_id)).toEqual(
      funderOrders,
    );
    // without maker_address: every account of the key
    expect((await eoa.l2('GET', '/data/trades')).body.data).toHaveLength(2);
    const bal = await eoa.l2('GET', '/balances', undefined, `maker_address=${FUNDER}`);
    expect(bal.body).toMatchObject({ address: FUNDER, collateral: { balance: '498', reserved: '6' } });
    expect((await eoa.l2('GET', '/balances')).body.address).toBe(eoa.address);
    const pos = await eoa.l2('GET', '/positions', undefined, `maker_address=${FUNDER}`);
    expect(pos.body).toMatchObject([{ asset_id: yes(v.m1), size: '5' }]);
    const stranger = new Wallet(Wallet.createRandom().privateKey).address.toLowerCase();
    const refused = await eoa.l2('GET', '/balances', undefined, `maker_address=${stranger}`);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/not an account of this API key/);
    expect((await eoa.l2('GET', '/positions', undefined, `maker_address=${stranger}`)).status).toBe(400);
    // the same 400 on the order and trade lists: a mistyped funder is told, not shown "no orders"
    for (const path of ['/data/trades', '/data/orders']) {
      const r = await eoa.l2('GET', path, undefined, `maker_address=${stranger}`);
      expect(r.status, path).toBe(400);
      expect(JSON.stringify(r.body)).toMatch(/maker_address is not an account of this API key/);
    }
    // the open orders of one account of the key by maker_address; without it, every account's
    const open = async (query?: string) =>
      (await eoa.l2('GET', '/data/orders', undefined, query)).body.data.map(
        (o: { maker_address: string }) => o.maker_address,
      );
    const all = await open();
    const ofFunder = await open(`maker_address=${FUNDER}`);
    const ofEoa = await open(`maker_address=${eoa.address}`);
    expect(ofFunder.length).toBeGreaterThan(0);
    expect(new Set(ofFunder)).toEqual(new Set([FUNDER]));
    expect(ofEoa.every((a: string) => a === eoa.address)).toBe(true);
    expect(ofFunder.length + ofEoa.length).toBe(all.length);
  });

  it("splits and merges the funder's balances through the relayer (proxyWallet), not the EOA's", async () => {
    const ex = v.running.exchange;
    const before = { funder: ex.engine.balance(FUNDER).collateral, eoa: ex.engine.balance(eoa.address).collateral };
    const tx = await venue.split!(v.m1.condition_id as never, parseAmount('3'));
    expect(tx.collateral).toBe(-parseAmount('3'));
    expect(ex.engine.balance(FUNDER).collateral).toBe(before.funder - parseAmount('3'));
    expect(ex.engine.balance(eoa.address).collateral).toBe(before.eoa);
    await venue.merge!(v.m1.condition_id as never, parseAmount('3'));
    expect(ex.engine.balance(FUNDER).collateral).toBe(before.funder);
    // another address is refused
    const stranger = new Wallet(Wallet.createRandom().privateKey).address.toLowerCase();
    const r = await eoa.l2raw(
      'POST',
      '/submit',
      JSON.stringify({ type: 'SPLIT', conditionId: v.m1.condition_id, amount: '1', proxyWallet: stranger }),
      eoa.relayerUrl,
    );
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(/proxyWallet is not an account of this API key/);
  });

  // (last: it cancels) the venue's DELETE /cancel-all is per API key and would take the EOA's own resting
  // order too (and any other funder's of the key: another daemon's); the funder's run cancels its account's only
  it("cancels the funder's open orders only: the key's other accounts keep theirs", async () => {
    const ex = v.running.exchange;
    expect(ex.engine.openOrders(FUNDER).map((o) => o.id)).toEqual(funderOrders);
    const eoaOpen = ex.engine.openOrders(eoa.address).map((o) => o.id);
    expect(eoaOpen).toContain(eoaOrders[1]);
    const r = await venue.cancelAll();
    expect(r.canceled).toEqual(funderOrders);
    expect(ex.engine.openOrders(FUNDER)).toEqual([]);
    expect(ex.engine.openOrders(eoa.address).map((o) => o.id)).toEqual(eoaOpen);
  });

  // the other way round: a run of the EOA's own account (no funder) whose key also signs for a funder
  // another daemon runs: its cancel-all (the shutdown's, the kill switch's) leaves the funder's orders
  it("the EOA's own run cancels the EOA's orders only: the funder's (another daemon's) keep theirs", async () => {
    const ex = v.running.exchange;
    const b = new OrderBuilder({
      wallet: eoa.wallet.privateKey,
      chainId: 137,
      protocol: ex.protocol,
      signatureType: 2,
      funder: FUNDER,
    });
    const o = b.buildLimit({
      tokenId: yes(v.m1),
      side: 'BUY',
      price: '0.20',
      size: '10',
      tick: '0.01',
      negRisk: false,
    });
    expect((await eoa.l2('POST', '/order', toPostBody(o, { owner: eoa.creds!.apiKey }))).body).toMatchObject({
      success: true,
      status: 'live',
    });
    const eoaOpen = ex.engine.openOrders(eoa.address).map((x) => x.id);
    expect(eoaOpen.length).toBeGreaterThan(0);
    const own = await liveVenueFor(
      v,
      { wallet: eoa.wallet, credentials: eoa.creds!, silenceMs: 0, presign: false },
      'content',
    );
    try {
      const r = await own.cancelAll();
      expect([...r.canceled].sort()).toEqual([...eoaOpen].sort());
      expect(ex.engine.openOrders(eoa.address)).toEqual([]);
      expect(ex.engine.openOrders(FUNDER).map((x) => x.id)).toEqual([o.id]);
    } finally {
      await own.close();
    }
  });
});
