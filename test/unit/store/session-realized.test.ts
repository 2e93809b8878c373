/**
 * "This session"'s realized PnL is what the session made: the realized PnL of the bot's own fills
 * matched during it (findings-6 F4: a session with 0 fills reported the realized PnL of another
 * daemon's fills on the same wallet, which the start's reconciliation had backfilled as external).
 * Real SQLite; the exit summary's own path (ledgerAtExit).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ledgerAtExit } from '../../../src/cli/run-summary.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { FlatReport } from '../../../src/execution/executor.ts';
import { openStore, type FillRecord, type Store } from '../../../src/store/store.ts';

const M = '0xmarket' as ConditionId;
const YES = '111' as TokenId;
const T0 = Date.parse('2026-11-28T04:00:00.000Z');
const flat = { flat: true, open: [], queries: 1, elapsedMs: 0, inFlight: 0 } as unknown as FlatReport;

function fill(tradeId: string, over: Partial<FillRecord>): FillRecord {
  return {
    tradeId,
    orderId: `0x${tradeId}` as OrderId,
    market: M,
    tokenId: YES,
    side: 'BUY',
    price: 5000 as Pips,
    size: 10_000_000 as Micro,
    fee: 0 as Micro,
    role: 'MAKER',
    status: 'CONFIRMED',
    matchTime: T0,
    ...over,
  };
}

/** The exit summary of a run that started at `start` and stops 40 s later (the real exit-summary path). */
function summaryAtExit(
  store: Store,
  o: {
    session: Parameters<typeof ledgerAtExit>[1]['session'];
    epoch: Parameters<typeof ledgerAtExit>[1]['epoch'];
    realizedAtStart: number;
    start: number;
  },
) {
  const exit = ledgerAtExit(store, {
    session: o.session,
    now: o.start + 40_000,
    marks: new Map(),
    epoch: o.epoch,
    realizedAtStart: o.realizedAtStart,
    runStartMs: o.start,
  });
  return exit.summary(flat, 'duration', { kind: 'duration' });
}

describe("the session's realized PnL", () => {
  it('counts none of the external fills the start backfilled: a session without fills made 0', () => {
    const store = openStore(join(mkdtempSync(join(tmpdir(), 'mmkit-sess-')), 'mmkit.db'), { checkpoint: 'auto' });
    const { epoch } = store.openEpoch({ venue: 'http://127.0.0.1:1/clob', world: 'w', address: '0xab' }, T0);
    // as mmkit run: the session begins and the realized PnL is read, then the reconciliation backfills
    const start = T0 + 60_000;
    const session = store.beginSession(start);
    const realizedAtStart = store.pnl(new Map()).realized;
    // another daemon's fills on the same wallet, before this session: bought 10 at 0.50, sold 10 at 0.70
    store.recordFill(fill('e1', { source: 'external', side: 'BUY', price: 5000 as Pips, matchTime: T0 + 1000 }));
    store.recordFill(fill('e2', { source: 'external', side: 'SELL', price: 7000 as Pips, matchTime: T0 + 2000 }));
    const s = summaryAtExit(store, { session, epoch, realizedAtStart, start });
    expect(s.session.fills).toBe(0);
    expect(s.realizedPnl).toBe('0');
    expect(s.session.realizedPnl).toBe('0');
    // the epoch keeps them: realized 2 USDC
    expect(s.epoch.realizedPnl).toBe('2');
    store.close();
  });

  it("counts the bot's own fills of the session, on the position the ledger held before them", () => {
    const store = openStore(join(mkdtempSync(join(tmpdir(), 'mmkit-sess-')), 'mmkit.db'), { checkpoint: 'auto' });
    const { epoch } = store.openEpoch({ venue: 'http://127.0.0.1:1/clob', world: 'w', address: '0xab' }, T0);
    // an earlier run's bot fill: long 10 at 0.50
    store.recordFill(fill('b0', { side: 'BUY', price: 5000 as Pips, matchTime: T0 + 1000 }));
    const start = T0 + 60_000;
    const session = store.beginSession(start);
    const realizedAtStart = store.pnl(new Map()).realized;
    // this session: the bot sells 4 at 0.60 (+0.40); an external sell of 4 at 0.90 (+1.60, not the session's)
    store.recordFill(
      fill('b1', { side: 'SELL', price: 6000 as Pips, size: 4_000_000 as Micro, matchTime: start + 5000 }),
    );
    store.recordFill(
      fill('e1', {
        source: 'external',
        side: 'SELL',
        price: 9000 as Pips,
        size: 4_000_000 as Micro,
        matchTime: start + 6000,
      }),
    );
    expect(store.summary({ scope: 'session', realized: true }).realized).toBe(400_000);
    expect(store.summary({ scope: 'epoch', realized: true }).realized).toBe(2_000_000);
    // not asked: not computed
    expect(store.summary({ scope: 'session' }).realized).toBeUndefined();
    const s = summaryAtExit(store, { session, epoch, realizedAtStart, start });
    expect(s.session.fills).toBe(1);
    expect(s.realizedPnl).toBe('0.4');
    expect(s.epoch.realizedPnl).toBe('2');
    store.close();
  });
});
