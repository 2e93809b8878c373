/**
 * The store's summary of one scope (the current epoch, or the current session): orders by
 * outcome, and fills with their volume, notional and fees, the bot's own and external ones apart,
 * counted from the tables (exact: sums in bigint); on request the realized PnL.
 *
 * A session's realized PnL is what the session made: the realized PnL of the bot's own fills matched
 * during it, each taken on the position the epoch's ledger held before it. Not the epoch's realized
 * PnL at the end minus at the start: that also moves with fills the bot did not make (the start's
 * reconciliation backfills the wallet's trades it missed, such as another daemon's on the same
 * wallet, as `external`), adjustments to the venue's holdings and redeems, and a session with no
 * fill of its own then reported a PnL (findings-6 F4).
 */
import type { TokenId } from '../core/ids.ts';
import { PRICE_SCALE } from '../core/units.ts';
import { ledgerRows, mergeLedger } from './ledger.ts';
import { PositionAccumulator } from './positions.ts';
import type { Statements } from './statements.ts';
import type { LedgerEpoch, LedgerSession, StoreSummary, StoredOrderStatus, SummaryScope } from './store-types.ts';

/**
 * What to summarise: an epoch (undefined: the store has none, so the whole store) or a session;
 * `realized`: also the realized PnL (StoreSummary.realized; it replays the epoch's ledger).
 */
export type SummaryTarget =
  | { readonly scope: 'epoch'; readonly epoch: LedgerEpoch | undefined; readonly realized?: boolean }
  | {
      readonly scope: 'session';
      readonly epoch: LedgerEpoch | undefined;
      readonly session: LedgerSession;
      readonly realized?: boolean;
    };

/**
 * Realized PnL before fees of the epoch's ledger (null: the store without epochs), micro-collateral
 * rounded toward −∞: of every entry, or with `own` only of the bot's own fills matched in
 * [own.from, own.to], each the change it made on the position the entries before it left.
 */
export function realizedOf(
  st: Statements,
  epoch: number | null,
  own?: { readonly from: number; readonly to: number },
): number {
  const r = ledgerRows(st, epoch);
  const acc = new Map<TokenId, PositionAccumulator>();
  let sum = 0n;
  for (const e of mergeLedger(r.fills, r.operations, r.adjustments)) {
    let a = acc.get(e.tokenId);
    if (a === undefined) acc.set(e.tokenId, (a = new PositionAccumulator(e.market, e.tokenId)));
    const before = a.realized;
    if (e.kind === 'fill') a.add(e);
    else a.move(e.side, e.size, e.price, e.priceMicro);
    if (own === undefined || (e.kind === 'fill' && e.source !== 'external' && e.at >= own.from && e.at <= own.to))
      sum += a.realized - before;
  }
  // pip-micro to micro-collateral, toward −∞ (as positions.ts: never overstated)
  const scale = BigInt(PRICE_SCALE);
  const q = sum / scale;
  return Number(sum % scale !== 0n && sum < 0n ? q - 1n : q);
}

interface Tally {
  fills: number;
  voids: number;
  volume: bigint;
  notional: bigint;
  fees: bigint;
}
const tally = (): Tally => ({ fills: 0, voids: 0, volume: 0n, notional: 0n, fees: 0n });

/** Counts of the store's orders and fills in one scope (deferred order writes must be written first). */
export function storeSummary(
  st: Statements,
  t: SummaryTarget,
  rewards: { readonly paid: number; readonly estimated: number },
): StoreSummary {
  const END = Number.MAX_SAFE_INTEGER;
  let orderRows: { status: string; n: number }[];
  let fillRows: Iterable<{ source: string; void: number; price: number; size: number; fee: number }>;
  let adjustments: number;
  let operations: number;
  let since: number | null;
  let realized: number | undefined;
  if (t.scope === 'session') {
    const from = t.session.startedAt;
    const to = t.session.endedAt ?? END;
    since = from;
    // (the fills' window below: from the start's whole second)
    if (t.realized === true) realized = realizedOf(st, t.epoch?.id ?? null, { from: from - (from % 1000), to });
    orderRows = st.orderCountsSince.all(from, to) as typeof orderRows;
    // venues stamp trades in whole seconds: a fill in the session's first second has a match time
    // before its start to the millisecond (so the window starts at the start's whole second)
    fillRows = st.summaryFillsBetween.iterate(from - (from % 1000), to) as typeof fillRows;
    adjustments = st.countAdjustmentsBetween.get(from, to) as number;
    operations = st.countOperationsBetween.get(from, to) as number;
  } else if (t.epoch === undefined) {
    since = null;
    orderRows = st.orderCounts.all() as typeof orderRows;
    fillRows = st.summaryFills.iterate() as typeof fillRows;
    adjustments = st.countAdjustmentsOf.get(null) as number;
    operations = st.countOperationsOf.get(null) as number;
    if (t.realized === true) realized = realizedOf(st, null);
  } else {
    since = t.epoch.startedAt;
    orderRows = st.orderCountsSince.all(since, END) as typeof orderRows;
    fillRows = st.summaryFillsOf.iterate(t.epoch.id) as typeof fillRows;
    adjustments = st.countAdjustmentsOf.get(t.epoch.id) as number;
    operations = st.countOperationsOf.get(t.epoch.id) as number;
    if (t.realized === true) realized = realizedOf(st, t.epoch.id);
  }
  const counts = new Map<string, number>();
  for (const r of orderRows) counts.set(r.status, r.n);
  const c = (s: StoredOrderStatus): number => counts.get(s) ?? 0;
  let recorded = 0;
  for (const n of counts.values()) recorded += n;
  const bot = tally();
  const ext = tally();
  for (const r of fillRows) {
    const x = r.source === 'external' ? ext : bot;
    if (r.void) {
      x.voids++;
      continue;
    }
    x.fills++;
    x.volume += BigInt(r.size);
    x.notional += BigInt(r.size) * BigInt(r.price);
    x.fees += BigInt(r.fee);
  }
  const scope: SummaryScope = t.scope;
  return {
    scope,
    epoch: t.epoch?.id ?? null,
    session: t.scope === 'session' ? t.session.id : null,
    since,
    ordersRecorded: recorded,
    ordersPlaced: c('live') + c('partially_filled') + c('filled') + c('cancelled'),
    ordersCancelled: c('cancelled'),
    ordersRejected: c('rejected'),
    ordersOpen: c('pending') + c('live') + c('partially_filled') + c('unknown'),
    fills: bot.fills,
    voidFills: bot.voids,
    volume: Number(bot.volume),
    notional: Number(bot.notional / BigInt(PRICE_SCALE)),
    fees: Number(bot.fees),
    externalFills: ext.fills,
    externalVolume: Number(ext.volume),
    externalNotional: Number(ext.notional / BigInt(PRICE_SCALE)),
    externalFees: Number(ext.fees),
    adjustments,
    operations,
    rewardsPaid: rewards.paid,
    rewardsEstimated: rewards.estimated,
    ...(realized !== undefined ? { realized } : {}),
  };
}
