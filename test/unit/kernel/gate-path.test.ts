/** The fields of a gate refusal's log line: amounts in decimals, a non-whole size or price too (F12); the refusal counts. */
import { describe, expect, it } from 'vitest';
import { FLEET_HELD, quoteFields, tallyRefusals } from '../../../src/kernel/gate-path.ts';
import type { Refusal, Trim } from '../../../src/risk/gate.ts';

const q = { tokenId: 'T', side: 'BUY', price: 2000, size: 10_000_000 };

describe('quoteFields', () => {
  it('prints price and size in decimals', () => {
    expect(quoteFields(q, 'OFF_TICK', 'why')).toEqual({
      code: 'OFF_TICK',
      reason: 'why',
      token: 'T',
      side: 'BUY',
      price: '0.2',
      size: '10',
    });
  });

  it('a size or price off the whole micro-share or pip is in decimal units too, not raw micro or pips', () => {
    const f = quoteFields({ ...q, price: 2000.5, size: 10_000_000.5 }, 'INVALID_SIZE', 'why');
    expect(f.size).toBe('10.0000005');
    expect(f.price).toBe('0.20005');
    expect(quoteFields({ ...q, size: Number.NaN }, 'INVALID_SIZE', 'why').size).toBe('NaN');
    expect(quoteFields({ ...q, size: '12' as unknown as number }, 'INVALID_SIZE', 'why').size).toBe('12');
  });
});

describe('tallyRefusals', () => {
  it('counts refusals and trims by code, but not a quote of a market another fleet member holds (trial 14 F2)', () => {
    const counters = { quotesRefused: {} as Record<string, number>, quotesTrimmed: {} as Record<string, number> };
    const quote = { tokenId: 'T', side: 'BUY', price: 2000, size: 10_000_000 } as const;
    const refusal = (code: string, reason: string) => ({ quote, code, reason }) as unknown as Refusal;
    tallyRefusals(
      counters,
      [
        refusal('HALTED', `halted: ${FLEET_HELD}`),
        refusal('HALTED', `halted: ${FLEET_HELD}`),
        refusal('HALTED', 'halted: fleet: Redis unreachable or the fleet killed'),
        refusal('OFF_TICK', 'off tick'),
      ],
      [{ quote, code: 'NOTIONAL_MARKET' } as unknown as Trim],
    );
    expect(counters.quotesRefused).toEqual({ HALTED: 1, OFF_TICK: 1 });
    expect(counters.quotesTrimmed).toEqual({ NOTIONAL_MARKET: 1 });
  });
});
