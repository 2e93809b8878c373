/**
 * The agents' price and size arithmetic (pips and micro-shares are integers; these keep them on
 * the tick and the lot): shared by the flow agents (agents.ts) and the news flow (news-flow.ts).
 */
import { LOT_MICRO } from '../../core/units.ts';

/** x rounded down to a multiple of t. */
export const floorTo = (x: number, t: number): number => Math.floor(x / t) * t;
/** x rounded up to a multiple of t. */
export const ceilTo = (x: number, t: number): number => Math.ceil(x / t) * t;
export const clamp = (x: number, lo: number, hi: number): number => (x < lo ? lo : x > hi ? hi : x);
/** Micro-shares rounded down to the lot. */
export const floorLot = (x: number): number => Math.floor(x / LOT_MICRO) * LOT_MICRO;
/** Micro-shares rounded up to the lot. */
export const ceilLot = (x: number): number => Math.ceil(x / LOT_MICRO) * LOT_MICRO;
