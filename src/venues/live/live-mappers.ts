/**
 * The live venue's mappers between the CLOB client's records and the port's shapes: open orders
 * and trades back to the wire record form the user stream's reconciliation validates, VenueOrder,
 * VenueFill (with the venue's taker fee), MarketInfo of a CLOB market, CancelOutcome. Pure.
 */
import type { ClobMarket, OpenOrder, Trade } from '../../api/clob.ts';
import type { MarketRewards } from '../../api/schemas/rewards.ts';
import { maxSpreadFromCents, type RewardConfig } from '../../core/rewards.ts';
import {
  fillsOf,
  normaliseOrderStatus,
  parseWith,
  tradeRecordSchema,
  type UserIdentity,
} from '../../api/streams/user-decode.ts';
import type { OrderId } from '../../core/ids.ts';
import { DEFAULT_FEE_PROTOCOL, takerFee, type FeeProtocol } from '../../core/fees.ts';
import { formatAmount, formatPrice, type Micro } from '../../core/units.ts';
import type { CancelOutcome, MarketInfo, VenueFill, VenueOrder } from '../../core/venue.ts';

/** An OpenOrder of the CLOB client back to the record form of /data/orders. */
export function orderRecord(o: OpenOrder): Record<string, unknown> {
  return {
    id: o.id,
    market: o.market,
    asset_id: o.assetId,
    side: o.side,
    price: formatPrice(o.price),
    original_size: formatAmount(o.originalSize),
    size_matched: formatAmount(o.sizeMatched),
    status: String(o.status).toUpperCase(),
    ...(o.makerAddress !== '' ? { maker_address: o.makerAddress } : {}),
    ...(o.createdAt !== undefined ? { created_at: o.createdAt } : {}),
  };
}

/** A Trade of the CLOB client back to the record form of /data/trades. */
export function tradeRecord(t: Trade): Record<string, unknown> {
  return {
    id: t.id,
    taker_order_id: t.takerOrderId,
    market: t.market,
    asset_id: t.assetId,
    side: t.side,
    size: formatAmount(t.size),
    price: formatPrice(t.price),
    status: t.status,
    fee_rate_bps: String(t.feeRateBps),
    trader_side: t.traderSide,
    owner: t.owner,
    maker_address: t.makerAddress,
    match_time: t.matchTime,
    ...(t.lastUpdate !== undefined ? { last_update: t.lastUpdate } : {}),
    maker_orders: t.makerOrders.map((m) => ({
      order_id: m.orderId,
      owner: m.owner,
      maker_address: m.makerAddress,
      matched_amount: formatAmount(m.matchedAmount),
      price: formatPrice(m.price),
      asset_id: m.assetId,
      side: m.side,
      fee_rate_bps: String(m.feeRateBps),
    })),
  };
}

/** An OpenOrder as the port's VenueOrder (status upper case; an unknown status reads as LIVE). */
export function toVenueOrder(o: OpenOrder): VenueOrder {
  return {
    id: o.id,
    market: o.market,
    tokenId: o.assetId,
    side: o.side,
    price: o.price,
    originalSize: o.originalSize,
    sizeMatched: o.sizeMatched,
    status: normaliseOrderStatus(String(o.status)) ?? 'LIVE',
  };
}

/**
 * The venue's taker fee of a single match under `protocol` (core/fees.ts `takerFee`: V2 the curve
 * size × rate × p × (1 − p) floored to 0.00001, V1 size × rate × min(p, 1 − p) floored to a micro).
 * @param protocol default 2, the paper exchange's default protocol
 */
export function feeOf(
  size: number,
  price: number,
  feeRateBps: number,
  protocol: FeeProtocol = DEFAULT_FEE_PROTOCOL,
): Micro {
  if (feeRateBps <= 0) return 0 as Micro;
  return takerFee(protocol, size, price, feeRateBps);
}

/**
 * The own fills of trade records (the records of /data/trades), as the port's VenueFills. A CLOB
 * trade record carries the fee rate, not the fee: a taker fill's fee is the venue's charge computed
 * from the record's maker orders, each match apart, under `protocol` (user-decode.ts
 * `tradeTakerFee`); a maker's is 0.
 * @param protocol the order protocol the venue charges under (the live venue's orders'); default 2
 */
export function venueFillsOf(
  records: readonly unknown[],
  me: UserIdentity,
  protocol: FeeProtocol = DEFAULT_FEE_PROTOCOL,
): VenueFill[] {
  const out: VenueFill[] = [];
  for (const rec of records) {
    const r = parseWith(tradeRecordSchema, rec);
    if (!r.ok) continue;
    const matchTime =
      r.value.match_time >= 0 ? r.value.match_time : r.value.last_update >= 0 ? r.value.last_update : r.value.timestamp;
    for (const f of fillsOf(r.value, me, 'reconcile', 0, protocol)) {
      out.push({
        tradeId: f.tradeId,
        orderId: f.orderId,
        market: f.market,
        tokenId: f.tokenId,
        side: f.side,
        price: f.price,
        size: f.size,
        role: f.role,
        fee: f.role === 'TAKER' ? (f.fee ?? feeOf(f.size, f.price, f.feeRateBps, protocol)) : (0 as Micro),
        status: f.status,
        matchTime: matchTime < 0 ? 0 : matchTime,
      });
    }
  }
  return out;
}

/** The engine's MarketInfo of a CLOB market record, or undefined when the market is not binary. */
export function toMarketInfo(m: ClobMarket, feeRateBps: number): MarketInfo | undefined {
  if (m.tokens.length !== 2) return undefined;
  const [a, b] = m.tokens as [ClobMarket['tokens'][0], ClobMarket['tokens'][0]];
  return {
    market: m.conditionId,
    question: m.question,
    tokens: [
      { tokenId: a.tokenId, outcome: a.outcome },
      { tokenId: b.tokenId, outcome: b.outcome },
    ],
    tick: m.tickSize,
    minOrderSize: m.minOrderSize,
    negRisk: m.negRisk,
    feeRateBps,
    active: m.active && !m.closed && m.acceptingOrders,
    endDate: m.endDateIso ?? '',
    rewards: rewardConfigOf(m.rewards),
  };
}

/**
 * The scoring config of a CLOB market record's `rewards` (core/rewards.ts): max spread in pips
 * (cents x 100), min size in micro-shares, the daily pool the sum of every rate (micro per day).
 * Null without rewards: `rates` null or empty, a zero pool, or a max spread that is not a positive
 * whole number of pips.
 */
export function rewardConfigOf(r: MarketRewards | null | undefined): RewardConfig | null {
  if (r == null || r.rates.length === 0) return null;
  let daily = 0;
  for (const x of r.rates) daily += x.dailyRate;
  const maxSpread = maxSpreadFromCents(Number(r.maxSpread));
  if (daily <= 0 || maxSpread === null) return null;
  return { maxSpread, minSize: r.minSize, dailyRate: daily as Micro };
}

/** The port's CancelOutcome of one DELETE /orders answer. */
export function cancelOutcome(r: { canceled: readonly OrderId[]; notCanceled: Record<string, string> }): CancelOutcome {
  return { canceled: [...r.canceled], notCanceled: new Map(Object.entries(r.notCanceled) as Array<[OrderId, string]>) };
}
