/**
 * EXACTNESS of the market channel under live flow: clients that apply the snapshot, then every
 * price_change, and replace their book on every `book`, hold exactly GET /book at every quiescent
 * moment. A driver places, cancels and crosses random orders from several accounts at a few hundred
 * operations per second (fewer on a loaded machine) until at least MIN_CHECKPOINTS checkpoints and
 * MIN_OPS operations are done (a count, not a wall-clock window: a slow machine takes longer instead
 * of checking less; MAX_RUN_MS is only a cap); at each checkpoint it pauses, the test waits until no frame
 * arrives for 50 ms and compares every mirror with GET /book (prices and sizes), and checks that the
 * last hash each client received is the hash of the book it holds (GET /book's rule, at the
 * message's timestamp).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookMirror } from '../../src/exchange/ws/market-map.ts';
import { getJson, no, sleep, startVenue, yes, type TestVenue } from './support/setup.ts';
import { FlowDriver } from './support/flow-driver.ts';
import { WsClient } from './support/ws-client.ts';

const MIN_CHECKPOINTS = 100;
const MIN_OPS = 4000; // ~2x what the change/trade/best_bid_ask floors below need (the flow is seeded)
const MAX_RUN_MS = 160_000; // a cap under the test's timeout: falling short fails the asserts below, with the counts
const SLICE_MS = 250; // driver time between checkpoints
const OPS_PER_TICK = 4; // every ~10 ms: a few hundred operations per second

let v: TestVenue;
beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: false, scale: 1, queueMs: 0 } } });
});
afterAll(async () => v?.close());

/** A mirroring client: the book mirror plus what it needs to recompute the last hash per asset. */
class Mirror {
  readonly book = new BookMirror();
  readonly last = new Map<string, { hash: string; timestamp: string }>();
  readonly meta = new Map<string, { market: string; min_order_size: string; tick_size: string; neg_risk: boolean }>();
  readonly lastTrade = new Map<string, string>();
  applied = 0;
  constructor(readonly c: WsClient) {}
  /** Applies every event received since the last call. */
  drain(): void {
    const evs = this.c.events;
    for (; this.applied < evs.length; this.applied++) {
      const e = evs[this.applied];
      this.book.apply(e);
      if (e.event_type === 'book') {
        this.last.set(e.asset_id, { hash: e.hash, timestamp: e.timestamp });
        this.meta.set(e.asset_id, {
          market: e.market,
          min_order_size: e.min_order_size,
          tick_size: e.tick_size,
          neg_risk: e.neg_risk,
        });
        this.lastTrade.set(e.asset_id, e.last_trade_price);
      } else if (e.event_type === 'price_change') {
        for (const pc of e.price_changes) this.last.set(pc.asset_id, { hash: pc.hash, timestamp: e.timestamp });
      } else if (e.event_type === 'last_trade_price') {
        this.lastTrade.set(e.asset_id, e.price);
      } else if (e.event_type === 'error') {
        throw new Error(`error frame: ${JSON.stringify(e)}`);
      }
    }
  }
  /** The hash of the mirrored book with GET /book's rule at the last message's timestamp. */
  recomputedHash(asset: string): string {
    const lv = this.book.levels(asset)!;
    const m = this.meta.get(asset)!;
    const last = this.last.get(asset)!;
    const bids = [...lv.bids]
      .map(([price, size]) => ({ price, size }))
      .sort((x, y) => Number(x.price) - Number(y.price));
    const asks = [...lv.asks]
      .map(([price, size]) => ({ price, size }))
      .sort((x, y) => Number(y.price) - Number(x.price));
    const summary = {
      market: m.market,
      asset_id: asset,
      timestamp: last.timestamp,
      hash: '',
      bids,
      asks,
      min_order_size: m.min_order_size,
      tick_size: m.tick_size,
      neg_risk: m.neg_risk,
      last_trade_price: this.lastTrade.get(asset) ?? '',
    };
    return createHash('sha1').update(JSON.stringify(summary)).digest('hex');
  }
}

const asMap = (levels: Array<{ price: string; size: string }>) => new Map(levels.map((l) => [l.price, l.size]));

describe('market channel exactness under live flow', () => {
  it('mirrors equal GET /book at every quiescent checkpoint over 100+ checkpoints of random flow', async () => {
    const m = v.m1;
    const tokens = [yes(m), no(m)] as const;
    const driver = new FlowDriver(v.running.exchange, tokens, { seed: 11, accounts: 5 });
    // some depth before anyone subscribes
    for (let i = 0; i < 300; i++) driver.step();

    const open = async (assets: string[], custom: boolean) => {
      const c = await WsClient.open(`${v.running.urls.ws_url}/ws/market`);
      c.send({ assets_ids: assets, type: 'market', custom_feature_enabled: custom });
      return new Mirror(c);
    };
    const both = await open([...tokens], false);
    const noOnly = await open([tokens[1]], true);
    const yesOnly = await open([tokens[0]], false);
    const mirrors: Array<[Mirror, string[]]> = [
      [both, [...tokens]],
      [noOnly, [tokens[1]]],
      [yesOnly, [tokens[0]]],
    ];
    for (const [mm, assets] of mirrors)
      await mm.c.until(
        () => assets.every((a) => mm.c.events.some((e) => e.event_type === 'book' && e.asset_id === a)),
        5000,
        'snapshots',
      );

    let running = false;
    const loop = () => {
      if (!running) return;
      for (let i = 0; i < OPS_PER_TICK; i++) driver.step();
      setTimeout(loop, 10);
    };

    let checkpoints = 0;
    let hashChecks = 0;
    let drivenMs = 0;
    const t0 = Date.now();
    const ops0 = driver.ops;
    while ((checkpoints < MIN_CHECKPOINTS || driver.ops - ops0 < MIN_OPS) && Date.now() - t0 < MAX_RUN_MS) {
      running = true;
      const s0 = Date.now();
      loop();
      await sleep(SLICE_MS);
      running = false;
      drivenMs += Date.now() - s0;
      await Promise.all(mirrors.map(([mm]) => mm.c.quiet(50)));
      const rest = await Promise.all(tokens.map((t) => getJson(`${v.clob}/book?token_id=${t}`)));
      for (const [mm, assets] of mirrors) {
        mm.drain();
        expect(mm.c.closed).toBeUndefined();
        for (const asset of assets) {
          const rb = rest[asset === tokens[0] ? 0 : 1];
          const lv = mm.book.levels(asset)!;
          expect(lv.bids, `bids of ${asset === tokens[0] ? 'YES' : 'NO'} at checkpoint ${checkpoints}`).toEqual(
            asMap(rb.bids),
          );
          expect(lv.asks, `asks of ${asset === tokens[0] ? 'YES' : 'NO'} at checkpoint ${checkpoints}`).toEqual(
            asMap(rb.asks),
          );
          expect(mm.recomputedHash(asset)).toBe(mm.last.get(asset)!.hash);
          hashChecks++;
        }
      }
      checkpoints++;
    }
    const ops = driver.ops - ops0;
    const trades = both.c.events.filter((e) => e.event_type === 'last_trade_price').length;
    const bbas = noOnly.c.events.filter((e) => e.event_type === 'best_bid_ask').length;
    console.log(
      `exactness: ${checkpoints} checkpoints, ${hashChecks} hash checks, ${ops} ops (${Math.round(ops / (drivenMs / 1000))}/s while driving), ` +
        `${both.book.changes} + ${noOnly.book.changes} + ${yesOnly.book.changes} changes applied, ${trades} last_trade_price, ${bbas} best_bid_ask`,
    );
    expect(checkpoints).toBeGreaterThanOrEqual(MIN_CHECKPOINTS);
    // the driver really drove (a count; its speed is the benchmarks' business, not this test's)
    expect(ops).toBeGreaterThanOrEqual(MIN_OPS);
    expect(both.book.changes).toBeGreaterThan(5000);
    expect(noOnly.book.changes).toBeGreaterThan(2000);
    expect(trades).toBeGreaterThan(100);
    expect(bbas).toBeGreaterThan(100);
    for (const [mm] of mirrors) mm.c.close();
    driver.cancelAll();
  }, 180_000);
});
