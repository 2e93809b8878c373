/**
 * The liquidity rewards on the status (src/ops/status.ts): the daemon's view of them, and what the
 * metrics, the markets and the PnL of the snapshot show of it (decimal strings on the snapshot).
 */
import { rewardConfigText } from '../core/market-info.ts';
import { formatAmount } from '../core/units.ts';

/** Liquidity rewards as the daemon knows them. Money in micro-collateral. */
export interface RewardsView {
  /** The ledger epoch's totals: paid by the venue, and the estimate of the dates not paid yet. */
  readonly paid: number;
  readonly estimated: number;
  readonly byMarket: readonly { readonly market: string; readonly paid: number; readonly estimated: number }[];
  /** The tracker's estimate of each rewarded market traded (RewardEstimate of src/engine/reward-tracker.ts fits). */
  readonly live: readonly {
    readonly market: string;
    readonly config: { readonly maxSpread: number; readonly minSize: number; readonly dailyRate: number };
    readonly samples: number;
    readonly scoredSamples: number;
    readonly lastShare: number;
    readonly lastDaily: number;
    readonly lastAt: number | null;
  }[];
  /**
   * The venue's share of each market's running epoch so far (0..1), as last read (a market it left out: 0);
   * absent: not read yet.
   */
  readonly venueShares?: ReadonlyMap<string, number>;
}

/** A rewarded market's rewards as the status shows them (decimal strings; share 0..1). */
export interface MarketRewardStatus {
  /** The reward config: max spread in cents, min size in shares, the daily pool in USDC. */
  readonly maxSpread: string;
  readonly minSize: string;
  readonly dailyRate: string;
  /** Of the ledger epoch: paid by the venue, estimated for the dates not paid yet. */
  readonly paid: string;
  readonly estimated: string;
  /** Our share of the last sample, and the reward per day it would earn. */
  readonly share: number;
  readonly estDaily: string;
  readonly samples: number;
  readonly scoredSamples: number;
  /** The venue's own figure of our share of the running epoch so far (0..1); null before the first read. */
  readonly venueShare: number | null;
}

/** The rewards of the status's PnL: paid by the venue, estimated, their total, by market. */
export interface RewardsStatus {
  readonly paid: string;
  readonly estimated: string;
  readonly total: string;
  readonly byMarket: ReadonlyArray<{
    readonly market: string;
    readonly paid: string;
    readonly estimated: string;
    readonly total: string;
  }>;
}

/** No rewards known (a daemon without them). */
export const NO_REWARDS: RewardsView = { paid: 0, estimated: 0, byMarket: [], live: [] };

/** The rewards' metrics samples: every market paid or estimated, and every rewarded market traded. */
export function rewardSamples(rw: RewardsView): {
  market: string;
  paid: number;
  estimated: number;
  lastShare?: number;
  lastDaily?: number;
}[] {
  const liveOf = new Map(rw.live.map((x) => [x.market, x]));
  const samples = rw.byMarket.map((x) => {
    const l = liveOf.get(x.market);
    return {
      market: x.market,
      paid: x.paid,
      estimated: x.estimated,
      ...(l !== undefined ? { lastShare: l.lastShare, lastDaily: l.lastDaily } : {}),
    };
  });
  for (const l of rw.live)
    if (!rw.byMarket.some((x) => x.market === l.market))
      samples.push({ market: l.market, paid: 0, estimated: 0, lastShare: l.lastShare, lastDaily: l.lastDaily });
  return samples;
}

/** Each market's rewards on the status: null when it is not a rewarded market traded. */
export function marketRewardStatus(rw: RewardsView): (market: string) => MarketRewardStatus | null {
  const liveOf = new Map(rw.live.map((x) => [x.market, x]));
  const paidOf = new Map(rw.byMarket.map((x) => [x.market, x]));
  return (market) => {
    const rl = liveOf.get(market);
    const rp = paidOf.get(market);
    return rl === undefined
      ? null
      : {
          ...rewardConfigText(rl.config),
          paid: formatAmount(rp?.paid ?? 0),
          estimated: formatAmount(rp?.estimated ?? 0),
          share: rl.lastShare,
          estDaily: formatAmount(rl.lastDaily),
          samples: rl.samples,
          scoredSamples: rl.scoredSamples,
          // the venue lists only the markets where we have a share: after a read, one it left out is 0 (at an
          // epoch's start, before its first sample); null only before the first read
          venueShare: rw.venueShares === undefined ? null : (rw.venueShares.get(market.toLowerCase()) ?? 0),
        };
  };
}

/** The rewards of the snapshot's PnL (`total`: paid + estimated, as formatted for the series point). */
export function pnlRewardsStatus(rw: RewardsView, total: string): RewardsStatus {
  return {
    paid: formatAmount(rw.paid),
    estimated: formatAmount(rw.estimated),
    total,
    byMarket: rw.byMarket.map((x) => ({
      market: x.market,
      paid: formatAmount(x.paid),
      estimated: formatAmount(x.estimated),
      total: formatAmount(x.paid + x.estimated),
    })),
  };
}
