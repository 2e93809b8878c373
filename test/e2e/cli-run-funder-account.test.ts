/**
 * Findings-5 F7 (its last part) through `mmkit run` and the paper exchange: a Safe run
 * (MMKIT_SIGNATURE_TYPE gnosis-safe, MMKIT_FUNDER a funder registered to the signer) is the
 * FUNDER's account throughout, although the wallet (the EOA, whose API key the run uses) traded
 * for itself before: the ledger epoch is the funder's, the EOA's fills are not backfilled (they
 * are another account's, not fills 'external' to the funder's), and the store's positions are the
 * funder's holdings, not the EOA's; `mmkit cancel-all` cancels the funder's orders only, not the EOA's own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { Trader } from '../integration/support/trader.ts';
import { Admin, BotHarness, exited, waitUntil } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const TOKEN = 'run-funder-admin';
const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run with a Safe funder (venue.signatureType gnosis-safe, venue.funder)', () => {
  it("records the funder's account: its epoch, none of the EOA's own fills, the funder's positions", async () => {
    const { ex, base } = await h.exchange(29, { adminToken: TOKEN });
    const admin = new Admin(base, TOKEN);
    const { dir, address: eoa } = h.dataDir();
    const key = readFileSync(join(dir, 'paper-wallet.key'), 'utf8').trim();
    const funder = new Wallet(Wallet.createRandom().privateKey).address.toLowerCase();
    await admin.call('POST', '/funders', { signer: eoa, funder });
    await admin.call('POST', '/balances', { address: funder, collateral: '1000' });

    // the EOA trades for itself first, with the API key the run will use (nonce 0): it buys 5 shares
    const self = new Trader(ex.urls.clob_url, key);
    self.protocol = ex.exchange.protocol;
    expect((await self.createKey(0)).status).toBe(200);
    const m = ex.exchange.listMarkets().find((x) => ex.exchange.engine.book(x.meta.tokens[0]).asks.length > 0)!;
    const token = m.meta.tokens[0];
    const ask = ex.exchange.engine.book(token).asks[0]!;
    const r = await self.place(token, 'BUY', (ask.price / 10_000).toFixed(4), '5', {
      type: 'FAK',
      tick: '0.0001',
      negRisk: m.meta.negRisk,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ex.exchange.tradesOf(eoa).length).toBeGreaterThan(0);
    // and rests a bid far below the market (the EOA's own open order)
    const rest = await self.place(token, 'BUY', '0.0100', '100', { tick: '0.0001', negRisk: m.meta.negRisk });
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    const env = {
      MMKIT_PRIVATE_KEY: key,
      // a key configured makes a loopback venue live (src/cli/venue-kind.ts): this one is a paper wallet
      MMKIT_VENUE_KIND: 'paper',
      MMKIT_SIGNATURE_TYPE: 'gnosis-safe',
      MMKIT_FUNDER: funder,
    };

    const b = h.startBot(base, dir, ['--duration', '8s'], env);
    expect(await exited(b.p), b.err().slice(-3000)).toBe(0);

    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    try {
      const epochs = db.prepare('SELECT address FROM epochs').all() as { address: string }[];
      expect(epochs.map((e) => e.address.toLowerCase())).toEqual([funder]);
      // none of the EOA's own trades is in the funder's ledger (as 'external' or otherwise)
      const eoaTrades = new Set(ex.exchange.tradesOf(eoa).map((t) => t.trade.id));
      const fills = db.prepare('SELECT trade_id, order_id, source FROM fills').all() as {
        trade_id: string;
        order_id: string;
        source: string;
      }[];
      const funderOrders = new Set(
        ex.exchange.tradesOf(funder).flatMap((t) => [t.trade.takerOrderId, ...t.trade.makers.map((x) => x.orderId)]),
      );
      for (const f of fills) {
        if (eoaTrades.has(f.trade_id)) expect(funderOrders.has(f.order_id), `EOA fill ${f.order_id} booked`).toBe(true);
        expect(f.source, `fill ${f.trade_id}`).not.toBe('external');
      }
    } finally {
      db.close();
    }
    // the store's positions are the funder's holdings (the EOA's 5 shares are not among them)
    const store = await runMmkit([
      'positions',
      '--source',
      'store',
      '--json',
      '--data-dir',
      dir,
      '--exchange-url',
      base,
    ]);
    expect(store.code, store.err).toBe(0);
    const held = (JSON.parse(store.out) as { positions: { tokenId: string; size: string }[] }).positions.filter(
      (p) => Number(p.size) !== 0,
    );
    const funderTokens = ex.exchange.engine.balance(funder).tokens;
    for (const p of held) {
      const t = funderTokens.get(p.tokenId);
      expect(t === undefined ? 0 : (t.available + t.reserved) / 1e6, `position ${p.tokenId}`).toBe(Number(p.size));
    }
    if (funderTokens.get(token) === undefined) expect(held.map((p) => p.tokenId)).not.toContain(token);
    // `mmkit orders` lists the funder's open orders (none: the run cancelled its own), not the EOA's bid
    expect(ex.exchange.openOrders(eoa).map((o) => o.id)).toContain(rest.id);
    const orders = await runMmkit(['orders', '--json', '--data-dir', dir, '--exchange-url', base], { env });
    expect(orders.code, orders.err).toBe(0);
    const listed = JSON.parse(orders.out) as { address: string; orders: { id: string }[] };
    expect(listed.address.toLowerCase()).toBe(funder);
    expect(listed.orders.map((o) => o.id)).not.toContain(rest.id);

    // `mmkit cancel-all` after the funder's daemon died (its orders resting): the funder's orders only. The
    // venue's cancel-all is per API key: it would take the EOA's own bid too (and another funder's of the key)
    const again = h.startBot(base, dir, ['--duration', '300s'], env);
    expect(
      await waitUntil(() => ex.exchange.engine.openOrders(funder).length > 0, 120_000),
      again.err().slice(-3000),
    ).toBe(true);
    again.p.kill('SIGKILL');
    await exited(again.p);
    const funderOpen = ex.exchange.engine.openOrders(funder).map((o) => o.id);
    // the EOA's own cancel-all (no funder configured): the EOA's bid only, the funder's orders (the
    // same API key's other account: another daemon's) keep resting
    const eoaEnv = { MMKIT_PRIVATE_KEY: key, MMKIT_VENUE_KIND: 'paper' };
    const own = await runMmkit(['cancel-all', '--json', '--data-dir', h.dataDir().dir, '--exchange-url', base], {
      env: eoaEnv,
    });
    expect(own.code, own.err).toBe(0);
    expect((JSON.parse(own.out) as { canceled: string[] }).canceled).toEqual([rest.id]);
    // (the paper world's traders may fill one of the funder's meanwhile: none was cancelled, most still rest)
    const funderAfter = ex.exchange.engine.openOrders(funder).map((o) => o.id);
    expect(funderOpen.length).toBeGreaterThan(0);
    expect(funderAfter.length).toBeGreaterThan(0);
    for (const id of funderAfter) expect(funderOpen).toContain(id);
    expect(own.err).toMatch(/open order\(s\) of the API key's other accounts .* left resting/);
    const rest2 = await self.place(token, 'BUY', '0.0100', '100', { tick: '0.0001', negRisk: m.meta.negRisk });
    expect(rest2.status, JSON.stringify(rest2.body)).toBe(200);

    const cancel = await runMmkit(['cancel-all', '--json', '--data-dir', dir, '--exchange-url', base], { env });
    expect(cancel.code, cancel.err).toBe(0);
    expect((JSON.parse(cancel.out) as { canceled: string[] }).canceled.length).toBeGreaterThan(0);
    expect(ex.exchange.engine.openOrders(funder)).toEqual([]);
    expect(ex.exchange.engine.openOrders(eoa).map((o) => o.id)).toContain(rest2.id);
    // it says what it left: the EOA's bid, an order of the key's other account
    expect(cancel.err).toMatch(/1 open order\(s\) of the API key's other accounts .* left resting: --all-accounts/);

    // --all-accounts: the key's cancel-all, on purpose: the EOA's own bid goes too
    const all = await runMmkit(['cancel-all', '--all-accounts', '--json', '--data-dir', dir, '--exchange-url', base], {
      env,
    });
    expect(all.code, all.err).toBe(0);
    expect((JSON.parse(all.out) as { canceled: string[] }).canceled).toContain(rest2.id);
    expect(ex.exchange.engine.openOrders(eoa)).toEqual([]);
  }, 300_000);
});
