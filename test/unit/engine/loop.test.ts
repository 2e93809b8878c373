import { describe, expect, it } from 'vitest';
import { Subject } from 'rxjs';
import type { MmkitEvent, RtdsEvent } from '../../../src/core/events.ts';
import type { DesiredQuotes, StrategyOutput } from '../../../src/core/intents.ts';
import type { Pips, Micro } from '../../../src/core/units.ts';
import type { ConditionId } from '../../../src/core/ids.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import {
  createEngine,
  type EngineOptions,
  errAt,
  PRICE_CHECK_MS,
  readableLocation,
  STRATEGY_FAILING_AFTER,
} from '../../../src/engine/loop.ts';
import type { StrategyState } from '../../../src/strategy/api.ts';
import {
  CID,
  CID2,
  disconnected,
  FakeVenue,
  fill,
  flush,
  level,
  market,
  NO,
  NO2,
  order,
  resolved,
  resynced,
  snap,
  YES,
  YES2,
} from './fixtures.ts';
import { approved, approvedOrder, passGates } from '../../support/approve.ts';

const quote = (at: number, price = 4500): DesiredQuotes => ({
  market: CID,
  quotes: [{ tokenId: YES, side: 'BUY', price: price as Pips, size: 5e6 as Micro }],
  at,
});

/** An engine on a FakeVenue with a recording strategy (quotes CID on every event by default). */
async function setup(
  o: Partial<EngineOptions> & {
    onEvent?: (e: MmkitEvent, s: StrategyState) => StrategyOutput | undefined;
    noStart?: boolean;
  } = {},
) {
  const venue = new FakeVenue();
  const seen: Array<{ type: string; bestBid: number | null | undefined }> = [];
  const executed: DesiredQuotes[] = [];
  const logs: string[] = [];
  const logObjs: object[] = [];
  const engine = createEngine({
    ...passGates,
    venue,
    markets: [market(), market(CID2, YES2, NO2)],
    clock: venue.clock,
    strategy: {
      onEvent(e, s) {
        seen.push({ type: e.type, bestBid: s.book(YES)?.bestBid });
        return o.onEvent ? o.onEvent(e, s) : { quotes: [quote(s.now)] };
      },
    },
    execute: (d) => executed.push(d),
    logger: {
      info: () => {},
      warn: (_o, m) => logs.push(String(m)),
      error: (ob, m) => (logObjs.push(ob), logs.push(String(m))),
    },
    ...o,
  });
  if (!o.noStart) await engine.start();
  const feedBooks = () => {
    venue.user$.next(resynced('user', true));
    for (const [t, c] of [
      [YES, CID],
      [NO, CID],
      [YES2, CID2],
      [NO2, CID2],
    ] as const)
      venue.market$.next(snap(t, [[4000, 10e6]], [[6000, 10e6]], c));
    venue.market$.next(resynced('market', true));
  };
  return { venue, engine, seen, executed, logs, logObjs, feedBooks };
}

describe('engine loop: order and state', () => {
  it('updates the state before the strategy sees the event', async () => {
    const { venue, seen, feedBooks } = await setup();
    feedBooks();
    seen.length = 0;
    venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    expect(seen).toEqual([{ type: 'level_change', bestBid: 4100 }]);
  });

  it('processes events strictly in order, even when one is emitted while another is processed', async () => {
    const order: string[] = [];
    let injected = false;
    const ctx = await setup({
      onEvent(e) {
        order.push(`strategy:${e.type}`);
        if (e.type === 'level_change' && !injected) {
          injected = true;
          // a synchronous source emitting from inside the handler: must wait its turn
          ctx.venue.market$.next(level(YES, 'BUY', 4200, 1e6, { bid: 4200, ask: 6000 }));
          order.push('after-inner-next');
        }
        return undefined;
      },
    });
    ctx.feedBooks();
    order.length = 0;
    ctx.engine.events$.subscribe((e) => order.push(`done:${e.type}`));
    ctx.venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    expect(order).toEqual([
      'strategy:level_change',
      'after-inner-next',
      'done:level_change',
      'strategy:level_change',
      'done:level_change',
    ]);
    expect(ctx.engine.state.book(YES)!.bestBid).toBe(4200);
  });

  it('merges market, user and timer events into one ordered stream; fills go to onFill before the strategy', async () => {
    const trail: string[] = [];
    const ctx = await setup({
      timers: { tickMs: 1000, balanceMs: 0 },
      onFill: (f) => {
        trail.push(`onFill:${f.tradeId}:${ctx.engine.state.position(YES).size}`);
      },
      onEvent(e) {
        trail.push(`strategy:${e.type}${e.type === 'timer' ? `:${e.name}` : ''}`);
        return undefined;
      },
    });
    trail.length = 0;
    ctx.venue.user$.next(fill('t1', 'o1', 'MATCHED'));
    ctx.venue.clock.advance(1000);
    ctx.venue.market$.next(snap(YES, [[4000, 1]], [[6000, 1]]));
    expect(trail).toEqual(['onFill:t1:10000000', 'strategy:fill', 'strategy:timer:tick', 'strategy:book_snapshot']);
    expect(ctx.engine.stats().events).toBeGreaterThanOrEqual(3);
  });

  it("a fill onFill says is 'external' (an order the bot did not place) moves the position but never reaches the strategy", async () => {
    const trail: string[] = [];
    const ctx = await setup({
      timers: { tickMs: 0, balanceMs: 0 },
      onFill: (f) => (f.orderId === 'theirs' ? 'external' : undefined),
      onEvent(e) {
        trail.push(`strategy:${e.type}${e.type === 'fill' ? `:${e.orderId}` : ''}`);
        return undefined;
      },
    });
    trail.length = 0;
    ctx.venue.user$.next(fill('t1', 'theirs', 'MATCHED'));
    expect(trail).toEqual([]);
    expect(ctx.engine.state.position(YES).size).toBe(10_000_000); // the wallet's truth
    ctx.venue.user$.next(fill('t2', 'mine', 'MATCHED'));
    expect(trail).toEqual(['strategy:fill:mine']);
    expect(ctx.engine.state.position(YES).size).toBe(20_000_000);
  });

  it("a fill ignoreFill drops (another fleet member's) reaches nothing: not the position, onFill, the strategy nor events$", async () => {
    const trail: string[] = [];
    const ctx = await setup({
      timers: { tickMs: 0, balanceMs: 0 },
      ignoreFill: (f) => f.orderId === 'member',
      onFill: (f) => {
        trail.push(`onFill:${f.orderId}`);
      },
      onEvent(e) {
        trail.push(`strategy:${e.type}`);
        return undefined;
      },
    });
    ctx.engine.events$.subscribe((e) => trail.push(`done:${e.type}`));
    trail.length = 0;
    ctx.venue.user$.next(fill('t1', 'member', 'MATCHED'));
    expect(trail).toEqual([]);
    expect(ctx.engine.state.position(YES).size).toBe(0);
    ctx.venue.user$.next(fill('t2', 'mine', 'MATCHED'));
    expect(trail).toEqual(['onFill:mine', 'strategy:fill', 'done:fill']);
    expect(ctx.engine.state.position(YES).size).toBe(10_000_000);
  });
});

describe('engine loop: stale books pull quotes', () => {
  it('nothing is quoted before every book of the market is fresh; then the strategy output passes', async () => {
    const { venue, executed, feedBooks, engine } = await setup();
    // ready fired with stale books: both markets pulled (an empty set each)
    expect(executed.map((d) => [d.market, d.quotes.length])).toEqual([
      [CID, 0],
      [CID2, 0],
    ]);
    executed.length = 0;
    venue.market$.next(snap(YES, [[4000, 1]], [[6000, 1]]));
    expect(executed).toEqual([]); // NO still stale, user not synced
    feedBooks();
    expect(executed.length).toBeGreaterThan(0);
    expect(executed.at(-1)!.quotes).toHaveLength(1);
    expect(engine.pulled().size).toBe(0);
  });

  it('a disconnected market stream pulls every market at once (one empty set each), drops quotes until the resync, then resumes', async () => {
    const { venue, executed, feedBooks, engine } = await setup();
    feedBooks();
    executed.length = 0;
    const resumes0 = engine.stats().resumes;
    venue.market$.next(disconnected('market'));
    expect(executed).toEqual([
      { market: CID, quotes: [], at: venue.clock.now() },
      { market: CID2, quotes: [], at: venue.clock.now() },
    ]);
    executed.length = 0;
    // the strategy keeps asking: dropped
    venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    venue.market$.next({ type: 'stream_error', stream: 'market', reason: 'x', venueTime: 0, recvTime: 0 });
    expect(executed).toEqual([]);
    expect(engine.stats().dropped).toBeGreaterThan(0);
    expect(engine.stats().pulls).toBe(2);
    // fresh snapshots: quoting resumes
    venue.market$.next(snap(YES, [[4000, 1]], [[6000, 1]]));
    venue.market$.next(snap(NO, [[4000, 1]], [[6000, 1]]));
    expect(executed.at(-1)!.quotes).toHaveLength(1);
    expect(engine.stats().resumes - resumes0).toBe(1); // CID2 still waits for its snapshots
  });

  it('a crossed book pulls its market only, asks the venue for a fresh snapshot, and resumes on it', async () => {
    const { venue, executed, feedBooks, engine } = await setup();
    feedBooks();
    executed.length = 0;
    venue.market$.next(level(YES, 'BUY', 6000, 1e6, { bid: 6000, ask: 6000 }));
    expect(executed).toEqual([{ market: CID, quotes: [], at: venue.clock.now() }]);
    expect(venue.resyncs).toEqual([[YES]]);
    expect([...engine.pulled()]).toEqual([CID]);
    venue.market$.next(snap(YES, [[4000, 1]], [[6000, 1]]));
    expect(engine.pulled().size).toBe(0);
  });

  it('a resolved market is pulled for good', async () => {
    const { venue, executed, feedBooks } = await setup();
    feedBooks();
    executed.length = 0;
    venue.market$.next(resolved(CID));
    expect(executed).toEqual([{ market: CID, quotes: [], at: venue.clock.now() }]);
    executed.length = 0;
    venue.market$.next(snap(YES, [[4000, 1]], [[6000, 1]]));
    venue.market$.next(snap(NO, [[4000, 1]], [[6000, 1]]));
    expect(executed).toEqual([]);
  });

  it('losing the user channel pulls too', async () => {
    const { venue, executed, feedBooks } = await setup();
    feedBooks();
    executed.length = 0;
    venue.user$.next(disconnected('user'));
    expect(executed.map((d) => d.quotes.length)).toEqual([0, 0]);
  });
});

describe('engine loop: errors never kill the loop', () => {
  it('a throwing strategy is counted and logged; the next event goes on', async () => {
    let n = 0;
    const { venue, engine, executed, feedBooks, logs } = await setup({
      onEvent: (_e, s) => {
        if (++n % 2 === 0) throw new Error('boom');
        return { quotes: [quote(s.now)] };
      },
    });
    feedBooks();
    for (let i = 0; i < 6; i++) venue.market$.next(level(YES, 'BUY', 4100 + i, 1e6, { bid: 4100 + i, ask: 6000 }));
    expect(engine.stats().errors.strategy).toBeGreaterThanOrEqual(3);
    expect(logs.some((l) => /strategy handler threw/.test(l))).toBe(true);
    expect(executed.length).toBeGreaterThan(2);
    expect(engine.state.book(YES)!.bestBid).toBe(4105);
  });

  it('a ctx.clock callback that throws: counted and logged always, judged only while quoting (trial 23 F1, review 48b F4)', async () => {
    const { engine, executed, feedBooks, logs } = await setup({ noStart: true });
    // before the start's reconciliation: counted, nothing pulled
    for (let i = 0; i < STRATEGY_FAILING_AFTER + 1; i++) engine.strategyCallbackThrew(new Error('early'));
    expect(engine.stats().errors.strategy).toBe(STRATEGY_FAILING_AFTER + 1);
    expect(engine.stats().firstStrategyError?.message).toBe('early');
    expect(engine.stats().strategyFailing).toBeUndefined();
    expect(logs.filter((l) => l === 'strategy timer callback threw')).toHaveLength(STRATEGY_FAILING_AFTER + 1);
    await engine.start();
    feedBooks();
    executed.length = 0;
    // while quoting: five in a row pull every market (a timer's error concerns them all)
    for (let i = 0; i < STRATEGY_FAILING_AFTER; i++) engine.strategyCallbackThrew(new Error('late'));
    expect(engine.stats().strategyFailing?.markets).toEqual([CID, CID2]);
    expect(executed.map((d) => [d.market, d.quotes.length])).toEqual([
      [CID, 0],
      [CID2, 0],
    ]);
    // after stop: counted, nothing handed
    await engine.stop();
    executed.length = 0;
    engine.strategyCallbackThrew(new Error('after'));
    expect(executed).toEqual([]);
  });

  it('a strategy that errs on every evaluation gets its quotes pulled, and quotes again once it evaluates (trial 21 F1)', async () => {
    let broken = false;
    const { venue, engine, executed, feedBooks, logs } = await setup({
      onEvent: (_e, s) => {
        if (broken) throw new Error('late21');
        return { quotes: [quote(s.now)] };
      },
    });
    feedBooks();
    expect(executed.at(-1)!.quotes).toHaveLength(1);
    broken = true;
    executed.length = 0;
    const ev = (i: number) => venue.market$.next(level(YES, 'BUY', 4100 + i, 1e6, { bid: 4100 + i, ask: 6000 }));
    for (let i = 0; i < STRATEGY_FAILING_AFTER - 1; i++) ev(i);
    // not yet: a strategy that erred now and then keeps its quotes
    expect(executed).toEqual([]);
    expect(engine.stats().strategyFailing).toBeUndefined();
    ev(10);
    // the market of those events pulled (an empty set), said at error
    expect(executed).toEqual([{ market: CID, quotes: [], at: venue.clock.now() }]);
    expect(engine.stats().strategyFailing).toMatchObject({
      consecutive: STRATEGY_FAILING_AFTER,
      lastError: 'late21',
      markets: [CID],
    });
    expect(logs.some((l) => /erred on 5 evaluations in a row \(no output between\) for 1 market/.test(l))).toBe(true);
    ev(11);
    expect(executed).toHaveLength(1); // pulled once
    // it evaluates again: its quotes go out, the failing state is gone
    broken = false;
    ev(12);
    expect(executed.at(-1)!.quotes).toHaveLength(1);
    expect(engine.stats().strategyFailing).toBeUndefined();
  });

  it('counted per market: errors on one market while the other gives outputs pull that one alone (review 47 F2)', async () => {
    const { venue, engine, executed, feedBooks } = await setup({
      onEvent: (e, s) => {
        if (e.type === 'level_change' && e.market === CID2) throw new Error('broken on CID2');
        return e.type === 'level_change' ? { quotes: [quote(s.now)] } : undefined;
      },
    });
    feedBooks();
    executed.length = 0;
    for (let i = 0; i < STRATEGY_FAILING_AFTER; i++) {
      venue.market$.next(level(YES, 'BUY', 4100 + i, 1e6, { bid: 4100 + i, ask: 6000 }));
      venue.market$.next(level(YES2, 'BUY', 4100 + i, 1e6, { bid: 4100 + i, ask: 6000 }, true, CID2));
    }
    expect(executed.filter((d) => d.market === CID2)).toEqual([{ market: CID2, quotes: [], at: venue.clock.now() }]);
    expect(executed.filter((d) => d.market === CID).every((d) => d.quotes.length === 1)).toBe(true);
    expect(engine.stats().strategyFailing?.markets).toEqual([CID2]);
  });

  it('invalid outputs count as errors too; evaluations with no output do not end the row, an output does', async () => {
    let mode: 'bad' | 'none' | 'ok' = 'none';
    const { venue, engine, executed, feedBooks } = await setup({
      onEvent: (_e, s) =>
        mode === 'bad'
          ? ({ qoutes: [] } as unknown as StrategyOutput)
          : mode === 'ok'
            ? { quotes: [quote(s.now)] }
            : undefined,
    });
    feedBooks();
    executed.length = 0;
    mode = 'bad';
    for (let i = 0; i < STRATEGY_FAILING_AFTER - 1; i++)
      venue.market$.next(level(YES, 'BUY', 4100 + i, 1e6, { bid: 4100 + i, ask: 6000 }));
    mode = 'ok';
    venue.market$.next(level(YES, 'BUY', 4200, 1e6, { bid: 4200, ask: 6000 }));
    executed.length = 0;
    mode = 'bad';
    for (let i = 0; i < STRATEGY_FAILING_AFTER - 1; i++)
      venue.market$.next(level(YES, 'BUY', 4300 + i, 1e6, { bid: 4300 + i, ask: 6000 }));
    expect(engine.stats().strategyFailing).toBeUndefined();
    // (a strategy broken on its timer may answer book events with nothing: that does not end the row)
    mode = 'none';
    venue.market$.next(level(YES, 'BUY', 4350, 1e6, { bid: 4350, ask: 6000 }));
    expect(executed).toEqual([]);
    mode = 'bad';
    venue.market$.next(level(YES, 'BUY', 4400, 1e6, { bid: 4400, ask: 6000 }));
    expect(engine.stats().strategyFailing?.lastError).toMatch(/^invalid output: unknown key "qoutes"/);
    expect(executed).toEqual([{ market: CID, quotes: [], at: venue.clock.now() }]);
  });

  it('a non-Error throw is shown as util.inspect shows it, not [object Object]', async () => {
    const { venue, engine, feedBooks } = await setup({
      onEvent: () => {
        throw { code: 42 };
      },
    });
    feedBooks();
    venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    expect(engine.stats().firstStrategyError).toEqual({ message: '{ code: 42 }' });
  });

  it.each([
    ["a typo'd key", () => ({ qoutes: [] }), 'invalid output: unknown key "qoutes" (expected quotes|orders)'],
    [
      'quotes not an array',
      () => ({ quotes: 42 }),
      'invalid output: quotes must be an array of { market, quotes, at }, got 42',
    ],
    [
      'a string',
      () => 'hello',
      "invalid output: onEvent returned 'hello': expected { quotes?: [...], orders?: [...] } or undefined",
    ],
    [
      "a market not the instance's",
      (now: number) => ({ quotes: [{ ...quote(now), market: '0xdeadbeef' }] }),
      "invalid output: quotes[0].market 0xdeadbeef is not one of this instance's markets",
    ],
    [
      'an entry whose quotes is not an array',
      (now: number) => ({ quotes: [{ market: CID, quotes: 'abc', at: now }] }),
      "invalid output: quotes[0].quotes must be an array of quotes, got 'abc'",
    ],
    [
      "an order of a market not the instance's",
      () => ({ orders: [{ market: '0xother', tokenId: YES, side: 'BUY', price: 5000, size: 5e6, type: 'FAK' }] }),
      "invalid output: orders[0].market 0xother is not one of this instance's markets",
    ],
    [
      'an entry without at (trial 10 F15)',
      (now: number) => ({ quotes: [{ ...quote(now), at: undefined }] }),
      'invalid output: quotes[0].at must be the time the quotes were made (state.now), got undefined',
    ],
    [
      'a market listed twice (trial 10 F15)',
      (now: number) => ({ quotes: [quote(now), { market: CID, quotes: [], at: now }] }),
      `invalid output: quotes[1].market ${CID} is also quotes[0]'s: one entry per market (it is the market's whole set)`,
    ],
    [
      'a quote with a type (trial 10 F15)',
      (now: number) => ({
        quotes: [
          { market: CID, quotes: [{ tokenId: YES, side: 'BUY', price: 4000, size: 5e6, type: 'FOK' }], at: now },
        ],
      }),
      'invalid output: quotes[0].quotes[0] has the unknown key "type" (a quote is { tokenId, side, price, size }, a GTC limit order; FOK/FAK orders go in `orders`, post-only is bot.postOnly)',
    ],
    [
      'a quote that is not an object (trial 10 F15)',
      (now: number) => ({ quotes: [{ market: CID, quotes: [null], at: now }] }),
      'invalid output: quotes[0].quotes[0] must be { tokenId, side, price, size }, got null',
    ],
    [
      'an immediate order without a type (trial 10 F19)',
      () => ({ orders: [{ market: CID, tokenId: YES, side: 'BUY', price: 5000, size: 5e6 }] }),
      "invalid output: orders[0].type must be 'FOK' or 'FAK' (an immediate order), got undefined",
    ],
    [
      'an immediate order of type GTC (trial 10 F19)',
      () => ({ orders: [{ market: CID, tokenId: YES, side: 'BUY', price: 5000, size: 5e6, type: 'GTC' }] }),
      "invalid output: orders[0].type must be 'FOK' or 'FAK' (an immediate order), got 'GTC': a resting order is a quote (`quotes`)",
    ],
    [
      'a Promise (an async onEvent)',
      (now: number) => Promise.resolve({ quotes: [quote(now)] }),
      'invalid output: onEvent returned a Promise (an async handler?): handlers must be synchronous, its output is ignored',
    ],
  ])(
    'an invalid output (%s) is a strategy error: counted, logged, the whole output dropped',
    async (_what, make, why) => {
      const sent: unknown[] = [];
      const { venue, engine, executed, feedBooks, logObjs, logs } = await setup({
        onEvent: (_e, s) => make(s.now) as never,
        executeOrders: (orders) => sent.push(...orders),
      });
      feedBooks();
      venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
      await flush();
      expect(engine.stats().errors.strategy).toBeGreaterThan(0);
      expect(engine.stats().firstStrategyError).toEqual({ message: why });
      expect(logs).toContain('strategy output invalid (output dropped)');
      expect(logObjs).toContainEqual(expect.objectContaining({ err: why }));
      // nothing of it went on: only the pulls of the start
      expect(executed.every((d) => d.quotes.length === 0)).toBe(true);
      expect(sent).toEqual([]);
      expect(engine.stats().outputs).toBe(0);
    },
  );

  it('an async onEvent that rejects is reported as an invalid output, never as an unhandled rejection', async () => {
    const { venue, engine, feedBooks } = await setup({
      onEvent: (() => Promise.reject(new Error('async boom'))) as never,
    });
    feedBooks();
    venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    await flush();
    expect(engine.stats().firstStrategyError?.message).toMatch(/returned a Promise/);
  });

  it('null is no output (as undefined): no error', async () => {
    const { venue, engine, feedBooks } = await setup({ onEvent: () => null as never });
    feedBooks();
    venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    expect(engine.stats().errors).toMatchObject({ strategy: 0, state: 0 });
  });

  it('a strategy error is logged with its stack head and file:line; the first one is kept in the stats', async () => {
    let n = 0;
    const { venue, engine, feedBooks, logObjs } = await setup({
      onEvent: () => {
        throw new Error(`boom ${++n}`);
      },
    });
    feedBooks();
    venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    const first = engine.stats().firstStrategyError;
    expect(first?.message).toBe('boom 1');
    expect(first?.at).toMatch(/loop\.test\.ts:\d+:\d+$/);
    const line = logObjs.find((x) => 'stack' in x) as { err: string; at: string; stack: string };
    expect(line.err).toBe('boom 1');
    expect(line.at).toMatch(/loop\.test\.ts:\d+:\d+$/);
    expect(line.stack).toMatch(/^Error: boom 1\n\s+at /);
  });

  it('a bad event is counted (state error), not given to the strategy; the loop goes on', async () => {
    const { venue, engine, seen, feedBooks } = await setup();
    feedBooks();
    seen.length = 0;
    venue.market$.next(snap(YES, [[0, 1]], []));
    expect(engine.stats().errors.state).toBe(1);
    expect(seen).toEqual([]);
    venue.market$.next(snap(YES, [[4000, 1]], [[6000, 1]]));
    expect(seen.map((x) => x.type)).toEqual(['book_snapshot']);
  });

  it('a throwing gate fails closed (the market is pulled); a throwing executor is counted', async () => {
    let gateThrows = true;
    let execThrows = false;
    const executed: DesiredQuotes[] = [];
    const { venue, engine, feedBooks } = await setup({
      gate: (d) => {
        if (gateThrows) throw new Error('risk down');
        return approved({ ...d, quotes: d.quotes.filter((q) => q.price <= 4500) });
      },
      execute: (d) => {
        if (execThrows) throw new Error('exec down');
        executed.push(d);
      },
    });
    feedBooks();
    expect(executed.at(-1)).toMatchObject({ market: CID, quotes: [] });
    expect(engine.stats().errors.gate).toBeGreaterThan(0);
    gateThrows = false;
    venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    expect(executed.at(-1)!.quotes).toHaveLength(1);
    execThrows = true;
    venue.market$.next(level(YES, 'BUY', 4200, 1e6, { bid: 4200, ask: 6000 }));
    expect(engine.stats().errors.execute).toBe(1);
    execThrows = false;
    venue.market$.next(level(YES, 'BUY', 4300, 1e6, { bid: 4300, ask: 6000 }));
    expect(executed.at(-1)!.quotes).toHaveLength(1);
  });

  it('a source that errors becomes a disconnected event (books stale, quotes pulled); the other sources go on', async () => {
    const { venue, engine, executed, feedBooks } = await setup();
    feedBooks();
    executed.length = 0;
    venue.market$.error(new Error('socket exploded'));
    expect(engine.stats().errors.source).toBe(1);
    expect(engine.state.book(YES)!.stale).toBe(true);
    expect(executed.map((d) => d.quotes.length)).toEqual([0, 0]);
    venue.user$.next(fill('t9', 'o9', 'MATCHED'));
    expect(engine.state.position(YES).size).toBe(10e6);
  });
});

describe('engine loop: strategy calls', () => {
  it('counts every evaluation, erring or not (not in stats(): a backtest result keeps its shape)', async () => {
    let n = 0;
    const { venue, engine, seen, feedBooks } = await setup({
      onEvent: (_e, s) => {
        if (++n % 2 === 0) throw new Error('every other');
        return { quotes: [quote(s.now)] };
      },
    });
    feedBooks();
    venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    const calls = engine.strategyCalls();
    expect(calls.evaluations).toBe(seen.length);
    expect(calls.evaluations).toBeGreaterThan(2);
    expect(calls.failed).toBe(engine.stats().errors.strategy);
    expect(calls.failed).toBe(Math.floor(seen.length / 2));
    expect(calls.measured).toBeUndefined(); // not asked for
    expect(engine.stats()).not.toHaveProperty('evaluations');
  });

  it('measures the handler and what it asks the gate for only when asked (measureStrategy)', async () => {
    let slow = true;
    const { venue, engine, feedBooks } = await setup({
      measureStrategy: true,
      onEvent: (_e, s) => {
        if (slow) {
          slow = false;
          const end = performance.now() + 30;
          while (performance.now() < end) {
            /* busy */
          }
        }
        return {
          quotes: [
            {
              market: CID,
              quotes: [
                { tokenId: YES, side: 'BUY', price: 4500 as Pips, size: 5e6 as Micro },
                { tokenId: YES, side: 'BUY', price: 4400 as Pips, size: 5e6 as Micro },
              ],
              at: s.now,
            },
          ],
          orders: [{ market: CID, tokenId: YES, side: 'BUY', price: 4500 as Pips, size: 1e6 as Micro, type: 'FOK' }],
        };
      },
    });
    feedBooks();
    for (let i = 0; i < 3; i++) venue.market$.next(level(YES, 'BUY', 4100 + i, 1e6, { bid: 4100 + i, ask: 6000 }));
    const m = engine.strategyCalls().measured!;
    expect(m.calls).toBe(engine.strategyCalls().evaluations);
    expect(m.slowestMs).toBeGreaterThanOrEqual(30);
    expect(m.p99Ms).toBeLessThanOrEqual(m.slowestMs);
    expect(m.p99Ms).toBeGreaterThan(0);
    // each call once the books are whole: 2 quotes and 1 immediate order handed to the gate
    expect(m.asked % 3).toBe(0);
    expect(m.asked).toBeGreaterThanOrEqual(9);
  });
});

describe('engine lifecycle', () => {
  it('no strategy call and no quoting until the reconciliation has succeeded; adopted orders and backfilled fills join the state', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const ctx = await setup({
      noStart: true,
      reconcile: async () => {
        await gate;
        return {
          adopted: [
            {
              id: 'old' as never,
              market: CID,
              tokenId: YES,
              side: 'BUY',
              price: 4000 as never,
              originalSize: 5e6 as never,
              sizeMatched: 0 as never,
              status: 'LIVE',
            },
          ],
          fills: [
            { tradeId: 'bf', orderId: 'old', tokenId: YES, side: 'BUY', price: 4000, size: 2e6, status: 'CONFIRMED' },
          ],
        };
      },
    });
    const started = ctx.engine.start();
    await flush();
    ctx.feedBooks();
    expect(ctx.seen).toEqual([]); // state builds, strategy waits
    expect(ctx.executed).toEqual([]);
    expect(ctx.engine.ready).toBe(false);
    expect(ctx.engine.state.book(YES)!.stale).toBe(false);
    release();
    await started;
    expect(ctx.engine.ready).toBe(true);
    expect(ctx.seen.map((x) => x.type)).toEqual(['timer']); // the 'engine.ready' tick
    expect(ctx.executed.at(-1)!.quotes).toHaveLength(1);
    expect(ctx.engine.state.openOrders(CID).map((o) => o.id)).toEqual(['old']);
    expect(ctx.engine.state.position(YES).size).toBe(2e6);
    // the same fill from the stream later: counted once
    ctx.venue.user$.next(fill('bf', 'old', 'CONFIRMED', { size: 2e6 as never }));
    expect(ctx.engine.state.position(YES).size).toBe(2e6);
  });

  it('a failed reconciliation rejects start and leaves the engine stopped, never quoting', async () => {
    const ctx = await setup({ noStart: true, reconcile: async () => Promise.reject(new Error('venue down')) });
    await expect(ctx.engine.start()).rejects.toThrow(/venue down/);
    ctx.feedBooks();
    expect(ctx.seen).toEqual([]);
    expect(ctx.executed).toEqual([]);
    expect(ctx.engine.ready).toBe(false);
  });

  it('stop is idempotent and ends processing; the balance is refreshed on the clock', async () => {
    const ctx = await setup({ timers: { tickMs: 0, balanceMs: 1000 } });
    expect(ctx.engine.state.availableCollateral).toBe(1_000_000_000);
    ctx.venue.balanceAnswer = { available: 5 as Micro, reserved: 7 as Micro };
    ctx.venue.clock.advance(1000);
    await flush();
    expect(ctx.engine.state.availableCollateral).toBe(5);
    expect(ctx.engine.state.reservedCollateral).toBe(7);
    let completed = false;
    ctx.engine.events$.subscribe({ complete: () => (completed = true) });
    await Promise.all([ctx.engine.stop(), ctx.engine.stop()]);
    await ctx.engine.stop();
    expect(completed).toBe(true);
    const n = ctx.engine.stats().events;
    ctx.feedBooks();
    expect(ctx.engine.stats().events).toBe(n);
    expect(ctx.venue.clock.pending()).toBe(0);
  });

  it('a market the re-read shows inactive is pulled (no market_resolved needed) until it is active again; a reward change reaches the strategy; the strategy factory gets the state', async () => {
    let got: unknown;
    const ctx = await setup({ timers: { tickMs: 0, balanceMs: 0, marketsPollMs: 1000 } });
    ctx.feedBooks();
    ctx.executed.length = 0;
    ctx.seen.length = 0;
    // without venue.market: the listing, the followed markets only
    ctx.venue.markets = async () => [market(), market(CID2, YES2, NO2, { active: false }), market('0xother' as never)];
    ctx.venue.clock.advance(1000);
    await flush(10);
    // pulled (the strategy's output on the event, for CID, goes on)
    expect(ctx.executed.filter((d) => d.market === CID2)).toEqual([
      { market: CID2, quotes: [], at: ctx.venue.clock.now() },
    ]);
    expect(ctx.engine.pulled().has(CID2)).toBe(true);
    expect(ctx.engine.state.isResolved(CID2)).toBe(false);
    expect(ctx.engine.state.market(CID2)?.active).toBe(false);
    expect(ctx.engine.state.whyNotQuotable(CID2)).toMatch(/market closed/);
    expect(ctx.seen.map((x) => x.type)).toEqual(['market_updated']);
    // the same listing again: no change, no event
    ctx.venue.clock.advance(1000);
    await flush(10);
    expect(ctx.seen.map((x) => x.type)).toEqual(['market_updated']);
    // reopened, with a reward config now (the tick stays the market channel's)
    const rewards = { maxSpread: 350 as Pips, minSize: 50_000_000 as Micro, dailyRate: 65_000_000 as Micro };
    ctx.venue.markets = async () => [market(), market(CID2, YES2, NO2, { rewards, tick: '0.001' })];
    ctx.venue.clock.advance(1000);
    await flush(10);
    expect(ctx.engine.pulled().has(CID2)).toBe(false);
    expect(ctx.engine.state.market(CID2)?.rewards).toEqual(rewards);
    expect(ctx.engine.state.market(CID2)?.tick).toBe('0.01');
    expect(ctx.seen.map((x) => x.type)).toEqual(['market_updated', 'market_updated']);
    // with venue.market: one read per followed market
    const asked: string[] = [];
    ctx.venue.markets = async () => {
      throw new Error('the listing is not read when the venue reads one market');
    };
    (ctx.venue as { market?: (id: ConditionId) => Promise<MarketInfo | undefined> }).market = async (id) => {
      asked.push(id);
      return id === CID ? market(CID, YES, NO, { minOrderSize: 10_000_000 as Micro }) : undefined;
    };
    ctx.venue.clock.advance(1000);
    await flush(10);
    expect(asked).toEqual([CID, CID2]);
    expect(ctx.engine.state.market(CID)?.minOrderSize).toBe(10_000_000);
    expect(ctx.engine.state.market(CID2)?.rewards).toEqual(rewards);
    // a venue that does not answer: one re-read at a time, however many periods pass
    asked.length = 0;
    let answer: (() => void) | undefined;
    (ctx.venue as { market?: (id: ConditionId) => Promise<MarketInfo | undefined> }).market = (id) => {
      asked.push(id);
      return new Promise((r) => (answer = () => r(undefined)));
    };
    for (let i = 0; i < 5; i++) {
      ctx.venue.clock.advance(1000);
      await flush(5);
    }
    expect(asked).toEqual([CID]);
    answer?.();
    await flush(5);
    expect(asked).toEqual([CID, CID2]);
    const venue = new FakeVenue();
    const e2 = createEngine({
      ...passGates,
      venue,
      markets: [market()],
      clock: venue.clock,
      strategy: (state) => {
        got = state.markets;
        return { onEvent: () => undefined };
      },
    });
    expect(got).toBe(e2.state.markets);
  });

  it('immediate orders pass gateOrders then executeOrders', async () => {
    const sent: unknown[] = [];
    const ctx = await setup({
      onEvent: () => ({
        orders: [
          { market: CID, tokenId: YES, side: 'BUY', price: 5000 as Pips, size: 5e6 as Micro, type: 'FAK' },
          { market: CID, tokenId: YES, side: 'BUY', price: 9000 as Pips, size: 5e6 as Micro, type: 'FAK' },
        ],
      }),
      gateOrders: (orders) => orders.filter((x) => x.price < 6000).map(approvedOrder),
      executeOrders: (orders) => sent.push(...orders),
    });
    ctx.feedBooks();
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((x) => (x as { price: number }).price === 5000)).toBe(true);
  });

  it("gateOrders gets the same output's approved quote sets (they replace their markets' orders first)", async () => {
    const seen: unknown[][] = [];
    const quotes = [{ tokenId: YES, side: 'SELL' as const, price: 5600 as Pips, size: 5e6 as Micro }];
    const ctx = await setup({
      onEvent: () => ({
        quotes: [{ market: CID, quotes, at: 1 }],
        orders: [{ market: CID, tokenId: YES, side: 'SELL', price: 5000 as Pips, size: 5e6 as Micro, type: 'FAK' }],
      }),
      gateOrders: (_orders, _state, replacing) => {
        seen.push([...replacing]);
        return [];
      },
    });
    ctx.feedBooks();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.length === 1 && (r[0] as { quotes: unknown }).quotes !== undefined)).toBe(true);
    expect((seen[0]![0] as { market: string; quotes: unknown[] }).market).toBe(CID);
    expect((seen[0]![0] as { quotes: unknown[] }).quotes).toEqual(quotes);
  });

  it('terminalCapacity bounds the finished order ids the state remembers (a backtest sets it; a late update of a forgotten one revives it)', async () => {
    const run = async (cap: number | undefined) => {
      const { venue, engine } = await setup(cap === undefined ? {} : { terminalCapacity: cap });
      for (const id of ['a', 'b']) {
        venue.user$.next(order(id, 'LIVE'));
        venue.user$.next(order(id, 'CANCELED'));
      }
      venue.user$.next(order('a', 'LIVE')); // a late update of the first
      const open = engine.state.openOrders(CID).map((o) => o.id);
      await engine.stop();
      return open;
    };
    expect(await run(undefined)).toEqual([]);
    expect(await run(1)).toEqual(['a']);
  });
});

describe('engine loop: a handler that blocks the loop (trial 10 F23)', () => {
  const busy = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      /* a handler that blocks */
    }
  };
  it('with stallWarnMs, a call over it is named in a warning with the event and its duration', async () => {
    let slow = false;
    const { venue, logs, feedBooks } = await setup({
      stallWarnMs: 20,
      onEvent: () => {
        if (slow) busy(60);
        return undefined;
      },
    });
    feedBooks();
    expect(logs.filter((l) => l.includes('blocked the event loop'))).toEqual([]);
    slow = true;
    venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    expect(logs.filter((l) => l.includes('blocked the event loop'))).toHaveLength(1);
    expect(logs.find((l) => l.includes('blocked the event loop'))).toMatch(
      /^strategy onEvent blocked the event loop for 0\.\d s/,
    );
  });
  it('without it (backtests), nothing is timed or said', async () => {
    const { venue, logs, feedBooks } = await setup({ onEvent: () => (busy(30), undefined) });
    feedBooks();
    venue.market$.next(level(YES, 'BUY', 4100, 1e6, { bid: 4100, ask: 6000 }));
    expect(logs.filter((l) => l.includes('blocked the event loop'))).toEqual([]);
  });
});

describe('engine loop: price symbols without a price (trial 10 F24)', () => {
  class PricedVenue extends FakeVenue {
    readonly price$ = new Subject<RtdsEvent>();
    priceEvents(): Subject<RtdsEvent> {
      return this.price$;
    }
  }
  it('names once, a while after the start, the symbols that had no price', async () => {
    const pv = new PricedVenue();
    const { logs, engine } = await setup({
      venue: pv,
      clock: pv.clock,
      priceSymbols: ['BTCUSDT', 'nosuchcoin'],
      onEvent: () => undefined,
    });
    const now = pv.clock.now();
    pv.price$.next({ type: 'price_tick', symbol: 'btcusdt', value: 1, snapshot: true, venueTime: now, recvTime: now });
    const said = () => logs.filter((l) => l.startsWith('no real-time price'));
    pv.clock.advance(PRICE_CHECK_MS - 1);
    expect(said()).toEqual([]);
    pv.clock.advance(2);
    expect(said()).toEqual([
      "no real-time price for nosuchcoin 30 s after the start: a symbol the venue does not have? (the strategy's priceSymbols)",
    ]);
    pv.clock.advance(10 * PRICE_CHECK_MS);
    expect(said()).toHaveLength(1);
    await engine.stop();
  });
  it('says nothing when every symbol had a price, nor after a stop', async () => {
    const pv = new PricedVenue();
    const { logs, engine } = await setup({
      venue: pv,
      clock: pv.clock,
      priceSymbols: ['btcusdt'],
      onEvent: () => undefined,
    });
    const now = pv.clock.now();
    pv.price$.next({ type: 'price_tick', symbol: 'BTCUSDT', value: 1, snapshot: false, venueTime: now, recvTime: now });
    pv.clock.advance(PRICE_CHECK_MS + 1);
    expect(logs.filter((l) => l.startsWith('no real-time price'))).toEqual([]);
    const pv2 = new PricedVenue();
    const second = await setup({ venue: pv2, clock: pv2.clock, priceSymbols: ['x'], onEvent: () => undefined });
    await second.engine.stop();
    pv2.clock.advance(PRICE_CHECK_MS + 1);
    expect(second.logs.filter((l) => l.startsWith('no real-time price'))).toEqual([]);
    await engine.stop();
  });
});

describe('errAt / readableLocation', () => {
  // tsx's compiled CommonJS (a .ts plugin outside a "type": "module" package) ran from a data: URL
  // holding the whole plugin; that URL must never be the location a summary or a log shows
  const dataUrl = `data:text/javascript,${encodeURIComponent('__filename="/home/u/strat/boom.ts";(()=>{ /* 3 KB */ })()')}?filePath=%2Fhome%2Fu%2Fstrat%2Fboom.ts:2:2406`;

  it('keeps a file location as it is', () => {
    expect(readableLocation('/home/u/strat/boom.ts:108:15')).toBe('/home/u/strat/boom.ts:108:15');
    const e = new Error('boom');
    e.stack = 'Error: boom\n    at Object.onEvent (/home/u/strat/boom.ts:108:15)\n    at x (file:///a.js:1:2)';
    expect(errAt(e)).toBe('/home/u/strat/boom.ts:108:15');
  });

  it("shows a .js plugin's file:// URL as its path, as a .ts plugin's (trial 10 F7)", () => {
    expect(readableLocation('file:///work/trial/plain.js:17:44')).toBe('/work/trial/plain.js:17:44');
    expect(readableLocation('file:///home/u/my%20strat/a.js:3:9')).toBe('/home/u/my strat/a.js:3:9');
    const e = new Error('boom');
    e.stack = 'Error: boom\n    at Object.onEvent (file:///work/trial/plain.js:17:44)';
    expect(errAt(e)).toBe('/work/trial/plain.js:17:44');
  });

  it('turns a data: URL into the file it names and the compiled position', () => {
    expect(readableLocation(dataUrl)).toBe('/home/u/strat/boom.ts (compiled code at 2:2406)');
    const e = new Error('boom');
    e.stack = `Error: boom\n    at Object.onEvent (${dataUrl})`;
    expect(errAt(e)).toBe('/home/u/strat/boom.ts (compiled code at 2:2406)');
    expect(readableLocation('data:text/javascript,export%20default%201:1:5')).toBe(
      'a module compiled in memory (data: URL) (compiled code at 1:5)',
    );
  });
});
