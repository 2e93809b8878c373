/**
 * Proxy-wallet orders (signatureType 1/2): the EOA signs and holds the API key, the funder (maker)
 * holds the money. The funder is the signer's derived proxy wallet (here) or Safe, or one an operator
 * registered to it (test/security/maker-authorization.test.ts). The key holder sees, cancels and is
 * reported the proxy's orders and trades.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderBuilder, toPostBody } from '../../src/api/orders.ts';
import { proxyWalletOf } from '../../src/exchange/accounts/funders.ts';
import { startVenue, yes, no, type TestVenue } from './support/setup.ts';
import type { Trader } from './support/trader.ts';

let v: TestVenue;
let eoa: Trader;
let other: Trader;
let FUNDER: string;

beforeAll(async () => {
  v = await startVenue();
  eoa = await v.trader();
  other = await v.trader();
  FUNDER = proxyWalletOf(eoa.address);
  await v.admin('/balances', { address: FUNDER, collateral: '1000' });
});
afterAll(async () => v?.close());

describe('proxy orders', () => {
  it("rest on the funder account and are the signer's to see, cancel and trade", async () => {
    const b = new OrderBuilder({
      wallet: eoa.wallet.privateKey,
      chainId: 137,
      signatureType: 1,
      funder: FUNDER,
    });
    const o = b.buildLimit({
      tokenId: yes(v.m1),
      side: 'BUY',
      price: '0.40',
      size: '10',
      tick: '0.01',
      negRisk: false,
    });
    const r = await eoa.l2('POST', '/order', toPostBody(o, { owner: eoa.creds!.apiKey }));
    expect(r.body).toMatchObject({ success: true, status: 'live', orderID: o.id });
    expect((await eoa.l2('GET', '/data/orders')).body.data.map((x: any) => x.id)).toEqual([o.id]);
    expect((await eoa.l2('GET', `/data/order/${o.id}`)).body).toMatchObject({ maker_address: FUNDER, status: 'LIVE' });
    // the funder's collateral is reserved, not the signer's
    expect((await eoa.l2('GET', '/balances')).body.collateral.reserved).toBe('0');
    // someone else still cannot see or cancel it
    expect((await other.l2('GET', `/data/order/${o.id}`)).status).toBe(404);
    // a trade against it is reported to the signer as MAKER
    await other.place(no(v.m1), 'BUY', '0.60', '5');
    const trades = (await eoa.l2('GET', '/data/trades')).body.data;
    expect(trades).toHaveLength(1);
    expect(trades[0].trader_side).toBe('MAKER');
    const c = await eoa.l2('DELETE', '/order', { orderID: o.id });
    expect(c.body.canceled).toEqual([o.id]);
    const o2 = b.buildLimit({
      tokenId: yes(v.m1),
      side: 'BUY',
      price: '0.30',
      size: '10',
      tick: '0.01',
      negRisk: false,
    });
    await eoa.l2('POST', '/order', toPostBody(o2, { owner: eoa.creds!.apiKey }));
    expect((await eoa.l2('DELETE', '/cancel-all')).body.canceled).toEqual([o2.id]);
  });
});
