/**
 * The common quoting parameters (moved out of ./quoting.ts, whose rules they configure): builders of
 * their specs, so every strategy documents them the same way, and `rulesOf`, which turns their
 * resolved values into `QuotingRules` in integer units. Plugins get both from `mmkit/strategy`.
 */
import { PRICE_SCALE } from '../core/units.ts';
import { type QuotingRules, sharesToMicro } from './quoting.ts';

/**
 * Builders of the common parameter specs, so every strategy documents them the same way; each
 * takes the strategy's default. `rulesOf` turns the resolved values into `QuotingRules`.
 */
export const commonParam = {
  tokens: (d: 'yes' | 'both') =>
    ({
      type: 'string',
      default: d,
      choices: ['yes', 'both'],
      doc: "Which tokens to quote: 'yes' (bids buy YES, asks only sell YES held) or 'both' (bids sell NO held first then buy YES; asks sell YES held first then buy NO at 1 - price: two-sided from collateral alone). Both come from one YES ladder: never the same exposure twice.",
    }) as const,
  minSpread: (d: number) =>
    ({
      type: 'number',
      default: d,
      min: 0,
      max: 0.5,
      doc: "Minimum full spread around the strategy's centre, price units (0.02 = 2 cents): no bid above centre - minSpread/2, no ask below centre + minSpread/2.",
    }) as const,
  postOnly: (d: 'move' | 'drop') =>
    ({
      type: 'string',
      default: d,
      choices: ['move', 'drop'],
      doc: "A quote that would cross the opposite best is never sent: 'move' puts it one tick behind the touch, 'drop' drops it.",
    }) as const,
  outOfRange: (d: 'clamp' | 'drop') =>
    ({
      type: 'string',
      default: d,
      choices: ['clamp', 'drop'],
      doc: "A bid below one tick or an ask above 1 - tick: 'clamp' quotes it at the edge of the valid range (when the minimum spread allows), 'drop' drops it.",
    }) as const,
  maxPosition: (d: number) =>
    ({
      type: 'number',
      default: d,
      min: 0.01,
      max: 500_000,
      doc: 'Net YES exposure (shares; YES held - NO held) at which a side stops adding to it.',
    }) as const,
  priceTolerance: (d: number) =>
    ({
      type: 'integer',
      default: d,
      min: 0,
      max: 100,
      doc: 'Refresh tolerance, ticks: a live order this close to its desired price is kept as it is (no cancel/replace).',
    }) as const,
  sizeTolerance: (d: number) =>
    ({
      type: 'number',
      default: d,
      min: 0,
      max: 1,
      doc: 'Refresh tolerance, fraction: a live order whose remaining size is at least (1 - this) x the desired size (and not above it) is kept.',
    }) as const,
  maxOrderAge: (d: number) =>
    ({
      type: 'number',
      default: d,
      min: 0,
      max: 86_400,
      doc: 'Seconds after which a live order is cancelled and quoted afresh (0: never).',
    }) as const,
  excludeOwnOrders: (d: boolean) =>
    ({
      type: 'boolean',
      default: d,
      doc: 'Take the best prices net of our own orders, so the strategy does not chase its own quotes.',
    }) as const,
};

/** The resolved common params (what `rulesOf` reads). */
export interface CommonParamValues {
  readonly tokens: string;
  readonly minSpread: number;
  readonly postOnly: string;
  readonly outOfRange?: string;
  readonly maxPosition: number;
  readonly priceTolerance?: number;
  readonly sizeTolerance?: number;
  readonly maxOrderAge: number;
}

/** The rules in integer units from resolved params (price units to pips, shares to micro, s to ms). */
export function rulesOf(p: CommonParamValues): QuotingRules {
  return {
    tokens: p.tokens === 'both' ? 'both' : 'yes',
    minSpread: Math.round(p.minSpread * PRICE_SCALE),
    postOnly: p.postOnly === 'drop' ? 'drop' : 'move',
    outOfRange: p.outOfRange === 'clamp' ? 'clamp' : 'drop',
    maxPosition: sharesToMicro(p.maxPosition),
    priceTolerance: p.priceTolerance ?? 0,
    sizeTolerance: p.sizeTolerance ?? 0,
    maxOrderAgeMs: Math.round(p.maxOrderAge * 1000),
  };
}
