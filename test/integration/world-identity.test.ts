/**
 * World identity of the paper exchange (`GET {clob_url}/world`, read with ClobClient.world()): a
 * fresh world gets a new random id; a world restored from its database keeps id, start and seed;
 * a venue without an identity answers 404, which the client reads as "none".
 */
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClobClient } from '../../src/api/clob.ts';
import { createTransport, type HttpTransport } from '../../src/api/http/transport.ts';
import { LiveClock } from '../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../src/exchange/exchange.ts';
import { buildHttpApp, DEFAULT_HTTP_OPTIONS } from '../../src/exchange/http/server.ts';
import { startExchange, type ExchangeServerOptions, type RunningExchange } from '../../src/exchange/server.ts';

const open: Array<RunningExchange | { close(): Promise<unknown> }> = [];
const transports: HttpTransport[] = [];
afterAll(async () => {
  for (const t of transports) await t.close();
  for (const r of open) await r.close();
});

async function start(o: Partial<ExchangeServerOptions> = {}): Promise<RunningExchange> {
  const r = await startExchange({
    port: 0,
    seed: 3,
    world: { agents: 'none', lifecycle: false, priceFeed: false },
    ...o,
  });
  open.push(r);
  return r;
}

function clobAt(url: string): ClobClient {
  const t = createTransport({ urls: { clob: url } });
  transports.push(t);
  return new ClobClient(t);
}

describe('world identity', () => {
  it('two fresh exchanges have different world ids; the wire form is {world_id, started_at, seed}', async () => {
    const t0 = Date.now();
    const a = await start();
    const b = await start({ seed: 4 });
    const wa = await clobAt(a.urls.clob_url).world();
    const wb = await clobAt(b.urls.clob_url).world();
    expect(wa).toBeDefined();
    expect(wb).toBeDefined();
    expect(wa!.worldId).not.toBe(wb!.worldId);
    expect(wa!.worldId).toMatch(/^[0-9a-f-]{36}$/);
    expect(wa!.seed).toBe(3);
    expect(wb!.seed).toBe(4);
    expect(wa!.startedAt).toBeGreaterThanOrEqual(t0 - 1000);
    expect(wa).toEqual({ ...a.identity });
    const raw = await (await fetch(`${a.urls.clob_url}/world`)).json();
    expect(raw).toEqual({ world_id: wa!.worldId, started_at: new Date(wa!.startedAt).toISOString(), seed: 3 });
  });

  it('a world restored from its database keeps its id; a new database is a new world', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-world-'));
    const db = join(dir, 'a.db');
    const r1 = await start({ dbFile: db });
    const first = await clobAt(r1.urls.clob_url).world();
    await r1.close();
    // a later start with another --seed: the database's world (and seed) win
    const r2 = await start({ dbFile: db, seed: 99 });
    const restored = await clobAt(r2.urls.clob_url).world();
    expect(restored).toEqual(first);
    await r2.close();
    const r3 = await start({ dbFile: join(dir, 'b.db') });
    expect((await clobAt(r3.urls.clob_url).world())!.worldId).not.toBe(first!.worldId);
  });

  it('a venue without a world identity answers 404: the client says undefined', async () => {
    const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock: new LiveClock() });
    const app = buildHttpApp(ex, DEFAULT_HTTP_OPTIONS);
    await app.listen({ host: '127.0.0.1', port: 0 });
    open.push(app);
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/clob`;
    expect((await fetch(`${url}/world`)).status).toBe(404);
    expect(await clobAt(url).world()).toBeUndefined();
  });
});
