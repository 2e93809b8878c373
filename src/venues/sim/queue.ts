/**
 * Queue-position models of the simulated venue (pure: numbers in, numbers out; no I/O, no clock,
 * no randomness). They answer one question for a resting order of ours: how much of the RECORDED
 * size at its price is still ahead of it (`ahead`, micro-shares)? The recorded market never
 * contains our orders, so every model works on the recorded level size and the recorded trades.
 *
 * An order joins the back of its level: `ahead` starts as the recorded size at its price on arrival.
 * Then, as in hftbacktest's queue models (models/queue.rs):
 *
 *  - a trade at our price hitting our side takes `volume` from the front: `ahead` shrinks by it and
 *    what goes beyond `ahead` (and beyond our own earlier orders at the same price, which are ahead
 *    of us too) fills us ({@link tradeAtLevel}); fills are whole 0.01-share lots, rounded down;
 *  - a change of the level's size that trades do not explain ({@link QueueModel.depth}):
 *      - risk-averse: only trades advance the queue; a decrease just caps `ahead` at the new size
 *        (`min(ahead, new)`: those ahead of us cannot be more than the level holds);
 *      - probabilistic: a cancellation (a decrease net of the trades already applied) happened
 *        ahead of us with probability 1 − p and behind us with probability p, where
 *        p = f(back) / (f(back) + f(front)), f(x) = x^n (hftbacktest PowerProbQueueFunc, n =
 *        `power`): the further back we are, the likelier a cancellation is ahead of us. The
 *        expected advance is applied: front' = front − (1 − p)·chg + min(back − p·chg, 0), capped at
 *        the new size. `back` is what is behind us after the trades (prev − traded − front; hftbacktest
 *        counts the traded volume as behind us, which over-weights the back after a trade).
 *    An increase never moves us (new orders join behind us).
 *
 * The estimate is kept in integer micro-shares (rounded to nearest): it is a size, and it decides
 * fills, which are money.
 */
import { ValidationError } from '../../core/errors.ts';
import { LOT_MICRO } from '../../core/units.ts';

/** Which queue model, and its parameter. A bare string uses the defaults. */
export type QueueModelSpec =
  | 'risk-averse'
  | 'probabilistic'
  | { readonly kind: 'risk-averse' }
  | { readonly kind: 'probabilistic' /** Exponent n of f(x) = x^n (default 2). */; readonly power?: number };

/** Default exponent of the probabilistic model's f(x) = x^n. */
export const DEFAULT_QUEUE_POWER = 2;

/** A queue-position model (see the module comment). */
export interface QueueModel {
  readonly kind: 'risk-averse' | 'probabilistic';
  /** The exponent (probabilistic), else 0. */
  readonly power: number;
  /**
   * `ahead` after the level went from `prevQty` to `newQty`, `tradedQty` of which is explained by
   * trades already applied through {@link tradeAtLevel}. All in micro-shares; returns an integer in
   * [0, newQty].
   */
  depth(ahead: number, prevQty: number, newQty: number, tradedQty: number): number;
}

/** Risk-averse: a decrease only caps the queue ahead at the level's new size. */
export function riskAverseDepth(ahead: number, _prevQty: number, newQty: number, _tradedQty = 0): number {
  return Math.max(0, Math.min(ahead, newQty));
}

/**
 * The probability that a cancellation happened BEHIND us: f(back) / (f(back) + f(front)) with
 * f(x) = x^n. At the front (front = 0) it is 1; with nobody behind (back = 0) it is 0.
 */
export function powerProbBehind(front: number, back: number, n: number): number {
  if (front <= 0) return 1;
  if (back <= 0) return 0;
  const fb = back ** n;
  const ff = front ** n;
  const s = fb + ff;
  if (!(s > 0) || !Number.isFinite(s)) {
    // over/underflow of the powers: compare the ratio instead
    const r = (front / back) ** n; // ff / fb
    return Number.isFinite(r) ? 1 / (1 + r) : 0;
  }
  return fb / s;
}

/** Probabilistic depth update (see the module comment). */
export function probDepth(ahead: number, prevQty: number, newQty: number, tradedQty: number, n: number): number {
  const chg = prevQty - newQty - tradedQty;
  if (chg <= 0) return riskAverseDepth(ahead, prevQty, newQty);
  const front = Math.max(0, ahead);
  const back = Math.max(0, prevQty - tradedQty - front);
  const p = powerProbBehind(front, back, n);
  const est = front - (1 - p) * chg + Math.min(back - p * chg, 0);
  return Math.max(0, Math.min(Math.round(est), newQty));
}

/**
 * The model of a spec.
 * @throws ValidationError on an unknown model or a power that is not a finite number > 0
 */
export function createQueueModel(spec: QueueModelSpec): QueueModel {
  const kind = typeof spec === 'string' ? spec : spec?.kind;
  if (kind === 'risk-averse') return { kind, power: 0, depth: riskAverseDepth };
  if (kind === 'probabilistic') {
    const n =
      typeof spec === 'string' || spec.kind !== 'probabilistic'
        ? DEFAULT_QUEUE_POWER
        : (spec.power ?? DEFAULT_QUEUE_POWER);
    if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0)
      throw new ValidationError(`queue.power: must be a finite number > 0, got ${String(n)}`);
    return { kind, power: n, depth: (a, p, q, t) => probDepth(a, p, q, t, n) };
  }
  throw new ValidationError(`queue: must be 'risk-averse' or 'probabilistic', got ${JSON.stringify(kind)}`);
}

/** What a trade did to one resting order (see {@link tradeAtLevel}). */
export interface TradeEffect {
  /** The order's new queue ahead (micro). */
  ahead: number;
  /** Size filled (micro, whole lots, <= remaining). */
  fill: number;
}

/** Rounds a size down to whole 0.01-share lots. */
export function floorLot(x: number): number {
  return x <= 0 ? 0 : x - (x % LOT_MICRO);
}

/**
 * A trade of `volume` (micro) at (or through) our price, hitting our side: the recorded queue
 * ahead shrinks by it; what goes beyond `ahead` and `ownAhead` (the rest of our own orders ahead of
 * this one at the same price, before this trade) fills us, up to `remaining`, in whole lots.
 */
export function tradeAtLevel(ahead: number, ownAhead: number, volume: number, remaining: number): TradeEffect {
  const reach = volume - ahead - ownAhead;
  const fill = reach > 0 ? Math.min(remaining, floorLot(reach)) : 0;
  return { ahead: Math.max(0, ahead - volume), fill };
}

/**
 * The part of a recorded trade of `volume` that happened at our level. The venue sends the level's
 * new size before the trade (price_change, then last_trade_price): when the level already fell by
 * `unexplainedDecrease` (net of trades already counted) in the same venue batch, a trade printed at
 * our price took at most that much here; the rest was taken at better prices first (the trade's
 * price is its last fill's, its size the whole sweep's). With no such decrease seen (a trade that
 * comes before its level change) the whole volume counts.
 */
export function tradeVolumeAtLevel(volume: number, unexplainedDecrease: number): number {
  return unexplainedDecrease > 0 ? Math.min(volume, unexplainedDecrease) : volume;
}
