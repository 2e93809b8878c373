/**
 * Orders and fills the bot did not make, against the real paper exchange on loopback: the bot
 * (createTrader with the live venue, as `mmkit run` wires it) shares its wallet with another API
 * client (a second API key derived for the same wallet, nonce 1). That client's orders follow
 * `bot.foreignOrders`: left alone, cancelled, or adopted, at start and while the bot runs; its
 * fills are recorded as external (never the strategy's); and the bot never quotes into one of its
 * resting orders (self-trade prevention), although the book would let it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import type { OrderId, TokenId } from '../../src/core/ids.ts';
import type { MarketInfo } from '../../src/core/venue.ts';
import type { ForeignOrderPolicy } from '../../src/execution/executor.ts';
import { createTrader, type Trader as Bot } from '../../src/kernel/create-trader.ts';
import { resolveRiskLimits } from '../../src/risk/limits.ts';
import { openStore, type FillRecord, type Store } from '../../src/store/store.ts';
import { loadStrategy } from '../../src/strategy/loader.ts';
import { resolveParams } from '../../src/strategy/params.ts';
import type { LiveVenue } from '../../src/venues/live/live-venue.ts';
import { eventually, sleep, startVenue, yes, type TestVenue, liveVenueFor } from './support/setup.ts';
import { Trader } from './support/trader.ts';

const STRATEGY = new URL('../support/fixed-quotes-strategy.ts', import.meta.url).pathname;

let v: TestVenue;
let dir: string;
let market: MarketInfo;
beforeAll(async () => {
  v = await startVenue();
  dir = mkdtempSync(join(tmpdir(), 'mmkit-foreign-'));
  // a quiet book on m1: bid 0.45, ask 0.55 (a maker's bid for NO at 0.45), deep enough for every test
  const maker = await v.trader();
  for (const t of v.m1.tokens) expect((await maker.place(t.token_id, 'BUY', '0.45', '200')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await v?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  bot: Bot;
  venue: LiveVenue;
  store: Store;
  /** The other API client of the bot's wallet. */
  other: Trader;
  address: string;
  logs: Array<{ msg: string; obj: Record<string, unknown> }>;
  gateCodes: string[];
  fills: string[];
  external: Array<{ fill: FillRecord; change: string }>;
  stop(): Promise<void>;
}

/** A fresh wallet, its second API client, and (not started) the bot on it. */
async function setupRun(
  policy: ForeignOrderPolicy,
  params: Record<string, number>,
  more: { auditEveryMs?: number; wallet?: Wallet; storeFile?: string; epoch?: string } = {},
): Promise<Run> {
  const wallet = more.wallet ?? new Wallet(Wallet.createRandom().privateKey);
  const clock = new LiveClock();
  const venue = await liveVenueFor(v, { wallet, clock, silenceMs: 0 }, 'content');
  const all = await venue.markets();
  market = all.find((m) => m.market === v.m1.condition_id)!;
  const other = new Trader(v.clob, wallet.privateKey);
  // a second API key of the same wallet (made by the first run of a wallet given)
  const made = await other.createKey(1);
  if (more.wallet === undefined) expect(made.status).toBe(200);
  const store = openStore(more.storeFile ?? join(dir, `${policy}-${Date.now()}.db`), { clock });
  // (as `mmkit run` does before it wires the bot: a venue of another name starts a new epoch)
  const opened =
    more.epoch === undefined
      ? undefined
      : store.openEpoch({ venue: more.epoch, world: null, address: wallet.address }, clock.now());
  const def = await loadStrategy(STRATEGY);
  const logs: Run['logs'] = [];
  const log = (level: string) => (obj: object, msg?: string) =>
    void logs.push({ msg: `${level}: ${msg ?? ''}`, obj: obj as Record<string, unknown> });
  const gateCodes: string[] = [];
  const fills: string[] = [];
  const external: Run['external'] = [];
  const bot = createTrader({
    venue,
    clock,
    store,
    strategy: def,
    params: resolveParams(def.params, params),
    markets: [market],
    limits: resolveRiskLimits({}),
    log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    tickMs: 200,
    postOnly: true,
    foreignOrders: policy,
    ...(more.auditEveryMs !== undefined
      ? {
          positionAudit: {
            everyMs: more.auditEveryMs,
            ...(opened?.fresh === true
              ? { opening: opened.previous ? ('venue_reset' as const) : ('unknown' as const) }
              : {}),
            ...(opened !== undefined ? { epochStart: opened.epoch.startedAt } : {}),
            activity: (since: number) => venue.activityKinds(since),
            market: async (cid: string) => {
              const m = await venue.clob.market(cid);
              return { tokens: [m.tokens[0]!.tokenId, m.tokens[1]!.tokenId] as [TokenId, TokenId], winner: undefined };
            },
          },
        }
      : {}),
    hooks: {
      onGate: (_d, r) => {
        for (const x of r.refusals) gateCodes.push(`${x.quote.price}:${x.code}`);
      },
      onFill: (f) => void fills.push(f.orderId),
      onExternalFill: (fill, change) => void external.push({ fill, change }),
    },
  });
  let stopped = false;
  return {
    bot,
    venue,
    store,
    other,
    address: wallet.address.toLowerCase(),
    logs,
    gateCodes,
    fills,
    external,
    async stop() {
      if (stopped) return;
      stopped = true;
      await bot.stop();
      await bot.cancelAll('test end');
      const flat = await bot.verifyFlat(5000);
      await bot.close();
      store.close();
      await venue.close();
      expect(flat.flat).toBe(true);
    },
  };
}

const status = (r: Run, id: string) => v.running.exchange.getOrder(r.address, id)?.status;
/** The bot's own orders the store recorded at a price (pips). */
const botOrdersAt = (r: Run, price: number) =>
  v.running.exchange
    .openOrders(r.address)
    .filter((o) => o.price === price && r.bot.tracker.origin(o.id as OrderId) === 'own');

describe('foreign orders on the bot wallet (bot.foreignOrders)', () => {
  it("'leave': left alone at start and while running, their fills recorded as external, never crossed by the bot's quotes", async () => {
    // the bot would bid 0.50 and 0.40; the other client will rest an ask at 0.50 first
    const r = await setupRun('leave', { p1: 0.5, p2: 0.4, size: 5 });
    try {
      const Y = yes(v.m1);
      // before the bot starts: the other client buys shares (an external trade: it takes the 0.55 ask),
      // rests an ask at 0.50 with them (inside the spread) and a bid at 0.30
      const taken = await r.other.place(Y, 'BUY', '0.55', '10', { type: 'FAK' });
      expect(taken.body.success, JSON.stringify(taken.body)).toBe(true);
      const ask = await r.other.place(Y, 'SELL', '0.50', '10');
      const bid = await r.other.place(Y, 'BUY', '0.30', '5');
      expect([ask.body.status, bid.body.status]).toEqual(['live', 'live']);

      await r.bot.start();
      r.bot.startHeartbeat();
      // the start left both foreign orders and backfilled the foreign trade as external
      const reconciled = r.logs.find((l) => l.msg === 'info: reconciled with the venue')!;
      expect(reconciled.obj).toMatchObject({ foreign: 2, left: 2, canceled: 0, external: 1 });
      // the trade made before the start is named, as a fill of the user channel is (trial 13 F3)
      const named = r.logs.filter((l) => l.msg === 'info: external fill (backfilled: made while the bot was down)');
      expect(named.map((l) => [l.obj['order'] ?? l.obj['orderId'], l.obj['side'], l.obj['backfilled']])).toEqual([
        [taken.id, 'BUY', true],
      ]);
      const ext = r.store.fills().find((f) => f.orderId === taken.id)!;
      expect(ext, 'the foreign trade is in the store (the wallet holds its shares)').toBeDefined();
      expect(ext.source).toBe('external');
      expect(
        r.bot.tracker
          .foreignOrders(market.market)
          .map((o) => o.id)
          .sort(),
      ).toEqual([ask.id, bid.id].sort());

      // the bot quotes its 0.40 bid; its 0.50 bid would trade with the foreign ask: refused
      expect(await eventually(() => botOrdersAt(r, 4000).length === 1, 20_000)).toBe(true);
      expect(await eventually(() => r.gateCodes.includes('5000:SELF_TRADE'), 20_000)).toBe(true);
      expect(botOrdersAt(r, 5000)).toEqual([]);
      expect(r.store.openOrders().map((o) => o.price)).not.toContain(5000);

      // while running: another foreign order arrives on the user channel and is left alone too
      const later = await r.other.place(Y, 'BUY', '0.31', '5');
      expect(later.body.status).toBe('live');
      expect(
        await eventually(() => r.bot.tracker.origin(later.id as OrderId) === 'foreign', 20_000),
        'the user channel showed it',
      ).toBe(true);
      await sleep(1000); // a few of the bot's cycles (tick 200 ms)
      expect([status(r, ask.id), status(r, bid.id), status(r, later.id)]).toEqual(['LIVE', 'LIVE', 'LIVE']);
      expect(r.bot.executor.accountStats().foreignOrders).toMatchObject({ left: 3, cancelled: 0, adopted: 0 });

      // a fill of the other client's resting ask while the bot runs (a third party buys 5 of its 10
      // shares): external, not the bot's
      const cp = await v.trader();
      const lift = await cp.place(Y, 'BUY', '0.50', '5', { type: 'FAK' });
      expect(lift.body.success, JSON.stringify(lift.body)).toBe(true);
      expect(await eventually(() => r.external.some((x) => x.fill.orderId === ask.id), 20_000)).toBe(true);
      expect(r.external.find((x) => x.fill.orderId === ask.id)).toMatchObject({
        change: 'new',
        fill: { source: 'external', role: 'MAKER', size: 5_000_000 },
      });
      expect(r.fills).not.toContain(ask.id);
      // each external fill counted once (the first trade may also have come through the channel's
      // reconciliation at connect, before the start's backfill recorded it)
      const newOnes = r.external.filter((x) => x.change === 'new').map((x) => x.fill.orderId);
      expect(new Set(newOnes).size).toBe(newOnes.length);
      expect(newOnes.every((id) => id === taken.id || id === ask.id)).toBe(true);
      expect(r.bot.executor.accountStats().externalFills).toBe(newOnes.length);
      // what is left of the foreign ask still stops the bot's 0.50 bid
      expect(r.bot.tracker.foreignOrders(market.market).find((o) => o.id === ask.id)?.sizeMatched).toBe(5_000_000);
      r.gateCodes.length = 0;
      expect(await eventually(() => r.gateCodes.includes('5000:SELF_TRADE'), 20_000)).toBe(true);
      expect(botOrdersAt(r, 5000)).toEqual([]);
      // the wallet's truth: the position counts what the other client bought (10) and sold (5)
      expect(r.bot.engine.state.position(Y as never).size).toBe(5_000_000);
      // no trade of the bot's orders with the other client's
      const mine = new Set(r.store.openOrders().map((o) => o.id as string));
      for (const t of v.running.exchange.tradesOf(r.address))
        expect(mine.has(t.trade.takerOrderId) && t.trade.makers.some((m) => m.account === r.address)).toBe(false);

      // shutdown cancels the bot's orders only: the foreign ones still rest
      await r.stop();
      expect([status(r, ask.id), status(r, bid.id), status(r, later.id)]).toEqual(['LIVE', 'LIVE', 'LIVE']);
    } finally {
      await r.stop().catch(() => undefined);
      await r.other.l2('DELETE', '/cancel-all');
    }
  }, 90_000);

  it("'leave': another client's stream of orders is said in 10 WARN lines, then every 1000th, the others at debug (trial 13 F11)", async () => {
    const r = await setupRun('leave', { p1: 0.45, p2: 0.4, size: 5 });
    try {
      const Y = yes(v.m1);
      await r.bot.start();
      r.bot.startHeartbeat();
      const ids: string[] = [];
      for (let i = 0; i < 14; i++) {
        const o = await r.other.place(Y, 'BUY', (0.2 + i / 100).toFixed(2), '5');
        expect(o.body.status).toBe('live');
        ids.push(o.id);
      }
      expect(
        await eventually(() => ids.every((id) => r.bot.tracker.origin(id as OrderId) === 'foreign'), 20_000),
        'the user channel showed them',
      ).toBe(true);
      const lines = r.logs.filter((l) =>
        l.msg.endsWith('an order the bot did not place rests on the wallet: left alone (bot.foreignOrders)'),
      );
      expect(lines.filter((l) => l.msg.startsWith('warn: '))).toHaveLength(10);
      const quiet = lines.filter((l) => l.msg.startsWith('debug: '));
      expect(quiet).toHaveLength(4);
      expect(quiet.map((l) => l.obj['occurrences'])).toEqual([11, 12, 13, 14]);
    } finally {
      await r.stop();
    }
  });

  it("a first run on a data dir names the wallet's earlier trades as made before its ledger began, not 'while the bot was down' (trial 25 F4)", async () => {
    // (a fresh store: its first ledger epoch opens, as `mmkit run` opens it on a new data dir)
    const r = await setupRun('leave', { p1: 0.45, p2: 0.4, size: 5 }, { auditEveryMs: 60_000, epoch: 'first-run' });
    try {
      const taken = await r.other.place(yes(v.m1), 'BUY', '0.55', '10', { type: 'FAK' });
      expect(taken.body.success, JSON.stringify(taken.body)).toBe(true);
      await r.bot.start();
      const backfilled = r.logs.filter((l) => /^info: external fill \(backfilled/.test(l.msg));
      expect(backfilled.map((l) => [l.msg, l.obj['order'] ?? l.obj['orderId']])).toEqual([
        ["info: external fill (backfilled: made before this data dir's ledger began)", taken.id],
      ]);
    } finally {
      await r.stop().catch(() => undefined);
    }
  });

  it("'leave': another client's trade in a market the bot does not follow is booked once, as an external fill, by the position audit (trial 13 F16)", async () => {
    const r = await setupRun('leave', { p1: 0.45, p2: 0.4, size: 5 }, { auditEveryMs: 300 });
    try {
      await r.bot.start();
      r.bot.startHeartbeat();
      // the other client buys 10 YES in another market: a maker's ask there first
      const m2 = v.markets.find(
        (m) => !m.neg_risk && m.condition_id !== v.m1.condition_id && m.minimum_tick_size === 0.01,
      )!;
      const maker = await v.trader();
      expect((await maker.place(m2.tokens[1]!.token_id, 'BUY', '0.60', '10')).status).toBe(200); // YES ask 0.40
      const taken = await r.other.place(m2.tokens[0]!.token_id, 'BUY', '0.40', '10', { type: 'FAK' });
      expect(taken.body.success, JSON.stringify(taken.body)).toBe(true);
      const yes2 = m2.tokens[0]!.token_id as TokenId;
      const held = () => r.store.positions().find((p) => p.tokenId === yes2)?.size ?? 0;
      // the audits see the difference, confirm it, and book the trade
      expect(await eventually(() => held() === 10_000_000, 20_000), 'the store holds the 10 shares').toBe(true);
      await sleep(1500); // more audits: nothing more
      expect(held()).toBe(10_000_000);
      const fills = r.store.fills().filter((f) => f.tokenId === yes2);
      expect(fills.map((f) => [f.orderId, f.source, f.size])).toEqual([[taken.id, 'external', 10_000_000]]);
      expect(r.store.adjustments?.().filter((a) => a.tokenId === yes2) ?? []).toEqual([]);
      expect(r.logs.some((l) => l.msg === 'info: external fill (booked by the position audit)')).toBe(true);
    } finally {
      await r.stop();
    }
  });

  it("a start in a new ledger epoch counts the venue's holdings once: a fill an earlier epoch holds is not counted again (trial 15 F1)", async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const storeFile = join(dir, `epochs-${Date.now()}.db`);
    // bids far below the book: the bot itself never trades here
    const params = { p1: 0.05, p2: 0.04, size: 5 };
    const yes1 = v.m1.tokens[0]!.token_id as TokenId;
    // the other client of the wallet buys 10 YES (the maker's ask 0.55) before any run
    const first = await setupRun('leave', params, { auditEveryMs: 60_000, wallet, storeFile, epoch: 'venue-a' });
    const bought = await first.other.place(yes1, 'BUY', '0.55', '10', { type: 'FAK' });
    expect(bought.body.success, JSON.stringify(bought.body)).toBe(true);
    try {
      await first.bot.start();
      // epoch 1: the start's backfill books the trade, the engine counts it once
      expect(first.store.positions().find((p) => p.tokenId === yes1)?.size).toBe(10_000_000);
      expect(first.bot.engine.state.position(yes1).size).toBe(10_000_000);
    } finally {
      await first.stop();
    }
    // the same wallet and store on a venue of another name: a new epoch, whose start backfills the
    // account's history (the trade the first epoch holds) and opens the holdings as venue_reset
    const second = await setupRun('leave', params, { auditEveryMs: 60_000, wallet, storeFile, epoch: 'venue-b' });
    try {
      await second.bot.start();
      expect(second.store.currentEpoch()?.venue).toBe('venue-b');
      expect(second.store.positions().find((p) => p.tokenId === yes1)?.size).toBe(10_000_000);
      // the engine (risk, strategies: what an ask is sized by) holds what the venue holds, not 20
      expect(second.bot.engine.state.position(yes1).size).toBe(10_000_000);
    } finally {
      await second.stop();
    }
  });

  it("'cancel': cancelled at start and as soon as one appears while running", async () => {
    const r = await setupRun('cancel', { p1: 0.4, size: 5 });
    try {
      const Y = yes(v.m1);
      const before = await r.other.place(Y, 'BUY', '0.30', '5');
      expect(before.body.status).toBe('live');
      await r.bot.start();
      r.bot.startHeartbeat();
      expect(status(r, before.id)).toBe('CANCELED');
      expect(await eventually(() => botOrdersAt(r, 4000).length === 1, 20_000)).toBe(true);
      const later = await r.other.place(Y, 'BUY', '0.31', '5');
      expect(later.body.status).toBe('live');
      expect(await eventually(() => status(r, later.id) === 'CANCELED', 20_000)).toBe(true);
      expect(r.bot.executor.accountStats().foreignOrders.cancelled).toBe(1);
      // the bot's own quote is untouched
      expect(botOrdersAt(r, 4000)).toHaveLength(1);
      // neither is recorded as the bot's order
      expect(r.store.order(before.id as OrderId)).toBeUndefined();
      expect(r.store.order(later.id as OrderId)).toBeUndefined();
      await r.stop();
    } finally {
      await r.stop().catch(() => undefined);
    }
  }, 90_000);

  it("'adopt': taken over as the bot's own (recorded, managed by the diff: one equal to a wanted quote is kept)", async () => {
    const r = await setupRun('adopt', { p1: 0.4, size: 5 });
    try {
      const Y = yes(v.m1);
      // exactly the bot's wanted quote (0.40 x 5): adopted, the bot places no second one
      const same = await r.other.place(Y, 'BUY', '0.40', '5');
      const unwanted = await r.other.place(Y, 'BUY', '0.30', '5');
      expect([same.body.status, unwanted.body.status]).toEqual(['live', 'live']);
      await r.bot.start();
      r.bot.startHeartbeat();
      expect(r.store.order(same.id as OrderId)).toBeDefined();
      expect(r.bot.tracker.origin(same.id as OrderId)).toBe('own');
      // the unwanted one is cancelled by the diff (it is the bot's now); the wanted one kept
      expect(await eventually(() => status(r, unwanted.id) === 'CANCELED', 20_000)).toBe(true);
      await sleep(800);
      expect(status(r, same.id)).toBe('LIVE');
      expect(v.running.exchange.openOrders(r.address).map((o) => o.id)).toEqual([same.id]);
      expect(r.logs.some((l) => l.msg.includes('adopted as its own'))).toBe(true);
      await r.stop();
      expect(status(r, same.id)).toBe('CANCELED'); // the bot's now: cancelled at shutdown
    } finally {
      await r.stop().catch(() => undefined);
    }
  }, 90_000);
});
