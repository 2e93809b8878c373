/**
 * The relayer of the paper exchange (`{relayer_url}/submit`, `/transaction`) over real loopback
 * HTTP with the real clients (RelayerClient, ClobClient, DataClient on one transport per wallet):
 * split, merge, redeem and the neg-risk convert in exact micro-units; authentication; the 25 a
 * minute limit; strict bodies; account activity; persistence.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrDeriveApiKey } from '../../src/api/auth.ts';
import { ClobClient } from '../../src/api/clob.ts';
import { DataClient } from '../../src/api/data.ts';
import { createTransport, type HttpTransport } from '../../src/api/http/transport.ts';
import { RelayerClient, relayerRejectCode } from '../../src/api/relayer.ts';
import { NotFoundError, ValidationError } from '../../src/core/errors.ts';
import { parseAmount, type Micro } from '../../src/core/units.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { no, startVenue, yes, type TestVenue } from './support/setup.ts';
import { Trader, type MarketInfo } from './support/trader.ts';

const m = (s: string): Micro => parseAmount(s);

let v: TestVenue;
const open: HttpTransport[] = [];
const running: RunningExchange[] = [];

interface User {
  wallet: Wallet;
  address: string;
  t: HttpTransport;
  clob: ClobClient;
  relayer: RelayerClient;
  data: DataClient;
  /** The same wallet and API key, for signed orders (test/integration/support/trader.ts). */
  trader: Trader;
}

/** A funded wallet (10,000 on its first key) with its clients, against `urls`. */
async function userOn(urls: RunningExchange['urls']): Promise<User> {
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const t = createTransport({
    urls: { clob: urls.clob_url, data: urls.data_url, relayer: urls.relayer_url },
    signer: wallet,
  });
  open.push(t);
  const creds = await createOrDeriveApiKey(t);
  t.setCredentials(creds);
  const trader = new Trader(urls.clob_url, wallet.privateKey);
  trader.creds = creds;
  return {
    trader,
    wallet,
    address: wallet.address.toLowerCase(),
    t,
    clob: new ClobClient(t),
    relayer: new RelayerClient(t),
    data: new DataClient(t),
  };
}
const user = () => userOn(v.running.urls);

/** Available collateral and the available balance of each token, micro. */
async function holdings(u: User): Promise<{ collateral: number; tokens: Record<string, number> }> {
  const b = await u.clob.balances();
  const tokens: Record<string, number> = {};
  for (const t of b.tokens) tokens[t.assetId] = t.available;
  return { collateral: b.collateral.available, tokens };
}

/** Another market (not v.m1) without neg risk, with tick 0.01, not used by another test. */
const fresh = (() => {
  let used = new Set<string>();
  return (): MarketInfo => {
    const x = v.markets.find((mk) => !mk.neg_risk && mk.minimum_tick_size === 0.01 && !used.has(mk.condition_id));
    if (x === undefined) throw new Error('no unused market left');
    used = new Set([...used, x.condition_id]);
    return x;
  };
})();

/** The neg-risk markets of the event of `v.negRisk`, in listing order. */
function negRiskEvent(): string[] {
  const ex = v.running.exchange;
  const ev = ex.market(v.negRisk.condition_id)!.meta.eventId;
  return ex
    .listMarkets()
    .filter((e) => e.meta.negRisk && e.meta.eventId === ev)
    .map((e) => e.meta.conditionId);
}

beforeAll(async () => {
  v = await startVenue();
});
afterAll(async () => {
  for (const t of open) await t.close();
  for (const r of running) await r.close();
  await v?.close();
});

describe('split and merge', () => {
  it('split then merge returns exactly the collateral spent, to the micro-unit', async () => {
    const u = await user();
    const mk = fresh();
    const before = await holdings(u);
    const amt = m('12.345678');
    const s = await u.relayer.split(mk.condition_id, amt);
    expect(s).toMatchObject({
      state: 'STATE_CONFIRMED',
      type: 'SPLIT',
      from: u.address,
      conditionId: mk.condition_id,
      amount: amt,
      collateralDelta: -amt,
      tokens: [
        { tokenId: yes(mk), delta: amt },
        { tokenId: no(mk), delta: amt },
      ],
    });
    expect(s.hash).toMatch(/^0x[0-9a-f]{64}$/);
    const mid = await holdings(u);
    expect(mid.collateral).toBe(before.collateral - amt);
    expect(mid.tokens[yes(mk)]).toBe(amt);
    expect(mid.tokens[no(mk)]).toBe(amt);
    // a part back, then the rest: exactly what was spent, nothing more, nothing less
    await u.relayer.merge(mk.condition_id, m('0.000001'));
    const rest = await u.relayer.merge(mk.condition_id, (amt - 1) as Micro);
    expect(rest).toMatchObject({ type: 'MERGE', collateralDelta: amt - 1, amount: amt - 1 });
    const after = await holdings(u);
    expect(after.collateral).toBe(before.collateral);
    expect(after.tokens[yes(mk)] ?? 0).toBe(0);
    expect(after.tokens[no(mk)] ?? 0).toBe(0);
    // the relayer knows the transaction by id (the public convention: an array of one)
    expect(await u.relayer.transaction(s.id)).toEqual(s);
    expect(await u.relayer.transaction('no-such-transaction')).toBeUndefined();
  });

  it('a refused operation is typed and changes nothing', async () => {
    const u = await user();
    const mk = fresh();
    const before = await holdings(u);
    const tooMuch = await u.relayer.split(mk.condition_id, m('10000.000001')).catch((e: unknown) => e);
    expect(tooMuch).toBeInstanceOf(ValidationError);
    expect(relayerRejectCode(tooMuch)).toBe('NOT_ENOUGH_BALANCE');
    const none = await u.relayer.merge(mk.condition_id, m('1')).catch((e: unknown) => e);
    expect(relayerRejectCode(none)).toBe('NOT_ENOUGH_BALANCE');
    const unknown = await u.relayer.split('0x' + '12'.repeat(32), m('1')).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(relayerRejectCode(unknown)).toBe('MARKET_NOT_FOUND');
    const early = await u.relayer.redeem(mk.condition_id).catch((e: unknown) => e);
    expect(relayerRejectCode(early)).toBe('MARKET_NOT_RESOLVED');
    const notNegRisk = await u.relayer.convert(mk.condition_id, m('1')).catch((e: unknown) => e);
    expect(relayerRejectCode(notNegRisk)).toBe('NOT_NEG_RISK');
    expect(await holdings(u)).toEqual(before);
    expect((await u.data.activity(u.address)).items).toEqual([]);
  });

  it('locked balances stay locked: a resting order reserves what a split or merge could use', async () => {
    const u = await user();
    const mk = fresh();
    await u.relayer.split(mk.condition_id, m('10'));
    const trader = u.trader;
    expect((await trader.place(yes(mk), 'SELL', '0.99', '6')).body.status).toBe('live'); // reserves 6 YES
    const r = await u.relayer.merge(mk.condition_id, m('4.000001')).catch((e: unknown) => e);
    expect(relayerRejectCode(r)).toBe('NOT_ENOUGH_BALANCE');
    expect((await u.relayer.merge(mk.condition_id, m('4'))).collateralDelta).toBe(m('4'));
  });
});

describe('redeem', () => {
  it('credits exactly the winning tokens of a resolved market; losing ones pay nothing', async () => {
    const a = await user();
    const b = await user();
    const mk = fresh();
    const ta = a.trader;
    const tb = b.trader;
    // a trade mints 10 pairs: a holds 10 YES, b 10 NO; a also splits 3.25
    expect((await ta.place(yes(mk), 'BUY', '0.40', '10')).body.status).toBe('live');
    expect((await tb.place(no(mk), 'BUY', '0.60', '10')).body.status).toBe('matched');
    await a.relayer.split(mk.condition_id, m('3.25'));
    const ha = await holdings(a);
    const hb = await holdings(b);
    expect(ha.tokens[yes(mk)]).toBe(m('13.25'));
    expect(ha.tokens[no(mk)]).toBe(m('3.25'));
    expect((await v.admin(`/markets/${mk.condition_id}/resolve`, { winning_token: yes(mk) })).status).toBe(200);
    // the resolution moved nothing; what is held is marked at what it redeems for
    expect(await holdings(a)).toEqual(ha);
    const marks = (await ta.l2('GET', '/positions')).body as Array<{ asset_id: string; cur_price: string }>;
    expect(marks.find((p) => p.asset_id === yes(mk))?.cur_price).toBe('1');
    expect(marks.find((p) => p.asset_id === no(mk))?.cur_price).toBe('0');
    const ra = await a.relayer.redeem(mk.condition_id);
    expect(ra).toMatchObject({
      type: 'REDEEM',
      amount: m('13.25'),
      collateralDelta: m('13.25'),
      tokens: [
        { tokenId: yes(mk), delta: -m('13.25') },
        { tokenId: no(mk), delta: -m('3.25') },
      ],
    });
    const rb = await b.relayer.redeem(mk.condition_id);
    expect(rb).toMatchObject({ amount: 0, collateralDelta: 0, tokens: [{ tokenId: no(mk), delta: -m('10') }] });
    const after = await holdings(a);
    expect(after.collateral).toBe(ha.collateral + m('13.25'));
    expect(after.tokens[yes(mk)] ?? 0).toBe(0);
    expect((await holdings(b)).collateral).toBe(hb.collateral);
    const again = await a.relayer.redeem(mk.condition_id).catch((e: unknown) => e);
    expect(relayerRejectCode(again)).toBe('NOTHING_TO_REDEEM');
  });
});

describe('convert (neg-risk)', () => {
  it('NO of one market becomes YES of every other market of the event; of k markets, also (k - 1) x amount', async () => {
    const u = await user();
    const event = negRiskEvent();
    expect(event.length).toBeGreaterThanOrEqual(3);
    const ex = v.running.exchange;
    const tokens = (cid: string) => ex.market(cid)!.meta.tokens;
    const [first, second] = event as [string, string];
    await u.relayer.split(first, m('6'));
    await u.relayer.split(second, m('2.5'));
    const before = await holdings(u);
    const c = await u.relayer.convert(first, m('4'));
    expect(c).toMatchObject({ type: 'CONVERT', conditionId: first, amount: m('4'), collateralDelta: 0 });
    const after = await holdings(u);
    expect(after.collateral).toBe(before.collateral);
    expect(after.tokens[tokens(first)[1]]).toBe(m('2'));
    for (const cid of event.slice(1))
      expect(after.tokens[tokens(cid)[0]]).toBe((before.tokens[tokens(cid)[0]] ?? 0) + m('4'));
    // NO of two markets: 1 x amount of collateral back, YES of the others
    const two = await u.relayer.convert([first, second], m('2'));
    expect(two).toMatchObject({ collateralDelta: m('2'), conditionIds: [first, second] });
    const last = await holdings(u);
    expect(last.collateral).toBe(before.collateral + m('2'));
    expect(last.tokens[tokens(first)[1]] ?? 0).toBe(0);
    expect(last.tokens[tokens(second)[1]]).toBe(m('0.5'));
    const more = await u.relayer.convert(second, m('0.500001')).catch((e: unknown) => e);
    expect(relayerRejectCode(more)).toBe('NOT_ENOUGH_BALANCE');
    expect(await holdings(u)).toEqual(last);
  });
});

describe('authentication', () => {
  it('refuses a request without credentials (401) and changes nothing', async () => {
    const u = await user();
    const before = await holdings(u);
    const res = await fetch(`${v.running.urls.relayer_url}/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'SPLIT', conditionId: v.m1.condition_id, amount: '1' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    expect(await holdings(u)).toEqual(before);
  });

  it("no one operates on another account's balance: a forged request is 401, a valid one acts on its own", async () => {
    const victim = await user();
    const mk = fresh();
    await victim.relayer.split(mk.condition_id, m('5'));
    const before = await holdings(victim);
    const mallory = new Trader(v.clob);
    await mallory.createKey();
    // mallory's signature, the victim's address: refused
    const forged = new Trader(v.clob);
    const body = { type: 'MERGE', conditionId: mk.condition_id, amount: '5' };
    const headers = await (async () => {
      const { l2Headers } = await import('../../src/api/signing/hmac.ts');
      const c = mallory.creds!;
      return l2Headers(
        { key: c.apiKey, secret: c.secret, passphrase: c.passphrase },
        victim.wallet.address,
        'POST',
        '/submit',
        JSON.stringify(body),
        Math.floor(Date.now() / 1000),
      );
    })();
    const r1 = await forged.raw('POST', '/submit', {
      rawBody: JSON.stringify(body),
      headers: { ...headers },
      base: forged.relayerUrl,
    });
    expect(r1.status).toBe(401);
    // the victim's API key with a signature made with another secret: refused
    const victimKey = (victim.t as unknown as { apiKey: string }).apiKey;
    const r2 = await forged.raw('POST', '/submit', {
      rawBody: JSON.stringify(body),
      headers: { ...headers, POLY_API_KEY: victimKey },
      base: forged.relayerUrl,
    });
    expect(r2.status).toBe(401);
    // mallory's own valid request operates on mallory's (empty) balances only
    const r3 = await mallory.submit(body);
    expect(r3.status).toBe(400);
    expect(r3.body.error.code).toBe('NOT_ENOUGH_BALANCE');
    expect(await holdings(victim)).toEqual(before);
  });
});

describe('rate limit (spec 8.1: 25 requests per minute)', () => {
  it('the 26th submit of an account in a minute is 429 with the usual envelope and changes nothing', async () => {
    const t = new Trader(v.clob);
    await t.createKey();
    const mk = v.m1;
    for (let i = 0; i < 25; i++) {
      const r = await t.submit({ type: 'SPLIT', conditionId: mk.condition_id, amount: '0.000001' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    const bal = async () => (await t.l2('GET', '/balances')).body;
    const before = await bal();
    const r = await t.submit({ type: 'SPLIT', conditionId: mk.condition_id, amount: '1' });
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expect(r.body.error.message).toMatch(/relayer-submit allows 25 requests per 60 s/);
    expect(r.headers.get('x-ratelimit-limit')).toBe('25');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await bal()).toEqual(before);
    expect(v.running.exchange.relayerLedger.of(t.address)).toHaveLength(25);
    // another account has its own window
    const other = new Trader(v.clob);
    await other.createKey();
    expect((await other.submit({ type: 'SPLIT', conditionId: mk.condition_id, amount: '1' })).status).toBe(200);
  });
});

describe('malformed bodies', () => {
  it('are 400 with a message naming what is wrong, and change nothing', async () => {
    const t = new Trader(v.clob);
    await t.createKey();
    const cid = v.m1.condition_id;
    const cases: Array<[unknown, RegExp]> = [
      [[], /JSON object/],
      ['SPLIT', /JSON object/],
      [{ conditionId: cid, amount: '1' }, /type/],
      [{ type: 'BURN', conditionId: cid, amount: '1' }, /type/],
      [{ type: 'SPLIT', amount: '1' }, /conditionId/],
      [{ type: 'SPLIT', conditionId: '0x1234', amount: '1' }, /conditionId/],
      [{ type: 'SPLIT', conditionId: cid, amount: 1 }, /amount/],
      [{ type: 'SPLIT', conditionId: cid, amount: '1.0000001' }, /amount/],
      [{ type: 'SPLIT', conditionId: cid, amount: '-1' }, /amount/],
      [{ type: 'SPLIT', conditionId: cid, amount: '0' }, /amount/],
      [{ type: 'SPLIT', conditionId: cid, amount: '1e3' }, /amount/],
      [{ type: 'SPLIT', conditionId: cid }, /amount/],
      [{ type: 'SPLIT', conditionId: cid, amount: '1', extra: true }, /extra/],
      [{ type: 'SPLIT', conditionIds: [cid], amount: '1' }, /conditionIds/],
      [{ type: 'CONVERT', conditionId: cid, conditionIds: [cid], amount: '1' }, /not both/],
      [{ type: 'CONVERT', conditionIds: [cid, cid], amount: '1' }, /twice/],
      [{ type: 'REDEEM', conditionId: cid, amount: 'all' }, /amount/],
    ];
    const before = (await t.l2('GET', '/balances')).body;
    for (const [body, msg] of cases) {
      const r = await t.submit(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.success).toBe(false);
      expect(r.body.error.message, JSON.stringify(body)).toMatch(msg);
    }
    const notJson = await t.l2raw('POST', '/submit', '{"type": "SPLIT",', t.relayerUrl);
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.message).toMatch(/malformed JSON/);
    expect((await t.l2('GET', '/balances')).body).toEqual(before);
    expect(v.running.exchange.relayerLedger.of(t.address)).toEqual([]);
  });
});

describe('activity (data API)', () => {
  it("lists the account's trades, splits, merges, redemptions and conversions, newest first", async () => {
    const u = await user();
    const mk = fresh();
    const tu = u.trader;
    const other = await v.trader();
    expect((await other.place(no(mk), 'BUY', '0.70', '5')).body.status).toBe('live');
    const taken = await tu.place(yes(mk), 'BUY', '0.30', '5');
    expect(taken.body.status, JSON.stringify(taken.body)).toBe('matched');
    const s = await u.relayer.split(mk.condition_id, m('2.5'));
    await u.relayer.merge(mk.condition_id, m('1'));
    const event = negRiskEvent();
    await u.relayer.split(event[0]!, m('1'));
    await u.relayer.convert(event[0]!, m('1'));
    const page = await u.data.activity(u.address);
    expect(page.items.map((i) => i.type)).toEqual(['CONVERSION', 'SPLIT', 'MERGE', 'SPLIT', 'TRADE']);
    const trade = page.items[4]!;
    expect(trade).toMatchObject({
      conditionId: mk.condition_id,
      asset: yes(mk),
      side: 'BUY',
      size: m('5'),
      usdcSize: m('1.5'),
      price: '0.3',
      outcome: 'Yes',
      outcomeIndex: 0,
      proxyWallet: u.address,
    });
    expect(page.items[3]).toMatchObject({
      type: 'SPLIT',
      conditionId: mk.condition_id,
      size: m('2.5'),
      usdcSize: m('2.5'),
      transactionHash: s.hash,
      asset: null,
      side: null,
      price: null,
    });
    expect(page.items[0]).toMatchObject({ type: 'CONVERSION', conditionId: event[0], size: m('1'), usdcSize: 0 });
    const only = await u.data.activity(u.address, { type: ['SPLIT', 'MERGE'], market: mk.condition_id });
    expect(only.items.map((i) => i.type)).toEqual(['MERGE', 'SPLIT']);
    const stranger = await u.data.activity('0x' + '9'.repeat(40));
    expect(stranger.items).toEqual([]);
    await expect(u.data.activity('not-an-address')).rejects.toThrow(ValidationError);
  });
});

describe('persistence', () => {
  it('a restored exchange has the same balances and transactions', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'mmkit-relayer-')), 'ex.db');
    const opts = {
      port: 0,
      seed: 11,
      dbFile: db,
      world: { agents: 'none' as const, lifecycle: false, priceFeed: false },
    };
    const r1 = await startExchange(opts);
    running.push(r1);
    const u = await userOn(r1.urls);
    const cid = r1.exchange.listMarkets().find((e) => !e.meta.negRisk)!.meta.conditionId;
    const s = await u.relayer.split(cid, m('3.000003'));
    const before = await holdings(u);
    await r1.close();
    const r2 = await startExchange(opts);
    running.push(r2);
    const ru = createTransport({ urls: { clob: r2.urls.clob_url, relayer: r2.urls.relayer_url }, signer: u.wallet });
    open.push(ru);
    ru.setCredentials(await createOrDeriveApiKey(ru));
    const clob = new ClobClient(ru);
    const b = await clob.balances();
    expect(b.collateral.available).toBe(before.collateral);
    expect(await new RelayerClient(ru).transaction(s.id)).toEqual(s);
  });
});
