import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fillsOf,
  keysOtherAccount,
  normaliseOrderStatus,
  othersOrder,
  orderRecordSchema,
  tradeRecordSchema,
  UserDedupe,
} from '../../../../src/api/streams/user-decode.ts';
import {
  AUDIT_FILLS_LOGGED,
  AUDIT_GRACE_MS,
  userStream,
  type ReconcileContext,
  type ReconcileResult,
  type UserStreamOptions,
} from '../../../../src/api/streams/user.ts';
import { VirtualClock } from '../../../../src/core/clock.ts';
import type { FillEvent, TradeStatus, UserEvent } from '../../../../src/core/events.ts';
import { FakeServer } from './fake-socket.ts';

const KEY = 'key-me';
/** A clock start after the trades below (matched at 1,760,000,002 s): audits take them. */
const T0 = 1_760_000_100_000;
const CREDS = { apiKey: KEY, secret: 'c2VjcmV0LXNlY3JldA==', passphrase: 'pass-phrase-xyz' };
const M = '0xmarket';
const YES = '111';
const NO = '222';

// shaped as the paper exchange renders them (REST record; the stream adds event_type, type, ...)
const order = (id: string, status = 'LIVE', matched = '0') => ({
  id,
  status,
  owner: KEY,
  maker_address: '0xme',
  market: M,
  asset_id: YES,
  side: 'BUY',
  original_size: '10',
  size_matched: matched,
  price: '0.4',
  outcome: 'Yes',
  associate_trades: [],
  created_at: 1_760_000_000,
  expiration: '0',
  order_type: 'GTC',
});
const orderMsg = (id: string, type: string, status = 'LIVE', matched = '0') => ({
  event_type: 'order',
  type,
  ...order(id, status, matched),
  order_owner: KEY,
  timestamp: '1760000001',
});
/** A trade where I am a maker (my order `oid` on YES) against someone's NO buy. */
const trade = (id: string, oid: string, status = 'MATCHED', side: 'MAKER' | 'TAKER' = 'MAKER') => ({
  id,
  taker_order_id: side === 'TAKER' ? oid : '0xtaker',
  market: M,
  asset_id: side === 'TAKER' ? YES : NO,
  side: 'BUY',
  size: '6',
  fee_rate_bps: '0',
  price: side === 'TAKER' ? '0.4' : '0.6',
  status,
  match_time: '1760000002',
  last_update: '1760000002',
  outcome: 'No',
  owner: side === 'TAKER' ? KEY : 'someone',
  maker_address: '0xother',
  transaction_hash: '0xhash',
  trader_side: side,
  maker_orders:
    side === 'TAKER'
      ? [
          {
            order_id: '0xmk',
            owner: 'someone',
            maker_address: '0xother',
            matched_amount: '6',
            price: '0.6',
            fee_rate_bps: '0',
            asset_id: NO,
            outcome: 'No',
            side: 'BUY',
          },
        ]
      : [
          {
            order_id: oid,
            owner: KEY,
            maker_address: '0xme',
            matched_amount: '6',
            price: '0.4',
            fee_rate_bps: '0',
            asset_id: YES,
            outcome: 'Yes',
            side: 'BUY',
          },
        ],
});
const tradeMsg = (id: string, oid: string, status = 'MATCHED', side: 'MAKER' | 'TAKER' = 'MAKER') => ({
  event_type: 'trade',
  type: 'TRADE',
  ...trade(id, oid, status, side),
  trade_owner: KEY,
  timestamp: '1760000003',
});

describe('own fills of a trade', () => {
  it('maker: the maker orders I own, on their own token, side and price', () => {
    const t = tradeRecordSchema.parse(trade('T1', '0xo1'));
    expect(fillsOf(t, { apiKey: KEY }, 'stream', 5)).toEqual([
      {
        type: 'fill',
        venueTime: 1_760_000_002_000,
        recvTime: 5,
        tradeId: 'T1',
        orderId: '0xo1',
        status: 'MATCHED',
        role: 'MAKER',
        market: M,
        tokenId: YES,
        side: 'BUY',
        price: 4000,
        size: 6_000_000,
        feeRateBps: 0,
        takerOrderId: '0xtaker',
        source: 'stream',
      },
    ]);
    // by address when the owner is aliased
    const aliased = tradeRecordSchema.parse({
      ...trade('T1', '0xo1'),
      maker_orders: [{ ...trade('T1', '0xo1').maker_orders[0], owner: 'alias' }],
    });
    expect(fillsOf(aliased, { apiKey: KEY }, 'stream', 5)).toEqual([]);
    expect(fillsOf(aliased, { apiKey: KEY, address: '0xME' }, 'stream', 5).map((f) => f.orderId)).toEqual(['0xo1']);
  });
  it('taker: the taker order at the trade price (rounded to a pip when averaged)', () => {
    const t = tradeRecordSchema.parse({ ...trade('T2', '0xo2', 'MINED', 'TAKER'), price: '0.40005' });
    expect(fillsOf(t, { apiKey: KEY }, 'reconcile', 5)).toEqual([
      expect.objectContaining({
        tradeId: 'T2',
        orderId: '0xo2',
        role: 'TAKER',
        tokenId: YES,
        price: 4001,
        size: 6_000_000,
        status: 'MINED',
        source: 'reconcile',
      }),
    ]);
  });
  it("one key, several accounts (a Safe's funder and the EOA): with an address, only that account's orders are the user's", () => {
    // the key's maker order for the EOA (0xeoa), while the user is the Safe (0xsafe): not the user's
    const eoaMaker = tradeRecordSchema.parse({
      ...trade('T3', '0xo3'),
      maker_orders: [{ ...trade('T3', '0xo3').maker_orders[0], maker_address: '0xEOA' }],
    });
    expect(fillsOf(eoaMaker, { apiKey: KEY, address: '0xsafe' }, 'stream', 5)).toEqual([]);
    expect(keysOtherAccount(eoaMaker, { apiKey: KEY, address: '0xsafe' })).toBe(true);
    // the same record for the EOA's own run, and without an address (by owner): the user's
    expect(fillsOf(eoaMaker, { apiKey: KEY, address: '0xeoa' }, 'stream', 5).map((f) => f.orderId)).toEqual(['0xo3']);
    expect(fillsOf(eoaMaker, { apiKey: KEY }, 'stream', 5).map((f) => f.orderId)).toEqual(['0xo3']);
    // the key's taker order for the EOA (the record's maker_address is the taker's account)
    const eoaTaker = tradeRecordSchema.parse({ ...trade('T4', '0xo4', 'MATCHED', 'TAKER'), maker_address: '0xeoa' });
    expect(fillsOf(eoaTaker, { apiKey: KEY, address: '0xsafe' }, 'stream', 5)).toEqual([]);
    expect(keysOtherAccount(eoaTaker, { apiKey: KEY, address: '0xsafe' })).toBe(true);
    const safeTaker = tradeRecordSchema.parse({ ...trade('T4', '0xo4', 'MATCHED', 'TAKER'), maker_address: '0xSAFE' });
    expect(fillsOf(safeTaker, { apiKey: KEY, address: '0xsafe' }, 'stream', 5).map((f) => f.orderId)).toEqual(['0xo4']);
    // someone else's trade is no other account of the key
    const theirs = tradeRecordSchema.parse({ ...trade('T5', '0xo5'), maker_orders: [] });
    expect(keysOtherAccount(theirs, { apiKey: KEY, address: '0xsafe' })).toBe(false);
    expect(othersOrder({ maker_address: '0xeoa' }, { apiKey: KEY, address: '0xsafe' })).toBe(true);
    expect(othersOrder({ maker_address: '0xSAFE' }, { apiKey: KEY, address: '0xsafe' })).toBe(false);
    expect(othersOrder({}, { apiKey: KEY, address: '0xsafe' })).toBe(false);
    expect(othersOrder({ maker_address: '0xeoa' }, { apiKey: KEY })).toBe(false);
  });
  it('statuses are normalised; unknown ones refused', () => {
    expect(['live', 'ORDER_STATUS_CANCELLED', 'matched', 'weird'].map(normaliseOrderStatus)).toEqual([
      'LIVE',
      'CANCELED',
      'MATCHED',
      undefined,
    ]);
    expect(orderRecordSchema.safeParse(order('o', 'weird')).success).toBe(false);
    expect(tradeRecordSchema.safeParse(trade('t', 'o', 'LOST')).success).toBe(false);
  });
});

describe('dedupe', () => {
  it('orders: new (status, sizeMatched) only; nothing after a terminal status or going backwards', () => {
    const d = new UserDedupe();
    expect(d.order('o', 'LIVE', 0)).toBe(true);
    expect(d.order('o', 'LIVE', 0)).toBe(false);
    expect(d.order('o', 'LIVE', 6)).toBe(true);
    expect(d.order('o', 'LIVE', 3)).toBe(false);
    expect(d.openOrderIds()).toEqual(['o']);
    expect(d.order('o', 'CANCELED', 6)).toBe(true);
    expect(d.order('o', 'LIVE', 8)).toBe(false);
    expect(d.openOrderIds()).toEqual([]);
  });
  it('fills: once per (trade, order, status), never a lower-ranked status after a higher one', () => {
    const d = new UserDedupe();
    expect(d.fill('t', 'o', 'MATCHED')).toBe(true);
    expect(d.fill('t', 'o', 'MATCHED')).toBe(false);
    expect(d.fill('t', 'o2', 'MATCHED')).toBe(true);
    expect(d.fill('t', 'o', 'CONFIRMED')).toBe(true);
    expect(d.fill('t', 'o', 'MINED')).toBe(false);
    expect(d.fill('t', 'o', 'FAILED')).toBe(true);
  });
  it('property: any interleaving of duplicated deliveries emits each (trade, order, status) at most once, in rank order', () => {
    const statuses: TradeStatus[] = ['MATCHED', 'MINED', 'CONFIRMED'];
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 2 })),
          { maxLength: 60 },
        ),
        (deliveries) => {
          const d = new UserDedupe();
          const emitted: string[] = [];
          const rank = new Map<string, number>();
          for (const [t, o, s] of deliveries) {
            if (d.fill(`t${t}`, `o${o}`, statuses[s]!)) {
              const k = `t${t}|o${o}`;
              expect(s).toBeGreaterThanOrEqual(rank.get(k) ?? 0);
              rank.set(k, s);
              emitted.push(`${k}|${s}`);
            }
          }
          expect(new Set(emitted).size).toBe(emitted.length);
        },
      ),
    );
  });
  it('is bounded', () => {
    const d = new UserDedupe(3);
    for (const id of ['a', 'b', 'c', 'd']) d.fill(id, 'o', 'MATCHED');
    expect(d.fill('a', 'o', 'MATCHED')).toBe(true); // forgotten
    expect(d.fill('d', 'o', 'MATCHED')).toBe(false);
  });
});

function setup(
  reconcile: (ctx: ReconcileContext) => Promise<ReconcileResult>,
  o: Partial<UserStreamOptions> = {},
  startMs = 1_000_000,
) {
  const clock = new VirtualClock(startMs);
  const server = new FakeServer();
  const logs: string[] = [];
  const logger = {
    warn: (obj: object, msg: string) => logs.push(JSON.stringify(obj) + msg),
    info: (obj: object, msg: string) => logs.push(JSON.stringify(obj) + msg),
  };
  const stream = userStream({
    url: 'ws://x/ws/user',
    creds: CREDS,
    markets: [M],
    reconcile,
    clock,
    random: () => 0,
    createSocket: server.factory,
    logger,
    ...o,
  });
  const events: UserEvent[] = [];
  stream.events$.subscribe((e) => events.push(e));
  return { clock, server, stream, events, logs };
}
const flush = () => new Promise((r) => setTimeout(r, 0));
const fillKeys = (evs: UserEvent[]) =>
  evs.filter((e): e is FillEvent => e.type === 'fill').map((f) => `${f.tradeId}|${f.orderId}|${f.status}|${f.source}`);

describe('user stream', () => {
  it('authenticates per the venue conventions and emits own orders and fills', async () => {
    const t = setup(async () => ({ orders: [], trades: [] }));
    const s = t.server.last.open();
    expect(s.json()[0]).toEqual({ auth: CREDS, markets: [M], type: 'user' });
    s.recv('PONG');
    s.recv(orderMsg('0xo1', 'PLACEMENT'))
      .recv(tradeMsg('T1', '0xo1'))
      .recv(orderMsg('0xo1', 'UPDATE', 'LIVE', '6'));
    expect(t.events.map((e) => e.type)).toEqual(['resynced', 'order_update', 'fill', 'order_update']);
    expect(t.events[1]).toMatchObject({
      kind: 'PLACEMENT',
      id: '0xo1',
      status: 'LIVE',
      price: 4000,
      originalSize: 10_000_000,
      sizeMatched: 0,
      venueTime: 1_760_000_001_000,
      source: 'stream',
    });
    expect(t.events[3]).toMatchObject({ kind: 'UPDATE', sizeMatched: 6_000_000 });
    expect(t.logs.join('\n')).not.toContain(CREDS.secret);
    expect(t.logs.join('\n')).not.toContain(CREDS.passphrase);
  });

  it('after a reconnect: reconciles once the subscription is confirmed, emits only what was missed, then resynced', async () => {
    const calls: ReconcileContext[] = [];
    let answer: ReconcileResult = { orders: [], trades: [] };
    const t = setup(async (ctx) => {
      calls.push(ctx);
      return answer;
    });
    const s1 = t.server.last.open().recv('PONG');
    s1.recv(orderMsg('0xo1', 'PLACEMENT')).recv(orderMsg('0xo2', 'PLACEMENT')).recv(tradeMsg('T1', '0xo1'));
    t.clock.advance(1000);
    s1.drop();
    expect(t.events[t.events.length - 1]).toMatchObject({ type: 'disconnected', stream: 'user' });
    // while away: T1 got MINED, T2 filled o1 fully, o2 was cancelled
    answer = {
      orders: [order('0xo1', 'MATCHED', '10'), order('0xo2', 'CANCELED', '0')],
      trades: [trade('T1', '0xo1', 'MINED'), trade('T2', '0xo1', 'MATCHED'), trade('T0', '0xold', 'CONFIRMED')],
    };
    t.clock.advance(500);
    const s2 = t.server.last.open();
    expect(calls.length).toBe(0); // not before the server confirmed the subscription
    s2.recv(tradeMsg('T2', '0xo1', 'MATCHED')); // the new socket already delivers T2
    s2.recv('PONG');
    expect(calls.length).toBe(1);
    expect(calls[0]).toMatchObject({ reason: 'reconnect', since: 1_000_000, openOrderIds: ['0xo1', '0xo2'] });
    await flush();
    const after = t.events.slice(t.events.findIndex((e) => e.type === 'disconnected') + 1);
    expect(after.map((e) => e.type)).toEqual(['fill', 'fill', 'fill', 'order_update', 'order_update', 'resynced']);
    expect(fillKeys(after)).toEqual([
      'T2|0xo1|MATCHED|stream',
      'T1|0xo1|MINED|reconcile',
      'T0|0xold|CONFIRMED|reconcile',
    ]);
    expect(after[3]).toMatchObject({
      kind: 'UPDATE',
      id: '0xo1',
      status: 'MATCHED',
      sizeMatched: 10_000_000,
      source: 'reconcile',
    });
    expect(after[4]).toMatchObject({ kind: 'CANCELLATION', id: '0xo2', status: 'CANCELED' });
    expect(after[5]).toMatchObject({ type: 'resynced', initial: false });
    expect(t.stream.stats()).toMatchObject({ reconciles: 1, recovered: 4, duplicates: 1 });
    // later deliveries of the same facts are not emitted again
    s2.recv(tradeMsg('T1', '0xo1', 'MINED'))
      .recv(tradeMsg('T1', '0xo1', 'MATCHED'))
      .recv(orderMsg('0xo2', 'CANCELLATION', 'CANCELED'));
    expect(t.events[t.events.length - 1]!.type).toBe('resynced');
    // a second reconnect with the same answer emits nothing new
    s2.drop();
    t.clock.advance(5000);
    expect(t.server.sockets.length).toBe(3);
    t.server.last.open().recv('PONG');
    await flush();
    expect(t.events.slice(-2).map((e) => e.type)).toEqual(['disconnected', 'resynced']);
  });

  it('a failed reconciliation is a stream_error, retried with backoff; resynced only after success', async () => {
    let n = 0;
    const t = setup(async () => {
      if (++n < 3) throw new Error(`http 503 #${n}`);
      return { orders: [], trades: [trade('T9', '0xo9')] };
    });
    t.server.last.open().recv('PONG').drop();
    t.clock.advance(500);
    t.server.last.open().recv('PONG');
    await flush();
    expect(t.events[t.events.length - 1]).toMatchObject({
      type: 'stream_error',
      reason: 'reconcile failed: http 503 #1',
    });
    t.clock.advance(500);
    await flush();
    expect(t.events[t.events.length - 1]).toMatchObject({
      type: 'stream_error',
      reason: 'reconcile failed: http 503 #2',
    });
    t.clock.advance(1000);
    await flush();
    expect(t.events.slice(-2).map((e) => e.type)).toEqual(['fill', 'resynced']);
    expect(t.stream.stats()).toMatchObject({ reconcileFailures: 2, reconciles: 1 });
  });

  it('a reconciliation outlived by its connection is aborted and does not resync', async () => {
    let release: (r: ReconcileResult) => void = () => {};
    const signals: AbortSignal[] = [];
    const t = setup((ctx) => {
      signals.push(ctx.signal);
      return new Promise((r) => (release = r));
    });
    t.server.last.open().recv('PONG').drop();
    t.clock.advance(500);
    t.server.last.open().recv('PONG');
    t.server.last.drop();
    expect(signals[0]!.aborted).toBe(true);
    release({ orders: [], trades: [trade('T5', '0xo5')] });
    await flush();
    expect(t.events.filter((e) => e.type === 'resynced').length).toBe(1); // the initial one only
    expect(fillKeys(t.events)).toEqual(['T5|0xo5|MATCHED|reconcile']); // the facts still count, once
  });

  it("orders and trades of another account of the key (the EOA's, the user being its Safe) are skipped, not bad messages", async () => {
    const t = setup(async () => ({ orders: [], trades: [] }), { address: '0xsafe' });
    const s = t.server.last.open().recv('PONG');
    s.recv({ ...orderMsg('0xe1', 'PLACEMENT'), maker_address: '0xeoa' })
      .recv({
        ...tradeMsg('T1', '0xe1'),
        maker_orders: [{ ...tradeMsg('T1', '0xe1').maker_orders[0], maker_address: '0xeoa' }],
      })
      .recv({ ...orderMsg('0xs1', 'PLACEMENT'), maker_address: '0xsafe' })
      .recv({
        ...tradeMsg('T2', '0xs1'),
        maker_orders: [{ ...tradeMsg('T2', '0xs1').maker_orders[0], maker_address: '0xsafe' }],
      });
    expect(t.events.map((e) => e.type)).toEqual(['resynced', 'order_update', 'fill']);
    expect(t.events.slice(1).map((e) => (e.type === 'fill' ? e.orderId : (e as { id: string }).id))).toEqual([
      '0xs1',
      '0xs1',
    ]);
    expect(t.stream.stats()).toMatchObject({ badFrames: 0 });
  });

  it('bad messages and records are counted stream_errors; venue error frames too', async () => {
    const t = setup(async () => ({ orders: [{ id: 'x' }], trades: [42] }));
    const s = t.server.last.open().recv('PONG');
    s.recv('nope')
      .recv({ event_type: 'order', type: 'PLACEMENT', id: 'o' })
      .recv({ event_type: 'error', error: { code: 'UNAUTHORIZED', message: 'invalid API credentials' } });
    s.recv({ ...tradeMsg('T1', '0xo1'), maker_orders: [] });
    expect(t.events.filter((e) => e.type === 'stream_error').map((e) => (e as any).reason)).toEqual([
      'bad message: malformed JSON',
      expect.stringMatching(/^bad message: order: /),
      'venue error: UNAUTHORIZED: invalid API credentials',
      "bad message: trade: none of its orders is recognisably the user's",
    ]);
    expect(t.stream.stats()).toMatchObject({ badFrames: 3, serverErrors: 1 });
  });

  it('audit: the warning names each fill recovered (market, token, trade, order, size, price in decimals), the first AUDIT_FILLS_LOGGED of them', async () => {
    const trades = Array.from({ length: AUDIT_FILLS_LOGGED + 2 }, (_, i) => trade(`T${i}`, `0xo${i}`));
    const t = setup(async () => ({ orders: [], trades }), { auditMs: 5000, silenceMs: 0 }, T0);
    t.server.last.open().recv('PONG');
    t.clock.advance(5000);
    await flush();
    const line = t.logs.find((l) =>
      l.endsWith('the user channel had not delivered these fills: recovered by the audit'),
    );
    expect(line).toBeDefined();
    const fields = JSON.parse(line!.slice(0, line!.lastIndexOf('}') + 1)) as {
      fills: number;
      recovered: Record<string, string>[];
      more?: number;
    };
    expect(fields.fills).toBe(AUDIT_FILLS_LOGGED + 2);
    expect(fields.recovered.length).toBe(AUDIT_FILLS_LOGGED);
    expect(fields.more).toBe(2);
    expect(fields.recovered[0]).toEqual({
      market: M,
      token: YES,
      trade: 'T0',
      order: '0xo0',
      side: 'BUY',
      size: '6',
      price: '0.4',
      status: 'MATCHED',
    });
  });

  it("audit (fleet): fills of other members are emitted but counted apart, never as this client's missed fills", async () => {
    const trades = [trade('T1', '0xmember1'), trade('T2', '0xmine'), trade('T3', '0xmember2')];
    const othersFill = (f: FillEvent) => f.orderId.startsWith('0xmember');
    const t = setup(async () => ({ orders: [], trades }), { auditMs: 5000, silenceMs: 0, othersFill }, T0);
    t.server.last.open().recv('PONG');
    t.clock.advance(5000);
    await flush();
    // (all emitted: the consumer drops the other members' ones)
    expect(fillKeys(t.events)).toHaveLength(3);
    const line = t.logs.find((l) => l.endsWith('recovered by the audit'));
    const fields = JSON.parse(line!.slice(0, line!.lastIndexOf('}') + 1)) as {
      fills: number;
      otherMembers: number;
      recovered: Record<string, string>[];
    };
    expect(fields.fills).toBe(1);
    expect(fields.otherMembers).toBe(2);
    expect(fields.recovered.map((f) => f['order'])).toEqual(['0xmine']);
  });

  it('audit (fleet): only fills of other members recovered: no warning, a debug line', async () => {
    const logs: string[] = [];
    const log = (o: object, m: string) => logs.push(JSON.stringify(o) + m);
    const t = setup(
      async () => ({ orders: [], trades: [trade('T1', '0xmember1')] }),
      { auditMs: 5000, silenceMs: 0, othersFill: () => true, logger: { warn: log, info: log, debug: log } },
      T0,
    );
    t.server.last.open().recv('PONG');
    t.clock.advance(5000);
    await flush();
    expect(fillKeys(t.events)).toHaveLength(1);
    expect(logs.some((l) => l.includes('recovered by the audit'))).toBe(false);
    expect(
      logs.find((l) =>
        l.endsWith('fills of other fleet members taken from the audit (in their ledgers: ignored here)'),
      ),
    ).toContain('"otherMembers":1');
  });

  it('audit (fleet): a fill on a market the channel does not follow (reconcile adds them) is emitted, no missed fill: a debug line', async () => {
    const logs: string[] = [];
    const log = (o: object, m: string) => logs.push(JSON.stringify(o) + m);
    const outside = { ...trade('T1', '0xhand'), market: '0xoutside' };
    const t = setup(
      async () => ({ orders: [], trades: [outside, trade('T2', '0xmine')] }),
      { auditMs: 5000, silenceMs: 0, logger: { warn: log, info: log, debug: log } },
      T0,
    );
    t.server.last.open().recv('PONG');
    t.clock.advance(5000);
    await flush();
    // (both emitted: the consumer books the outside one as external, once fleet-wide)
    expect(fillKeys(t.events)).toHaveLength(2);
    const warn = logs.find((l) => l.endsWith('recovered by the audit'));
    expect(warn).toContain('"fills":1');
    expect(warn).not.toContain('0xhand');
    expect(
      logs.find((l) => l.endsWith('fills on markets the user channel does not follow taken from the audit')),
    ).toContain('"outside":1');
    expect(t.stream.stats()).toMatchObject({ audits: 1, auditRecovered: 1 });
  });

  it('audit: a fill recorded before this session (recordedFill: the store, after a restart) is emitted but is no missed fill (findings-5 F4)', async () => {
    const logs: string[] = [];
    const log = (o: object, m: string) => logs.push(JSON.stringify(o) + m);
    const asked: string[] = [];
    const recordedFill = (f: FillEvent) => {
      asked.push(f.tradeId);
      return f.tradeId === 'T1';
    };
    const t = setup(
      async () => ({ orders: [], trades: [trade('T1', '0xold', 'CONFIRMED'), trade('T2', '0xmissed')] }),
      { auditMs: 5000, silenceMs: 0, recordedFill, logger: { warn: log, info: log, debug: log } },
      T0,
    );
    t.server.last.open().recv('PONG');
    t.clock.advance(5000);
    await flush();
    // (both emitted: the consumer's store dedupes the recorded one)
    expect(fillKeys(t.events)).toEqual(['T1|0xold|CONFIRMED|reconcile', 'T2|0xmissed|MATCHED|reconcile']);
    expect(asked).toEqual(['T1', 'T2']);
    // the real miss still warns, alone
    const warn = logs.find((l) => l.endsWith('the user channel had not delivered these fills: recovered by the audit'));
    expect(warn).toContain('"fills":1');
    expect(warn).toContain('0xmissed');
    expect(warn).not.toContain('0xold');
    expect(logs.find((l) => l.includes('fills recorded before this session taken from the audit'))).toContain(
      '"recorded":1',
    );
  });

  it('audit: a recordedFill predicate that throws counts the fill as missed (the safe side)', async () => {
    const t = setup(
      async () => ({ orders: [], trades: [trade('T1', '0xo1')] }),
      {
        auditMs: 5000,
        silenceMs: 0,
        recordedFill: () => {
          throw new Error('store closed');
        },
      },
      T0,
    );
    t.server.last.open().recv('PONG');
    t.clock.advance(5000);
    await flush();
    expect(fillKeys(t.events)).toEqual(['T1|0xo1|MATCHED|reconcile']);
    expect(t.logs.some((l) => l.endsWith('recovered by the audit'))).toBe(true);
  });

  it('audit: a later status of a fill the channel delivered (CONFIRMED answered by REST first) is taken, but is no missed fill', async () => {
    const t = setup(
      async () => ({ orders: [], trades: [trade('T1', '0xo1', 'CONFIRMED')] }),
      { auditMs: 5000, silenceMs: 0 },
      T0,
    );
    const s = t.server.last.open().recv('PONG');
    s.recv(tradeMsg('T1', '0xo1'));
    t.clock.advance(5000);
    await flush();
    expect(fillKeys(t.events)).toEqual(['T1|0xo1|MATCHED|stream', 'T1|0xo1|CONFIRMED|reconcile']);
    expect(t.logs.some((l) => l.includes('recovered by the audit'))).toBe(false);
    // the channel's own CONFIRMED, arriving after, is not emitted again
    s.recv(tradeMsg('T1', '0xo1', 'CONFIRMED'));
    expect(fillKeys(t.events)).toHaveLength(2);
  });

  it('audit: every auditMs while synced, open orders and the trades since the last audit; what the stream missed is emitted once, nothing goes back', async () => {
    const calls: ReconcileContext[] = [];
    let answer: ReconcileResult = { orders: [], trades: [] };
    const t = setup(
      async (ctx) => {
        calls.push(ctx);
        return answer;
      },
      { auditMs: 5000, silenceMs: 0 },
      T0,
    );
    const s = t.server.last.open().recv('PONG');
    s.recv(orderMsg('0xo1', 'PLACEMENT')).recv(tradeMsg('T1', '0xo1'));
    t.clock.advance(4999);
    expect(calls).toEqual([]);
    // the channel delivered T1 but not T2, nor o1's last update (filled: 10 of 10)
    answer = { orders: [order('0xo1', 'MATCHED', '10')], trades: [trade('T1', '0xo1'), trade('T2', '0xo1')] };
    t.clock.advance(1);
    expect(calls.length).toBe(1);
    expect(calls[0]).toMatchObject({ reason: 'audit', since: T0, openOrderIds: ['0xo1'] });
    await flush();
    expect(fillKeys(t.events)).toEqual(['T1|0xo1|MATCHED|stream', 'T2|0xo1|MATCHED|reconcile']);
    const updates = t.events.filter((e) => e.type === 'order_update');
    expect(updates.length).toBe(2);
    expect(updates[1]).toMatchObject({
      kind: 'UPDATE',
      id: '0xo1',
      status: 'MATCHED',
      sizeMatched: 10_000_000,
      source: 'reconcile',
    });
    expect(t.events.filter((e) => e.type === 'resynced').length).toBe(1); // an audit is not a resync
    expect(t.stream.stats()).toMatchObject({ audits: 1, auditFailures: 0, auditRecovered: 2, recovered: 2 });
    expect(t.logs.some((l) => l.includes('recovered by the audit'))).toBe(true);
    // the next one asks from when the previous one started; the same answer emits nothing new, and a
    // later delivery of T2 by the channel is not emitted again either
    t.clock.advance(5000);
    expect(calls.length).toBe(2);
    expect(calls[1]).toMatchObject({ reason: 'audit', since: T0 + 5000 - AUDIT_GRACE_MS, openOrderIds: [] }); // o1 is filled: no longer open
    await flush();
    s.recv(tradeMsg('T2', '0xo1'));
    expect(fillKeys(t.events)).toEqual(['T1|0xo1|MATCHED|stream', 'T2|0xo1|MATCHED|reconcile']);
    expect(t.stream.stats()).toMatchObject({ audits: 2, auditRecovered: 2 });
    // a listing older than what the stream delivered meanwhile changes nothing (no state goes back)
    s.recv(orderMsg('0xo3', 'PLACEMENT')).recv(orderMsg('0xo3', 'UPDATE', 'LIVE', '4'));
    answer = { orders: [order('0xo3', 'LIVE', '0')], trades: [] };
    const before = t.events.length;
    t.clock.advance(5000);
    await flush();
    expect(t.events.length).toBe(before);
    // a fill younger than the grace is left to the stream (ordinary lag is not a miss) ...
    const nowS = String(Math.floor((t.clock.now() + 5000) / 1000)); // matched as the audit runs
    const young = { ...trade('T9', '0xo3'), match_time: nowS, last_update: nowS };
    answer = { orders: [], trades: [young] };
    t.clock.advance(5000);
    await flush();
    expect(fillKeys(t.events)).not.toContain('T9|0xo3|MATCHED|reconcile');
    // ... and taken by a later audit when the stream never delivered it
    t.clock.advance(5000);
    await flush();
    t.clock.advance(5000);
    await flush();
    expect(fillKeys(t.events)).toContain('T9|0xo3|MATCHED|reconcile');
    // an order the stream never told of is not announced by an audit (its placer knows it)
    answer = { orders: [order('0xo4', 'LIVE', '0')], trades: [] };
    const before2 = t.events.length;
    t.clock.advance(5000);
    await flush();
    expect(t.events.length).toBe(before2);
  });

  it('audit: a failure is a stream_error and the next audit comes as scheduled; none while disconnected, none in flight after a drop', async () => {
    let fail = true;
    const calls: ReconcileContext[] = [];
    let release: (r: ReconcileResult) => void = () => {};
    const t = setup(
      (ctx) => {
        calls.push(ctx);
        if (ctx.reason === 'audit' && fail) return Promise.reject(new Error('http 503'));
        if (ctx.reason === 'audit') return new Promise((r) => (release = r));
        return Promise.resolve({ orders: [], trades: [] });
      },
      { auditMs: 1000, silenceMs: 0 },
    );
    const s1 = t.server.last.open().recv('PONG');
    t.clock.advance(1000);
    await flush();
    expect(t.events[t.events.length - 1]).toMatchObject({ type: 'stream_error', reason: 'audit failed: http 503' });
    expect(t.stream.stats()).toMatchObject({ audits: 0, auditFailures: 1 });
    fail = false;
    t.clock.advance(1000);
    expect(calls.filter((c) => c.reason === 'audit').length).toBe(2);
    // the connection drops while the audit is in flight: it is aborted and its answer dropped (the
    // reconnect's reconciliation covers the gap); no audit runs while disconnected
    const inFlight = calls[calls.length - 1]!;
    s1.drop();
    expect(inFlight.signal.aborted).toBe(true);
    release({ orders: [], trades: [trade('T7', '0xo7')] });
    await flush();
    expect(fillKeys(t.events)).toEqual([]);
    expect(t.clock.pending()).toBe(1); // the reconnect timer only
    t.clock.advance(500);
    t.server.last.open().recv('PONG'); // reconnect: reconciled, then resynced
    await flush();
    expect(calls[calls.length - 1]!.reason).toBe('reconnect');
    expect(t.events[t.events.length - 1]).toMatchObject({ type: 'resynced', initial: false });
    t.clock.advance(1000);
    expect(calls[calls.length - 1]!.reason).toBe('audit'); // audits resume once synced again
    t.stream.close();
    expect(t.clock.pending()).toBe(0);
  });

  it('audit: off by default (no timer); a negative or non-finite period is refused', () => {
    const t = setup(async () => ({ orders: [], trades: [] }), { silenceMs: 0 });
    t.server.last.open().recv('PONG');
    t.clock.advance(60_000);
    expect(t.stream.stats()).toMatchObject({ audits: 0 });
    expect(() => setup(async () => ({ orders: [], trades: [] }), { auditMs: -1 })).toThrow(RangeError);
    expect(() => setup(async () => ({ orders: [], trades: [] }), { auditMs: Number.NaN })).toThrow(RangeError);
  });

  it('dynamic markets; close() aborts and completes', () => {
    const t = setup(async () => ({ orders: [], trades: [] }));
    const s = t.server.last.open().recv('PONG');
    t.stream.subscribe(['0xm2', M]);
    t.stream.unsubscribe([M]);
    expect(s.json().slice(1)).toEqual([
      { markets: ['0xm2'], operation: 'subscribe' },
      { markets: [M], operation: 'unsubscribe' },
    ]);
    t.stream.close();
    t.stream.close();
    expect(s.closed).toBe(true);
    expect(t.clock.pending()).toBe(0);
  });
});
