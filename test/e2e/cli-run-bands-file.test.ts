/**
 * `mmkit run --param bandsFile=PATH` quotes the bands of a poly-market-maker bands file against the
 * paper exchange (in-process, as `npm start` runs it), two-sided from collateral (tokens 'both', the
 * default); a bad file stops the start with exit 2 and names the field, and `mmkit config check`
 * refuses it the same way.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runMmkit } from './support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-bands-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SH = 1_000_000;

interface Row {
  market: string;
  token: string;
  side: string;
  price: number;
  size: number;
  created_at: number;
}

describe('mmkit run --param bandsFile=PATH', () => {
  it("quotes the file's bands: its amounts, its margins, both sides from collateral", async () => {
    // amounts none of the default bands has (10 / 15 / 20 shares), margins of 4 and 8 cents
    const file = join(dir, 'bands.json');
    writeFileSync(
      file,
      JSON.stringify({
        bands: [
          { minMargin: 0.03, avgMargin: 0.04, maxMargin: 0.05, minAmount: 6, avgAmount: 12, maxAmount: 13 },
          { minMargin: 0.07, avgMargin: 0.08, maxMargin: 0.09, minAmount: 9, avgAmount: 17, maxAmount: 18 },
        ],
      }),
    );
    const data = join(dir, 'run');
    const r = await runMmkit(
      ['run', '--duration', '8s', '--data-dir', data, '--http-port', '0', '--param', `bandsFile=${file}`],
      { timeoutMs: 120_000 },
    );
    expect(r.code, r.err.slice(-3000)).toBe(0);
    const db = new Database(join(data, 'mmkit.db'), { readonly: true });
    let rows: Row[];
    try {
      rows = db
        .prepare('SELECT market, token, side, price, size, created_at FROM orders ORDER BY created_at, rowid')
        .all() as Row[];
    } finally {
      db.close();
    }
    expect(rows.length).toBeGreaterThan(0);
    const sizes = new Set(rows.map((o) => o.size / SH));
    expect(sizes.has(12) && sizes.has(17), [...sizes].join(',')).toBe(true);
    for (const o of rows) expect(o.size).toBeLessThanOrEqual(18 * SH);
    // the first quotes of a market, from one mid without inventory: band 0's bid on one token and
    // its ask as a bid on the other; 1 - (that bid) - (the bid) is twice avgMargin, plus the
    // rounding of each to the tick (away from the mid)
    const first = rows.filter((o) => o.market === rows[0]!.market && o.created_at <= rows[0]!.created_at + 100);
    const inner: Row[] = [];
    for (const o of first)
      if (o.size === 12 * SH && o.side === 'BUY' && !inner.some((x) => x.token === o.token)) inner.push(o);
    expect(inner, JSON.stringify(first)).toHaveLength(2);
    const spread = (10_000 - inner[0]!.price - inner[1]!.price) / 10_000;
    expect(spread).toBeGreaterThanOrEqual(0.08 - 1e-9);
    expect(spread).toBeLessThanOrEqual(0.1 + 1e-9);
  }, 150_000);

  it('refuses a bad file before trading: exit 2, the field named', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        bands: [{ minMargin: 0.01, avgMargin: '0.02', maxMargin: 0.03, minAmount: 1, avgAmount: 2, maxAmount: 3 }],
      }),
    );
    const data = join(dir, 'bad');
    const r = await runMmkit([
      'run',
      '--duration',
      '5s',
      '--data-dir',
      data,
      '--http-port',
      '0',
      '--param',
      `bandsFile=${file}`,
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('bot.params.bandsFile');
    expect(r.err).toContain(`${file}: bands[0].avgMargin must be a non-negative number, got "0.02"`);
    // `mmkit config check` refuses it too, with the same message (trial 7 F11: it passed it)
    const cfgFile = join(dir, 'bad-bands-config.json');
    writeFileSync(cfgFile, JSON.stringify({ bot: { strategy: 'bands', params: { bandsFile: file } } }));
    const checked = await runMmkit(['config', 'check', '--config', cfgFile]);
    expect(checked.code, checked.out).toBe(2);
    expect(checked.err).toContain(
      `mmkit: config bot.params.bandsFile: ${file}: bands[0].avgMargin must be a non-negative number, got "0.02"`,
    );
  }, 120_000);
});
