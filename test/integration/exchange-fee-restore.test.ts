/**
 * A paper world restored from its journal (`mmkit exchange --db FILE`) keeps the taker fee rate it
 * was created with, for the markets it lists later too; a different `--fee-rate-bps` given at the
 * restart is said in a warning, not applied (trial 12 F3: the banner said 300 bps, the markets
 * charged 100, nothing warned).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startExchange } from '../../src/exchange/server.ts';
import { exchangeBanner } from '../../src/cli/exchange-banner.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-fee-restore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a restored paper world and its fee rate', () => {
  it("keeps its markets' rate and warns of a different one asked for", async () => {
    const dbFile = join(dir, 'x.db');
    const world = { agents: 'none' as const, lifecycle: false, priceFeed: false };
    const a = await startExchange({ port: 0, seed: 5, dbFile, world: { ...world, feeRateBps: 100 } });
    expect([...new Set(a.exchange.listMarkets().map((m) => m.meta.feeRateBps))]).toEqual([100]);
    expect(a.world).toEqual({ seed: 5, feeRateBps: 100, restored: false });
    await a.close();

    const lines: Array<{ level: number; msg: string; feeRateBps?: number; kept?: number }> = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const b = await startExchange({ port: 0, seed: 1, dbFile, world: { ...world, feeRateBps: 300 }, logger });
    try {
      expect([...new Set(b.exchange.listMarkets().map((m) => m.meta.feeRateBps))]).toEqual([100]);
      const warned = lines.find((l) => l.level === 40 && /fee rate 300 bps not applied/.test(l.msg));
      expect(warned, JSON.stringify(lines)).toMatchObject({ feeRateBps: 300, kept: 100 });
      // and the banner says the rate and seed in force, not the flags' (trial 13 F15)
      expect(b.world).toEqual({ seed: 5, feeRateBps: 100, restored: true });
      expect(exchangeBanner({ worldProfile: 'realistic', feeRateBps: 300, chainId: 137, protocol: 2 }, b.world)).toBe(
        "mmkit paper exchange listening (seed 5 (restored from the journal), world profile realistic, taker fee 100 bps (--fee-rate-bps 300 not applied: the journal's world keeps its rate), chain 137, CLOB protocol 2)\n",
      );
    } finally {
      await b.close();
    }
  });
});
