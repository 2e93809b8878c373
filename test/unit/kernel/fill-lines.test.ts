/** The kernel's log lines (src/kernel/fill-lines.ts): an order the venue rejected is named as a fill is. */
import { describe, expect, it } from 'vitest';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import type { TrackedOrder } from '../../../src/execution/tracker.ts';
import { fillLines } from '../../../src/kernel/fill-lines.ts';

const M = '0xm1' as ConditionId;
const market = {
  market: M,
  tokens: [
    { tokenId: '11' as TokenId, outcome: 'Yes' },
    { tokenId: '22' as TokenId, outcome: 'No' },
  ],
} as unknown as MarketInfo;

describe('fillLines.rejected', () => {
  it('names the side, outcome, token, price and size of a rejected order (trial 15 F2), beside its code and message', () => {
    const out: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
    const log = {
      info: (obj: object, msg: string) => void out.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
      warn: (obj: object, msg: string) => void out.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    };
    const lines = fillLines([market], () => log);
    const t = {
      id: '0xo1' as OrderId,
      market: M,
      tokenId: '22' as TokenId,
      side: 'SELL',
      price: 4400 as Pips,
      originalSize: 5_000_000 as Micro,
    } as TrackedOrder;
    const r = { id: '0xo1', market: M, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'not enough balance' };
    lines.rejected(r, t);
    lines.rejected({ ...r, id: '0xo2' }, undefined);
    expect(out).toEqual([
      {
        level: 'warn',
        msg: 'order rejected',
        obj: {
          order: '0xo1',
          code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE',
          message: 'not enough balance',
          token: '22',
          outcome: 'No',
          side: 'SELL',
          price: '0.44',
          size: '5',
        },
      },
      {
        level: 'warn',
        msg: 'order rejected',
        obj: { order: '0xo2', code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE', message: 'not enough balance' },
      },
    ]);
  });
});
