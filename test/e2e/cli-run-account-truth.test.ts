/**
 * Account truth through the CLI and the paper exchange (issue 15): the store's positions follow the
 * venue's holdings whatever happens outside the bot, and a fresh world starts a new ledger epoch.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/core/units.ts';
import { Trader } from '../integration/support/trader.ts';
import {
  Admin,
  BotHarness,
  botFills,
  exited,
  logLines,
  makeBotFill,
  waitForQuotes,
  waitUntil,
} from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const h = new BotHarness();
afterAll(() => h.close());

/** `mmkit positions --json` of a data dir: non-zero sizes by token. */
async function positions(source: 'store' | 'venue', dir: string, base: string): Promise<Record<string, string>> {
  const r = await runMmkit(['positions', '--source', source, '--json', '--data-dir', dir, '--exchange-url', base]);
  expect(r.code, r.err).toBe(0);
  const j = JSON.parse(r.out) as { positions: { tokenId: string; size: string }[] };
  const out: Record<string, string> = {};
  for (const p of j.positions) if (Number(p.size) !== 0) out[p.tokenId] = p.size;
  return out;
}

describe('mmkit run: the store follows the venue', () => {
  it('a trade made on the wallet between two runs is in the store after the next start, marked as from outside', async () => {
    const { ex, base } = await h.exchange(11);
    const { dir } = h.dataDir();
    const key = readFileSync(join(dir, 'paper-wallet.key'), 'utf8').trim();

    const b1 = h.startBot(base, dir, ['--duration', '6s']);
    expect(await exited(b1.p), b1.err().slice(-3000)).toBe(0);

    // another client of the same wallet (its own API key) buys shares of a market the bot may not even follow
    const other = new Trader(ex.urls.clob_url, key);
    expect((await other.createKey(7)).status).toBe(200);
    const m = ex.exchange.listMarkets().find((x) => ex.exchange.engine.book(x.meta.tokens[0]).asks.length > 0)!;
    const token = m.meta.tokens[0];
    const ask = ex.exchange.engine.book(token).asks[0]!;
    const r = await other.place(token, 'BUY', (ask.price / 10_000).toFixed(4), '5', {
      type: 'FAK',
      tick: '0.0001',
      negRisk: m.meta.negRisk,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);

    const b2 = h.startBot(base, dir, ['--duration', '6s']);
    expect(await exited(b2.p), b2.err().slice(-3000)).toBe(0);

    const store = await positions('store', dir, base);
    const venue = await positions('venue', dir, base);
    expect(store).toEqual(venue);
    expect(Number(venue[token])).toBeGreaterThan(0);

    // the store says the shares came from outside: an external fill, or an adjustment of cause external_trade
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const external = db
      .prepare("SELECT COUNT(*) AS n FROM fills WHERE token = ? AND source = 'external'")
      .get(token) as {
      n: number;
    };
    const adjusted = db
      .prepare("SELECT COUNT(*) AS n FROM adjustments WHERE token = ? AND cause = 'external_trade'")
      .get(token) as { n: number };
    db.close();
    expect(external.n + adjusted.n).toBeGreaterThan(0);
  });

  it('the same data dir against a fresh paper exchange starts a new epoch: no refusal for lack of balance, no trip, PnL from zero', async () => {
    const { ex, base } = await h.exchange(4);
    const { dir, address } = h.dataDir();
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    // run 1: the bot gets filled, so it holds shares of this world when it stops (the world's flow
    // can take them back before it stops, or a merge turn a pair into collateral: it fails once in
    // a while on a loaded machine, so up to three runs, merges off)
    let before: Record<string, string> = {};
    for (let attempt = 0; attempt < 3 && Object.keys(before).length === 0; attempt++) {
      const b1 = h.startBot(base, dir, [], { MMKIT_AUTO_MERGE: 'off' });
      expect(await waitForQuotes(ex, address), b1.err().slice(-2000)).toBeGreaterThan(0);
      const fills = botFills(ex, address).length;
      expect(await makeBotFill(ex, t, address, 30_000, fills + 1), b1.err().slice(-2000)).toBe(true);
      b1.p.kill('SIGTERM');
      expect(await exited(b1.p), b1.err().slice(-3000)).toBe(0);
      before = await positions('store', dir, base);
    }
    expect(Object.keys(before).length).toBeGreaterThan(0);
    await ex.close();

    // a fresh world of the same seed: the same markets, none of the bot's shares
    const fresh = await h.exchange(4);
    const b2 = h.startBot(fresh.base, dir, ['--duration', '10s']);
    const code = await exited(b2.p);
    const lines = logLines(b2.err());
    expect(code, b2.err().slice(-3000)).toBe(0);
    expect(lines.some((l) => l.msg.startsWith('a new ledger epoch'))).toBe(true);
    expect(b2.err()).not.toContain('NOT_ENOUGH_BALANCE');
    expect(lines.some((l) => l.msg.includes('kill switch'))).toBe(false);
    // the new epoch holds what the new world says: nothing carried over
    expect(await positions('store', dir, fresh.base)).toEqual(await positions('venue', dir, fresh.base));
    const j = JSON.parse(
      (await runMmkit(['positions', '--source', 'store', '--json', '--data-dir', dir, '--exchange-url', fresh.base]))
        .out,
    ) as { epoch: { id: number } };
    expect(j.epoch.id).toBeGreaterThan(1);
    // PnL from zero: the epoch's realised PnL is that of its own fills only
    const summary = lines.find((l) => l.msg === 'summary') as unknown as {
      fills: number;
      realizedPnl: string;
      epoch: { id: number; fills: number; realizedPnl: string; since: string };
      session: { since: string };
    };
    // the epoch began with this run: its figures are this session's, nothing of the old world's
    expect(summary.epoch.id).toBe(j.epoch.id);
    expect(summary.epoch.fills).toBe(summary.fills);
    expect(summary.epoch.realizedPnl).toBe(summary.realizedPnl);
    expect(Date.parse(summary.epoch.since)).toBeGreaterThanOrEqual(Date.parse(summary.session.since) - 60_000);
  });
});

describe('mmkit run: collateral housekeeping', () => {
  it('a start that does not follow a market where the store holds a position says so (trial 17 F2)', async () => {
    const { ex, base } = await h.exchange(13);
    const { dir } = h.dataDir();
    const [m1, m2] = ex.exchange
      .listMarkets()
      .filter((x) => !x.meta.negRisk)
      .map((x) => x.meta);
    expect(
      (await runMmkit(['split', m1!.conditionId, '20', '--json', '--data-dir', dir, '--exchange-url', base])).code,
    ).toBe(0);
    // a first run on m1: its start books the 20 + 20 held there
    const first = h.startBot(base, dir, ['--markets', m1!.conditionId, '--duration', '600s'], {
      MMKIT_AUTO_MERGE: 'off',
    });
    const reconciledIn = (b: { err(): string }) => () =>
      logLines(b.err()).some((l) => l.msg === 'reconciled with the venue');
    const reconciled = reconciledIn(first);
    expect(await waitUntil(reconciled, 60_000), first.err().slice(-3000)).toBe(true);
    first.p.kill('SIGTERM');
    expect(await exited(first.p), first.err().slice(-3000)).toBe(0);
    // the next run picks m2 only: it says what it leaves
    const bot = h.startBot(base, dir, ['--markets', m2!.conditionId, '--duration', '600s'], {
      MMKIT_AUTO_MERGE: 'off',
    });
    const said = () =>
      logLines(bot.err()).find((l) => l.msg.startsWith('positions held in 1 market(s) this run does not follow'));
    expect(await waitUntil(() => said() !== undefined, 60_000), bot.err().slice(-3000)).toBe(true);
    const held = said()!['positions'] as Array<{ market: string; size: string }>;
    expect(held.map((p) => [p.market, p.size])).toEqual([
      [m1!.conditionId, '20'],
      [m1!.conditionId, '20'],
    ]);
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    // the terminal view names the market it does not follow by its question, as the text summary does
    // (trial 20 F6: the position at exit line named it by id)
    const pretty = h.startBot(
      base,
      dir,
      ['--markets', m2!.conditionId, '--duration', '600s', '--log-format', 'pretty'],
      {
        MMKIT_AUTO_MERGE: 'off',
      },
    );
    expect(await waitUntil(() => pretty.err().includes('quoting allowed'), 60_000), pretty.err().slice(-3000)).toBe(
      true,
    );
    pretty.p.kill('SIGTERM');
    expect(await exited(pretty.p), pretty.err().slice(-3000)).toBe(0);
    const atExit = pretty
      .err()
      .split('\n')
      .filter((l) => l.includes('position at exit'));
    expect(atExit, pretty.err().slice(-3000)).toHaveLength(2);
    for (const l of atExit) {
      expect(l).not.toContain(m1!.conditionId);
      expect(l).toContain(m1!.question.slice(0, 20));
    }
    // without bot.markets, the default pick keeps the market it holds (trial 19 F4): followed, its books mark it
    const third = h.startBot(base, dir, ['--duration', '600s'], { MMKIT_AUTO_MERGE: 'off', MMKIT_MARKET_COUNT: '1' });
    const starting = () => logLines(third.err()).find((l) => l.msg === 'starting');
    expect(await waitUntil(() => starting() !== undefined, 60_000), third.err().slice(-3000)).toBe(true);
    const followed = (starting()!['markets'] as Array<{ market: string }>).map((m) => m.market);
    expect(followed).toContain(m1!.conditionId);
    expect(await waitUntil(reconciledIn(third), 60_000), third.err().slice(-3000)).toBe(true);
    expect(logLines(third.err()).some((l) => l.msg.includes('this run does not follow'))).toBe(false);
    third.p.kill('SIGTERM');
    expect(await exited(third.p), third.err().slice(-3000)).toBe(0);
  }, 240_000);

  it('merges complementary holdings and redeems a resolved market on its own, exactly, positions reconciled', async () => {
    const { ex, base } = await h.exchange(12, { adminToken: 'tok' });
    const { dir, address } = h.dataDir();
    const common = ['--json', '--data-dir', dir, '--exchange-url', base];
    const [m1, m2] = ex.exchange
      .listMarkets()
      .filter((x) => !x.meta.negRisk)
      .map((x) => x.meta);
    // the wallet holds both sides of one market and YES of another before the daemon starts (made outside it)
    expect((await runMmkit(['split', m1!.conditionId, '20', ...common])).code).toBe(0);
    const key = readFileSync(join(dir, 'paper-wallet.key'), 'utf8').trim();
    const other = new Trader(ex.urls.clob_url, key);
    expect((await other.createKey(7)).status).toBe(200);
    const ask = await waitUntil(() => ex.exchange.engine.book(m2!.tokens[0]).asks.length > 0, 30_000);
    expect(ask).toBe(true);
    const px = ex.exchange.engine.book(m2!.tokens[0]).asks[0]!.price;
    const bought = await other.place(m2!.tokens[0], 'BUY', (px / 10_000).toFixed(4), '5', {
      type: 'FAK',
      tick: '0.0001',
    });
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    const c0 = ex.exchange.engine.balance(address).collateral;

    const bot = h.startBot(base, dir, ['--markets', `${m1!.conditionId},${m2!.conditionId}`], {
      MMKIT_COLLATERAL_CHECK_MS: '1000',
      MMKIT_MERGE_MIN_SIZE: '5',
    });
    const merged = () => logLines(bot.err()).filter((l) => l.msg === 'merged complementary holdings into collateral');
    expect(await waitUntil(() => merged().length >= 1, 90_000), bot.err().slice(-3000)).toBe(true);
    // what was merged came back as collateral, to the micro-unit (less what its orders reserve now);
    // the log says amounts in decimal units
    const mergedAmount = merged().reduce((n, l) => n + parseAmount(l['amount'] as string), 0);
    expect(mergedAmount).toBeGreaterThan(0);

    // a followed market resolves: the daemon redeems what it holds of it
    await new Admin(base, 'tok').resolve(m2!.conditionId, m2!.tokens[0]);
    const redeemed = () => logLines(bot.err()).filter((l) => l.msg === 'redeemed the tokens of a resolved market');
    expect(await waitUntil(() => redeemed().length >= 1, 90_000), bot.err().slice(-3000)).toBe(true);
    // exactly the winning tokens held were paid: the YES gone, as much collateral credited
    const r = redeemed()[0]!;
    const b = ex.exchange.engine.balance(address);
    expect((b.tokens.get(m2!.tokens[0])?.available ?? 0) + (b.tokens.get(m2!.tokens[0])?.reserved ?? 0)).toBe(0);
    expect(parseAmount(r['collateral'] as string)).toBeGreaterThan(0);
    expect(b.collateral + b.collateralReserved).toBeGreaterThan(c0);
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    expect(await positions('store', dir, base)).toEqual(await positions('venue', dir, base));
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const kinds = (db.prepare('SELECT kind FROM operations').all() as { kind: string }[]).map((r) => r.kind);
    const red = db.prepare("SELECT collateral, legs FROM operations WHERE kind = 'redeem'").get() as {
      collateral: number;
      legs: string;
    };
    db.close();
    // the redeem paid 1 per winning share burned, to the micro-unit
    const legs = JSON.parse(red.legs) as { tokenId: string; size: number; price: number }[];
    const won = legs.find((l) => l.tokenId === m2!.tokens[0])!;
    expect(red.collateral).toBe(-won.size);
    expect(won.price).toBe(10_000);
    expect(kinds).toContain('merge');
    expect(kinds).toContain('redeem');
  }, 240_000);
});
