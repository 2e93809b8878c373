/**
 * --db and the dead-man switch (findings-6 F10): an account that had heartbeated before the stop is
 * armed again at restart, its 10 s window counted from the restart, so orders replayed from the
 * journal do not rest unguarded. A client that heartbeats in time keeps its orders; one that does
 * not loses them 10 s after the restart. An account whose switch fired (or that never heartbeated)
 * is not armed by a restart. Each exchange runs on a virtual clock, so 10 s pass instantly.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { listMarkets, Trader, type MarketInfo } from './support/trader.ts';
import { yes } from './support/setup.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-deadman-db-'));
const running: RunningExchange[] = [];
afterAll(async () => Promise.all(running.map((r) => r.close())));

async function start(dbFile: string, clock: VirtualClock): Promise<RunningExchange> {
  const r = await startExchange({
    port: 0,
    seed: 5,
    dbFile,
    clock,
    world: { agents: 'none', lifecycle: false, priceFeed: false },
  });
  running.push(r);
  return r;
}

/** The same trader (wallet and API key) against another exchange's URL. */
function again(t: Trader, r: RunningExchange): Trader {
  const t2 = new Trader(r.urls.clob_url, t.wallet.privateKey);
  t2.protocol = t.protocol;
  t2.creds = t.creds;
  return t2;
}

async function openIds(t: Trader): Promise<string[]> {
  const r = await t.l2('GET', '/data/orders');
  expect(r.status).toBe(200);
  return (r.body.data as Array<{ id: string }>).map((o) => o.id).sort();
}

async function heartbeat(t: Trader): Promise<void> {
  const r = await t.l2('POST', '/v1/heartbeats', { heartbeat_id: null });
  expect(r.status).toBe(200);
}

describe('persistence with --db: the dead-man switch', () => {
  it('re-arms every account that had heartbeated, its 10 s window counted from the restart', async () => {
    const db = join(dir, 'a.db');
    const clock1 = new VirtualClock(Date.now());
    const r1 = await start(db, clock1);
    const m: MarketInfo = (await listMarkets(r1.urls.clob_url)).find(
      (x) => !x.neg_risk && x.minimum_tick_size === 0.01,
    )!;
    const mk = async (): Promise<Trader> => {
      const t = new Trader(r1.urls.clob_url);
      t.protocol = r1.exchange.protocol;
      expect((await t.createKey()).status).toBe(200);
      return t;
    };
    const [silent, keeper, never] = [await mk(), await mk(), await mk()];
    const place = async (t: Trader, px: string): Promise<string> => {
      const r = await t.place(yes(m), 'BUY', px, '10');
      expect(r.body.status).toBe('live');
      return r.id as string;
    };
    const silentIds = [await place(silent, '0.30'), await place(silent, '0.31')].sort();
    const keeperIds = [await place(keeper, '0.32')];
    const neverIds = [await place(never, '0.33')];
    await heartbeat(silent);
    await heartbeat(keeper);
    clock1.advance(5_000); // within the window: nothing cancelled before the stop
    expect(await openIds(silent)).toEqual(silentIds);
    await r1.close();

    // the restart comes a minute after the last heartbeat: the window counts from the restart, not
    // from the heartbeat before the stop (else the orders would go at the first tick, before any
    // client could reconnect)
    const clock2 = new VirtualClock(clock1.now() + 60_000);
    const r2 = await start(db, clock2);
    const [silent2, keeper2, never2] = [again(silent, r2), again(keeper, r2), again(never, r2)];
    clock2.advance(1_000);
    expect(await openIds(silent2)).toEqual(silentIds);
    expect(await openIds(keeper2)).toEqual(keeperIds);
    clock2.advance(8_000); // 9 s after the restart: the keeper's client reconnects and heartbeats
    await heartbeat(keeper2);
    clock2.advance(1_500); // 10.5 s after the restart
    expect(await openIds(silent2)).toEqual([]);
    expect((await silent2.l2('GET', `/data/order/${silentIds[0]}`)).body.status).toBe('CANCELED');
    expect(await openIds(keeper2)).toEqual(keeperIds);
    expect(await openIds(never2)).toEqual(neverIds); // never heartbeated: never armed
    clock2.advance(9_000); // 10.5 s after the keeper's last heartbeat: it is armed, and silent now
    expect(await openIds(keeper2)).toEqual([]);
    expect(await openIds(never2)).toEqual(neverIds);

    // the switch fired for both: a restart does not arm them again (the disarm is journaled too),
    // so an order placed after the firing, with no heartbeat since, rests across the restart
    const later = await (async () => {
      const r = await silent2.place(yes(m), 'BUY', '0.29', '10');
      expect(r.body.status).toBe('live');
      return r.id as string;
    })();
    await r2.close();
    const clock3 = new VirtualClock(clock2.now() + 1_000);
    const r3 = await start(db, clock3);
    clock3.advance(30_000);
    expect(await openIds(again(silent, r3))).toEqual([later]);
    expect(await openIds(again(never, r3))).toEqual(neverIds);
  });
});
