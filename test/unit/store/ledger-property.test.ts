/**
 * Properties of the ledger's positions (src/store/position-cache.ts, ledger.ts): whatever the
 * order entries are recorded and read in, the kept positions are those of the current epoch's
 * entries sorted by time (fills, then operation legs, then adjustments at the same time), and a
 * split followed by a merge moves no PnL at marks summing to 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';
import { accumulate, PositionAccumulator } from '../../../src/store/positions.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

const M = '0xm' as ConditionId;
const TOKENS = ['111', '222'] as TokenId[];
let dir: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-ledger-prop-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const newFile = () => join(dir, `s${n++}.db`);
const openFile = (file: string) =>
  openStore(file, { clock: new VirtualClock(0), checkpoint: 'auto', durability: { fills: 'off', other: 'off' } });

type Cmd =
  | { t: 'fill'; token: number; side: Side; price: number; size: number; fee: number; at: number; external: boolean }
  | { t: 'void'; pick: number }
  | { t: 'confirm'; pick: number }
  | { t: 'adjust'; token: number; size: number; price: number; at: number }
  | { t: 'split' | 'merge'; size: number; price: number; at: number }
  | { t: 'read' }
  | { t: 'epoch' };

const at = fc.integer({ min: 0, max: 12 });
const price = fc.integer({ min: 0, max: 10_000 });
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant('fill' as const),
      token: fc.integer({ min: 0, max: 1 }),
      side: fc.constantFrom<Side>('BUY', 'SELL'),
      price: fc.integer({ min: 1, max: 9999 }),
      size: fc.integer({ min: 0, max: 50_000_000 }),
      fee: fc.integer({ min: 0, max: 10_000 }),
      at,
      external: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('void' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('confirm' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('adjust' as const),
      token: fc.integer({ min: 0, max: 1 }),
      size: fc.integer({ min: -30_000_000, max: 30_000_000 }).filter((s) => s !== 0),
      price,
      at,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constantFrom('split' as const, 'merge' as const),
      size: fc.integer({ min: 1, max: 20_000_000 }),
      price,
      at,
    }),
  },
  { weight: 3, arbitrary: fc.constant({ t: 'read' as const }) },
  { weight: 1, arbitrary: fc.constant({ t: 'epoch' as const }) },
);

/** The reference: every entry recorded, with what orders them. */
interface Entry {
  epoch: number | null;
  at: number;
  rank: number;
  seq: number;
  leg: number;
  token: TokenId;
  side: Side;
  price: number;
  size: number;
  fee: number;
  fill: boolean;
  key?: string;
  void?: boolean;
}

function expected(entries: readonly Entry[], epoch: number | null) {
  const live = entries
    .filter((e) => e.epoch === epoch && !e.void)
    .sort((a, b) => a.at - b.at || a.rank - b.rank || a.seq - b.seq || a.leg - b.leg);
  const acc = new Map<TokenId, PositionAccumulator>();
  for (const e of live) {
    let a = acc.get(e.token);
    if (a === undefined) acc.set(e.token, (a = new PositionAccumulator(M, e.token)));
    if (e.fill)
      a.add({
        market: M,
        tokenId: e.token,
        side: e.side,
        price: e.price as Pips,
        size: e.size as Micro,
        fee: e.fee as Micro,
      });
    else a.move(e.side, e.size, e.price);
  }
  return [...acc.values()].map((a) => a.snapshot());
}

function run(s: Store, cmds: readonly Cmd[], file: string): void {
  const entries: Entry[] = [];
  const fills: Entry[] = [];
  let fillSeq = 0;
  let adjSeq = 0;
  let opSeq = 0;
  let epoch: number | null = null;
  let world = 0;
  for (const c of cmds) {
    switch (c.t) {
      case 'fill': {
        const key = `t${fillSeq}`;
        s.recordFill({
          tradeId: key,
          orderId: '0xo' as OrderId,
          market: M,
          tokenId: TOKENS[c.token]!,
          side: c.side,
          price: c.price as Pips,
          size: c.size as Micro,
          fee: c.fee as Micro,
          role: 'MAKER',
          status: 'MATCHED',
          matchTime: c.at,
          ...(c.external ? { source: 'external' as const } : {}),
        });
        const e: Entry = {
          epoch,
          at: c.at,
          rank: 0,
          seq: fillSeq++,
          leg: 0,
          token: TOKENS[c.token]!,
          side: c.side,
          price: c.price,
          size: c.size,
          fee: c.fee,
          fill: true,
          key,
        };
        entries.push(e);
        fills.push(e);
        break;
      }
      case 'void':
      case 'confirm': {
        if (fills.length === 0) break;
        const e = fills[c.pick % fills.length]!;
        const f = s.fills().find((x) => x.tradeId === e.key)!;
        s.recordFill({ ...f, status: c.t === 'void' ? 'FAILED' : 'CONFIRMED' });
        if (c.t === 'void' && f.status !== 'CONFIRMED') e.void = true;
        break;
      }
      case 'adjust': {
        const token = TOKENS[c.token]!;
        s.recordAdjustment({
          market: M,
          tokenId: token,
          size: c.size,
          price: c.price,
          priceSource: 'mid',
          cause: 'unknown',
          at: c.at,
        });
        entries.push({
          epoch,
          at: c.at,
          rank: 2,
          seq: adjSeq++,
          leg: 0,
          token,
          side: c.size > 0 ? 'BUY' : 'SELL',
          price: c.price,
          size: Math.abs(c.size),
          fee: 0,
          fill: false,
        });
        break;
      }
      case 'split':
      case 'merge': {
        const d = c.t === 'split' ? 1 : -1;
        s.recordOperation({
          kind: c.t,
          market: M,
          amount: c.size,
          collateral: -d * c.size,
          at: c.at,
          legs: [
            { tokenId: TOKENS[0]!, size: d * c.size, price: c.price },
            { tokenId: TOKENS[1]!, size: d * c.size, price: 10_000 - c.price },
          ],
        });
        const seq = opSeq++;
        for (const [leg, token] of TOKENS.entries())
          entries.push({
            epoch,
            at: c.at,
            rank: 1,
            seq,
            leg,
            token,
            side: d > 0 ? 'BUY' : 'SELL',
            price: leg === 0 ? c.price : 10_000 - c.price,
            size: c.size,
            fee: 0,
            fill: false,
          });
        break;
      }
      case 'read':
        expect(s.positions()).toEqual(expected(entries, epoch));
        break;
      case 'epoch':
        epoch = s.openEpoch({ venue: 'paper', world: `w${world++}`, address: '0x1' }).epoch.id;
        break;
    }
  }
  const want = expected(entries, epoch);
  expect(s.positions()).toEqual(want);
  // a fresh read of the tables agrees with what was kept
  s.close();
  const again = openFile(file);
  try {
    expect(again.positions()).toEqual(want);
    expect(accumulate(again.ledgerEntries()).size).toBe(want.length);
  } finally {
    again.close();
  }
}

describe('ledger positions (property)', () => {
  it('kept positions equal the sorted ledger of the current epoch, whatever the recording and reading order', () => {
    fc.assert(
      fc.property(fc.array(cmdArb, { maxLength: 40 }), (cmds) => {
        const file = newFile();
        run(openFile(file), cmds, file);
        rmSync(file, { force: true });
      }),
      { numRuns: 150 },
    );
  });

  it('a split then a merge of the same amount restores the sizes and moves no PnL at marks summing to 1', () => {
    const trade = fc.record({
      token: fc.integer({ min: 0, max: 1 }),
      side: fc.constantFrom<Side>('BUY', 'SELL'),
      price: fc.integer({ min: 1, max: 9999 }),
      size: fc.integer({ min: 1, max: 30_000_000 }),
    });
    fc.assert(
      fc.property(
        fc.array(trade, { maxLength: 8 }),
        fc.integer({ min: 1, max: 40_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (trades, amount, p, q, mark) => {
          const file = newFile();
          const s = openFile(file);
          try {
            s.openEpoch({ venue: 'paper', world: 'w', address: '0x1' });
            for (const [i, t] of trades.entries())
              s.recordFill({
                tradeId: `t${i}`,
                orderId: '0xo' as OrderId,
                market: M,
                tokenId: TOKENS[t.token]!,
                side: t.side,
                price: t.price as Pips,
                size: t.size as Micro,
                fee: 0 as Micro,
                role: 'MAKER',
                status: 'MATCHED',
                matchTime: i,
              });
            const marks = new Map<TokenId, number>([
              [TOKENS[0]!, mark],
              [TOKENS[1]!, 10_000 - mark],
            ]);
            /** realized + unrealized, exact (pip-micro), from the ledger the store reads. */
            const exact = () => {
              let v = 0n;
              for (const a of accumulate(s.ledgerEntries()).values())
                v += a.realized + a.unrealizedAt(marks.get(a.tokenId)!);
              return v;
            };
            const sizes = () => new Map(s.positions().map((x) => [x.tokenId, x.size]));
            const before = { exact: exact(), total: s.pnl(marks).total, sizes: sizes() };
            const legs = (d: number, at: number) =>
              TOKENS.map((tokenId, i) => ({ tokenId, size: d * amount, price: i === 0 ? at : 10_000 - at }));
            s.recordOperation({ kind: 'split', market: M, amount, collateral: -amount, legs: legs(1, p), at: 100 });
            expect(exact()).toBe(before.exact);
            s.recordOperation({ kind: 'merge', market: M, amount, collateral: amount, legs: legs(-1, q), at: 101 });
            expect(exact()).toBe(before.exact);
            const after = sizes();
            for (const t of TOKENS) expect(after.get(t) ?? 0).toBe(before.sizes.get(t) ?? 0);
            // in micro-collateral, realized and unrealized are each floored: the total moves by a rounding at most
            expect(Math.abs(s.pnl(marks).total - before.total)).toBeLessThanOrEqual(1);
          } finally {
            s.close();
            rmSync(file, { force: true });
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
