/**
 * The venue's marks the trader keeps from each read of the holdings (keepVenueMarks, review of
 * session 46 F2): the marks read replace the last; a token no longer held loses its mark; a read whose
 * marks failed (the venue's positions endpoint did not answer) keeps the last marks of the tokens held
 * rather than wiping them (every position off the followed markets would drop out of the PnL).
 */
import { describe, expect, it } from 'vitest';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { Holdings } from '../../../src/core/venue.ts';
import { keepVenueMarks } from '../../../src/kernel/position-audit-wiring.ts';

const A = 'tok-a' as TokenId;
const B = 'tok-b' as TokenId;
const M = '0xm' as ConditionId;
const held = (tokens: Array<[TokenId, number | undefined]>, marksRead?: boolean): Holdings => ({
  collateral: { available: 0 as Micro, reserved: 0 as Micro },
  tokens: tokens.map(([tokenId, mark]) => ({
    tokenId,
    market: M,
    size: 1_000_000 as Micro,
    ...(mark !== undefined ? { mark: mark as Pips } : {}),
  })),
  ...(marksRead === false ? { marksRead: false } : {}),
});

describe('keepVenueMarks', () => {
  it('replaces the marks with those read; a token no longer held, or read without a mark, loses its', () => {
    const marks = new Map<TokenId, Pips>();
    keepVenueMarks(
      marks,
      held([
        [A, 4000],
        [B, 1500],
      ]),
    );
    expect([...marks]).toEqual([
      [A, 4000],
      [B, 1500],
    ]);
    keepVenueMarks(marks, held([[A, undefined]]));
    expect([...marks]).toEqual([]);
    keepVenueMarks(marks, held([[A, 4200]]));
    expect([...marks]).toEqual([[A, 4200]]);
  });

  it('a read whose marks failed keeps the last marks of the tokens still held', () => {
    const marks = new Map<TokenId, Pips>([
      [A, 4000 as Pips],
      [B, 1500 as Pips],
    ]);
    keepVenueMarks(marks, held([[A, undefined]], false));
    expect([...marks]).toEqual([[A, 4000]]);
  });
});
