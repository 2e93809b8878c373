/**
 * The bot signs what the venue speaks: `createLiveVenue` asks `GET /version` unless told
 * (`venue.protocol`), and a venue without the route (404, before the CLOB V2 migration) is V1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { createTransport } from '../../src/api/http/transport.ts';
import { ClobClient } from '../../src/api/clob.ts';
import { LiveClock } from '../../src/core/clock.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { tickPips } from '../../src/core/units.ts';
import type { VenueLogger } from '../../src/venues/live/live-venue.ts';
import { liveVenueFor } from './support/setup.ts';

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

const running: RunningExchange[] = [];
let old: Server | undefined;
afterAll(async () => {
  for (const r of running) await r.close();
  await new Promise<void>((r) => (old ? old.close(() => r()) : r()));
});

/** The `signing CLOB Vn orders` line of a venue's start, and the endpoints it called. */
function capture(): { logger: VenueLogger; signing(): Array<Record<string, unknown>>; endpoints(): string[] } {
  const lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const push = (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg });
  const logger = { info: push, warn: push, debug: push, error: push } as unknown as VenueLogger;
  return {
    logger,
    signing: () => lines.filter((l) => /^signing CLOB V/.test(l.msg)).map((l) => l.obj),
    endpoints: () => lines.flatMap((l) => (typeof l.obj['endpoint'] === 'string' ? [l.obj['endpoint']] : [])),
  };
}

async function venueOn(x: RunningExchange, protocol?: 1 | 2) {
  const c = capture();
  const venue = await liveVenueFor(x, {
    clock: new LiveClock(),
    silenceMs: 0,
    logger: c.logger,
    ...(protocol !== undefined ? { protocol } : {}),
  });
  await venue.close();
  return c.signing();
}

describe('order protocol detection', () => {
  it('a V2 venue builds orders from GET /clob-markets (tick, neg-risk, fee); a V1 venue asks the fee rate', async () => {
    const v2 = await startExchange({ port: 0, seed: 4, exchange: { protocol: 2 }, world: { agents: 'none' } });
    const v1 = await startExchange({ port: 0, seed: 4, exchange: { protocol: 1 }, world: { agents: 'none' } });
    running.push(v2, v1);
    for (const [x, protocol] of [
      [v2, 2],
      [v1, 1],
    ] as const) {
      const c = capture();
      const venue = await liveVenueFor(x, {
        clock: new LiveClock(),
        silenceMs: 0,
        logger: c.logger,
      });
      const m = (await venue.markets()).find((i) => i.active && i.tick === '0.01')!;
      // the exchange moves the market to a finer tick before the bot trades it: a V2 venue learns it
      // from /clob-markets when it starts trading the market (a V1 venue from the stream, later)
      x.exchange.setTickSize(m.market, tickPips('0.001'));
      const sub = venue.marketEvents([m.tokens[0].tokenId]).subscribe();
      const learned = await waitFor(() => venue.marketOfToken(m.tokens[0].tokenId)?.tick === '0.001', 10_000);
      sub.unsubscribe();
      await venue.close();
      const eps = c.endpoints();
      if (protocol === 2) {
        expect(eps).toContain(`GET /clob-markets/${m.market}`);
        expect(eps.some((e) => e.startsWith('GET /fee-rate'))).toBe(false);
        expect(learned).toBe(true);
      } else {
        expect(eps.some((e) => e.startsWith('GET /clob-markets'))).toBe(false);
        expect(eps.some((e) => e.startsWith('GET /fee-rate'))).toBe(true);
      }
    }
  });

  it('asks the venue: a V2 exchange is signed V2, a V1 exchange V1; an explicit protocol is not asked', async () => {
    const v2 = await startExchange({ port: 0, seed: 3, exchange: { protocol: 2 }, world: { agents: 'none' } });
    const v1 = await startExchange({ port: 0, seed: 3, exchange: { protocol: 1 }, world: { agents: 'none' } });
    running.push(v2, v1);
    expect(await venueOn(v2)).toEqual([{ protocol: 2, asked: true }]);
    expect(await venueOn(v1)).toEqual([{ protocol: 1, asked: true }]);
    expect(await venueOn(v2, 1)).toEqual([{ protocol: 1, asked: false }]);
  });

  it('a venue without GET /version (404) speaks V1; a version this client does not know is refused', async () => {
    let answer: { status: number; body: string } = { status: 404, body: '{"error":"not found"}' };
    old = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
    await new Promise<void>((r) => old!.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(old.address() as AddressInfo).port}`;
    const t = createTransport({
      urls: { clob: base },
      signer: new Wallet(Wallet.createRandom().privateKey),
      chainId: 137,
      clock: new LiveClock(),
    });
    const clob = new ClobClient(t);
    expect(await clob.version()).toBe(1);
    answer = { status: 200, body: '{"version":2}' };
    expect(await clob.version()).toBe(2);
    answer = { status: 200, body: '{"version":3}' };
    await expect(clob.version()).rejects.toThrow(/version/);
    await t.close();
  });
});
