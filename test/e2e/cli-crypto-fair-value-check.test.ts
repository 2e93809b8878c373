/**
 * `mmkit strategy check strategies/crypto-fair-value.ts` passes on the default paper world, seed
 * after seed: the strategy's own market choice (`selectMarkets`) takes crypto price markets it can
 * price (never an AI-model or Arctic-ice market, as the default pick could), it quotes them, the
 * risk gate refuses none of its quotes for the price band (its own `riskPriceBand`), and it leaves
 * no order open. The real daemon on an in-process paper exchange, as a user runs it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/mmkit.js');

function mmkit(args: string[], timeoutMs = 150_000): Promise<{ code: number | null; out: string; err: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('MMKIT_') && !k.startsWith('VITEST') && v !== undefined) env[k] = v;
  const p = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  return new Promise((res, rej) => {
    const t = setTimeout(() => {
      p.kill('SIGKILL');
      rej(new Error(`mmkit ${args.join(' ')} timed out\n${out}\n${err}`));
    }, timeoutMs);
    p.on('close', (code) => {
      clearTimeout(t);
      res({ code, out, err });
    });
  });
}

interface CheckReport {
  ok: boolean;
  summary: { ordersPlaced: number; openOrdersAtExit: number };
  markets: Array<{ market: string; question: string; orders: number }>;
  refusals: Record<string, number>;
}

const CRYPTO =
  /^(Will the price of (Bitcoin|Ethereum|Solana|XRP|Dogecoin) be (above|below) \$[\d,.]+ |(Bitcoin|Ethereum|Solana|XRP|Dogecoin) Up or Down )/;

describe('mmkit strategy check strategies/crypto-fair-value.ts on the default paper world', () => {
  it.each([1, 2, 3])(
    'seed %i: crypto markets it can price, quoted, none refused for the price band, none left open',
    async (seed) => {
      const r = await mmkit([
        'strategy',
        'check',
        'strategies/crypto-fair-value.ts',
        '--seed',
        String(seed),
        '--duration',
        '8s',
        '--json',
      ]);
      expect(r.code, r.err.slice(-3000)).toBe(0);
      const report = JSON.parse(r.out) as CheckReport;
      expect(report.ok).toBe(true);
      expect(report.markets.length).toBeGreaterThan(0);
      for (const m of report.markets) expect(m.question).toMatch(CRYPTO);
      expect(report.markets.some((m) => m.orders > 0)).toBe(true);
      expect(report.summary.ordersPlaced).toBeGreaterThan(0);
      expect(report.summary.openOrdersAtExit).toBe(0);
      expect(report.refusals['PRICE_BAND'] ?? 0).toBe(0);
    },
    180_000,
  );
});
