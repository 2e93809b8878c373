/** The taker fee rate of a paper world's markets (`exchange.feeRateBps`, `--world-fee-rate-bps`). */
import { MAX_FEE_RATE_BPS } from '../../core/order-rules.ts';

/**
 * A world market with its taker fee rate (bps; the venue charges takers under its order protocol:
 * src/core/fees.ts). 0 leaves the market as it is.
 * @throws RangeError when the rate is not an integer in [0, 1000]
 */
export function withWorldFee<M extends { readonly feeRateBps: number }>(m: M, feeRateBps = 0): M {
  if (!Number.isSafeInteger(feeRateBps) || feeRateBps < 0 || feeRateBps > MAX_FEE_RATE_BPS)
    throw new RangeError(`world fee rate must be an integer of bps in [0, ${MAX_FEE_RATE_BPS}], got ${feeRateBps}`);
  return feeRateBps === 0 ? m : { ...m, feeRateBps };
}
