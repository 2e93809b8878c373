/**
 * The line `mmkit exchange` prints once it listens (its URLs follow). It gives what the world runs
 * with: a world restored from its journal keeps the journal's seed and taker fee rate whatever the
 * flags ask (trial 13 F15: the banner said "taker fee 200 bps" while the markets charged the
 * journal's 100).
 */

/** The banner line (with its newline). `x`: the configuration's `exchange.*`; `w`: the running world's. */
export function exchangeBanner(
  x: {
    readonly worldProfile: string;
    readonly feeRateBps: number;
    readonly chainId: number;
    readonly protocol: number;
  },
  w: { readonly seed: number; readonly feeRateBps: number; readonly restored: boolean },
): string {
  const restored = w.restored ? ' (restored from the journal)' : '';
  const fee = w.feeRateBps > 0 ? `, taker fee ${w.feeRateBps} bps` : '';
  const notApplied =
    w.restored && x.feeRateBps > 0 && x.feeRateBps !== w.feeRateBps
      ? ` (--fee-rate-bps ${x.feeRateBps} not applied: the journal's world keeps its rate)`
      : '';
  return `mmkit paper exchange listening (seed ${w.seed}${restored}, world profile ${x.worldProfile}${fee}${notApplied}, chain ${x.chainId}, CLOB protocol ${x.protocol})\n`;
}
