/**
 * The synthetic world running on the paper exchange in virtual time: agents trade through the
 * matching engine, markets close, resolve and roll, crypto prices are published; the engine's
 * invariants hold throughout, and a restart from the journal carries on where the world stopped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import type { TimedCommand } from '../../src/exchange/commands.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange, type ExchangeEvent } from '../../src/exchange/exchange.ts';
import { DEFAULT_FEE_ACCOUNT } from '../../src/exchange/matching/engine.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { seedWorld, startWorld, type RunningWorld, type WorldOptions } from '../../src/exchange/world/index.ts';
import { CRYPTO_SYMBOLS } from '../../src/exchange/world/model.ts';

const T0 = Date.UTC(2025, 0, 6, 12, 0, 7);
const SEED = 21;
const LIVE: WorldOptions = { seed: SEED, agents: 'default', lifecycle: true, priceFeed: true };

interface Harness {
  clock: VirtualClock;
  ex: PaperExchange;
  world: RunningWorld;
  journal: TimedCommand[];
  events: ExchangeEvent[];
  /** Fraction of (market, sample) pairs whose book had both a bid and an ask. */
  twoSided(): number;
  run(ms: number): void;
  stop(): void;
}

function harness(opts: WorldOptions, clock = new VirtualClock(T0), replay?: TimedCommand[]): Harness {
  const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock });
  const journal: TimedCommand[] = [];
  if (replay) ex.replay(replay);
  ex.setSink({ append: (c) => journal.push(c) });
  if (!replay) seedWorld(ex, opts.seed);
  const events: ExchangeEvent[] = [];
  ex.subscribe((evs) => {
    for (const e of evs)
      if (e.type === 'trade' || e.type === 'crypto_price' || e.type === 'new_market' || e.type === 'market_status')
        events.push(e);
  });
  ex.start();
  const world = startWorld(ex, opts);
  let samples = 0;
  let two = 0;
  return {
    clock,
    ex,
    world,
    journal,
    events,
    twoSided: () => two / samples,
    run(ms) {
      for (let t = 0; t < ms; t += 1000) {
        clock.advance(1000);
        if (clock.now() % 5000 < 1000) {
          for (const m of ex.listMarkets()) {
            if (m.state.status !== 'active') continue;
            const b = ex.engine.bestBidAsk(m.meta.tokens[0]);
            samples++;
            if (b.bid !== null && b.ask !== null) two++;
          }
        }
      }
    },
    stop() {
      world.stop();
      ex.stop();
    },
  };
}

/** Every account the engine has seen trade or be funded. */
function accountsOf(h: Harness): string[] {
  const out = new Set<string>([DEFAULT_FEE_ACCOUNT, ...Object.values(h.world.accounts).flat()]);
  for (const t of h.ex.allTrades()) {
    out.add(t.trade.takerAccount);
    for (const m of t.trade.makers) out.add(m.account);
  }
  return [...out];
}

function checkInvariants(h: Harness, funded: number): void {
  const ex = h.ex;
  for (const a of accountsOf(h)) {
    const b = ex.engine.balance(a);
    expect(b.collateral, a).toBeGreaterThanOrEqual(0);
    expect(b.collateralReserved, a).toBeGreaterThanOrEqual(0);
    for (const [tok, x] of b.tokens) {
      expect(x.available, tok).toBeGreaterThanOrEqual(0);
      expect(x.reserved, tok).toBeGreaterThanOrEqual(0);
    }
  }
  // collateral is conserved: what was funded is either collateral or backs a YES/NO pair
  const tot = ex.engine.totals();
  let pairs = 0;
  for (const m of ex.listMarkets()) {
    const y = tot.tokenSupply.get(m.meta.tokens[0]) ?? 0;
    const n = tot.tokenSupply.get(m.meta.tokens[1]) ?? 0;
    expect(y, m.meta.question).toBe(n);
    if (m.state.status === 'resolved') expect(y).toBe(0);
    pairs += y;
  }
  expect(tot.collateral + pairs).toBe(funded);
  expect(tot.fees).toBeGreaterThanOrEqual(0);
}

const fundedBy = (cmds: readonly TimedCommand[]) => cmds.reduce((s, c) => s + (c.k === 'fund' ? c.micro : 0), 0);

describe('the default world in virtual time', () => {
  let h: Harness;
  beforeAll(() => {
    h = harness(LIVE);
    h.run(25 * 60_000);
  });
  afterAll(() => h.stop());

  it('trades on its markets through the matching engine, with few refusals', () => {
    const trades = h.events.filter((e) => e.type === 'trade');
    expect(trades.length).toBeGreaterThan(2000);
    const traded = new Set(trades.map((e) => (e.type === 'trade' ? e.trade.market : '')));
    expect(traded.size).toBeGreaterThan(30);
    const s = h.world.stats();
    expect(s.errors, s.lastError).toBe(0);
    const refused = Object.values(s.rejected).reduce((a, b) => a + b, 0);
    expect(refused / s.orders).toBeLessThan(0.01);
    // tens of order operations per second, not thousands
    const opsPerSec = (s.orders + s.cancels) / (25 * 60);
    expect(opsPerSec).toBeGreaterThan(8);
    expect(opsPerSec).toBeLessThan(100);
  });

  it('keeps books two-sided most of the time', () => {
    expect(h.twoSided()).toBeGreaterThan(0.9);
  });

  it('informed traders take liquidity, and some of the providers fills are adverse', () => {
    const informed = new Set(h.world.accounts.informed);
    const lp = new Set(h.world.accounts.lp);
    const fromInformed = h.ex
      .allTrades()
      .filter((t) => informed.has(t.trade.takerAccount) && t.trade.makers.some((m) => lp.has(m.account)));
    expect(fromInformed.length).toBeGreaterThan(20);
  });

  it('closes, resolves and rolls markets, and links the new ones to their events', () => {
    const closed = h.events.filter((e) => e.type === 'market_status' && e.status === 'closed');
    const resolved = h.events.filter((e) => e.type === 'market_status' && e.status === 'resolved');
    const created = h.events.filter((e) => e.type === 'new_market');
    expect(closed.length).toBeGreaterThanOrEqual(4);
    expect(resolved.length).toBeGreaterThanOrEqual(4);
    expect(created.length).toBeGreaterThanOrEqual(4);
    for (const m of h.ex.listMarkets()) {
      const ev = h.ex.world.eventOfMarket.get(m.meta.conditionId);
      expect(ev?.id).toBe(m.meta.eventId);
      expect(h.ex.world.events.get(m.meta.eventId!)!.marketIds).toContain(m.meta.conditionId);
      if (m.state.status === 'resolved') expect(m.meta.tokens).toContain(m.state.winningToken);
    }
    // a rolling series always has an open window, chained to the previous one
    const btc = h.ex.world.events.get(
      [...h.ex.world.events.values()].find((e) => e.seriesSlug === 'btc-up-or-down-5m')!.id,
    )!;
    expect(btc.marketIds.length).toBeGreaterThanOrEqual(5);
    const last = h.ex.market(btc.marketIds[btc.marketIds.length - 1]!)!;
    expect(last.state.status).toBe('active');
    expect(last.meta.cryptoSymbol).toBe('btcusdt');
    // the outcome of a resolved up/down window follows the published price
    const first = h.ex.market(btc.marketIds[0]!)!;
    expect(first.state.status).toBe('resolved');
  });

  it('publishes crypto prices about once a second per symbol, near realistic levels', () => {
    for (const s of CRYPTO_SYMBOLS) {
      const ticks = h.events.filter((e) => e.type === 'crypto_price' && e.symbol === s);
      expect(ticks.length).toBeGreaterThanOrEqual(25 * 60 - 2);
      const values = ticks.map((e) => (e.type === 'crypto_price' ? e.value : 0));
      expect(Math.max(...values) / Math.min(...values)).toBeLessThan(1.2);
    }
    const btc = h.events.find((e) => e.type === 'crypto_price' && e.symbol === 'btcusdt');
    expect(btc?.type === 'crypto_price' && btc.value > 50_000 && btc.value < 150_000).toBe(true);
  });

  it('keeps balances non-negative and conserves collateral', () => {
    checkInvariants(h, fundedBy(h.journal));
  });

  it('hidden probabilities stay in [0, 1] and are not in the exchange', () => {
    for (const m of h.ex.listMarkets()) {
      const f = h.world.fair(m.meta.conditionId);
      expect(f).toBeGreaterThanOrEqual(0);
      expect(f).toBeLessThanOrEqual(1);
    }
  });
});

describe('restart from the journal', () => {
  it('replays to the same state, does not fund twice, recomputes the hidden state and carries on', () => {
    const a = harness(LIVE);
    a.run(6 * 60_000);
    const cmds = [...a.journal];
    const at = a.clock.now();
    const live = a.ex.listMarkets().filter((m) => m.state.status !== 'resolved');
    const fair = live.map((m) => a.world.fair(m.meta.conditionId));
    const price = a.world.cryptoPrice('btcusdt');
    const books = a.ex.listMarkets().map((m) => a.ex.engine.book(m.meta.tokens[0]));
    const totals = a.ex.engine.totals();
    a.stop();

    const b = harness(LIVE, new VirtualClock(at), cmds);
    expect(b.ex.listMarkets().map((m) => b.ex.engine.book(m.meta.tokens[0]))).toEqual(books);
    expect(b.ex.engine.totals()).toEqual(totals);
    expect(live.map((m) => b.world.fair(m.meta.conditionId))).toEqual(fair);
    expect(b.world.cryptoPrice('btcusdt')).toBe(price);
    b.run(3 * 60_000);
    expect(b.journal.filter((c) => c.k === 'fund')).toEqual([]);
    expect(b.world.stats().rejected['INVALID_ORDER_DUPLICATED'] ?? 0).toBe(0);
    expect(b.world.stats().errors).toBe(0);
    expect(b.events.filter((e) => e.type === 'trade').length).toBeGreaterThan(100);
    checkInvariants(b, fundedBy(cmds));
    b.stop();
  });
});

describe('agents off', () => {
  it('nothing trades, nobody is funded, and the lifecycle still runs', () => {
    const h = harness({ ...LIVE, agents: 'none' });
    h.run(10 * 60_000);
    expect(h.events.filter((e) => e.type === 'trade')).toEqual([]);
    expect(h.journal.filter((c) => c.k === 'place' || c.k === 'fund')).toEqual([]);
    expect(h.events.some((e) => e.type === 'market_status' && e.status === 'resolved')).toBe(true);
    h.stop();
    expect(h.clock.pending()).toBe(0);
  });

  it('with everything off the world changes nothing', () => {
    const h = harness({ ...LIVE, agents: 'none', lifecycle: false, priceFeed: false });
    const before = h.journal.length;
    h.run(5 * 60_000);
    expect(h.journal.length).toBe(before);
    expect(h.events).toEqual([]);
    h.stop();
  });
});

describe('over HTTP', () => {
  let r: RunningExchange | undefined;
  afterAll(async () => r?.close());

  it('the served books of a running default world are two-sided', async () => {
    const clock = new VirtualClock(T0);
    r = await startExchange({
      port: 0,
      seed: 3,
      clock,
      world: { agents: 'default', lifecycle: true, priceFeed: true },
    });
    clock.advance(30_000);
    const clob = r.urls.clob_url;
    const markets = r.exchange.listMarkets().filter((m) => m.state.status === 'active');
    let two = 0;
    for (const m of markets.slice(0, 10)) {
      const book = (await (await fetch(`${clob}/book?token_id=${m.meta.tokens[0]}`)).json()) as {
        bids: unknown[];
        asks: unknown[];
      };
      if (book.bids.length > 0 && book.asks.length > 0) two++;
    }
    expect(two).toBeGreaterThanOrEqual(9);
  });
});
