/**
 * User-channel messages and the REST records of /data/orders and /data/trades to own-order and
 * fill events (pure), and the dedupe that lets the stream and the reconciliation overlap without
 * emitting anything twice.
 *
 * Identity: the user's API key (`owner` of their orders) and, optionally, their address
 * (`maker_address`). A trade is the taker's trade with its maker orders; the user's orders in it
 * are the taker order when `trader_side` is TAKER, and the maker orders they own. A resting
 * order's fill can be on the complementary token: its token, side and price are the maker
 * order's own.
 */
import { z } from 'zod';
import type { FillEvent, OrderStatus, OrderUpdateEvent, TradeStatus, UserEventSource } from '../../core/events.ts';
import type { ConditionId, OrderId, TokenId, TradeId } from '../../core/ids.ts';
import { takerFee, takerFeeOfMatches, type FeeProtocol } from '../../core/fees.ts';
import { parsePrice, PRICE_SCALE, type Micro, type Pips } from '../../core/units.ts';
import { zFeeBps, zId, zLevelPrice, zodReason, zSide, zSize, zTimestamp } from './decode.ts';

const ORDER_STATUSES: ReadonlySet<string> = new Set<OrderStatus>([
  'LIVE',
  'MATCHED',
  'CANCELED',
  'DELAYED',
  'UNMATCHED',
]);
const TRADE_STATUSES: ReadonlySet<string> = new Set<TradeStatus>([
  'MATCHED',
  'MINED',
  'CONFIRMED',
  'RETRYING',
  'FAILED',
]);

/** An order status in any case, with the "ORDER_STATUS_" prefix some APIs use, "CANCELLED" spelt either way. */
export function normaliseOrderStatus(s: string): OrderStatus | undefined {
  let u = s.trim().toUpperCase();
  if (u.startsWith('ORDER_STATUS_')) u = u.slice('ORDER_STATUS_'.length);
  if (u === 'CANCELLED') u = 'CANCELED';
  return ORDER_STATUSES.has(u) ? (u as OrderStatus) : undefined;
}

/** A trade status in any case ("TRADE_STATUS_" prefix accepted). */
export function normaliseTradeStatus(s: string): TradeStatus | undefined {
  let u = s.trim().toUpperCase();
  if (u.startsWith('TRADE_STATUS_')) u = u.slice('TRADE_STATUS_'.length);
  return TRADE_STATUSES.has(u) ? (u as TradeStatus) : undefined;
}

const zOrderStatus = z.string().transform((s, ctx) => {
  const v = normaliseOrderStatus(s);
  if (v === undefined) {
    ctx.addIssue({ code: 'custom', message: `unknown order status ${JSON.stringify(s.slice(0, 20))}` });
    return z.NEVER;
  }
  return v;
});
const zTradeStatus = z.string().transform((s, ctx) => {
  const v = normaliseTradeStatus(s);
  if (v === undefined) {
    ctx.addIssue({ code: 'custom', message: `unknown trade status ${JSON.stringify(s.slice(0, 20))}` });
    return z.NEVER;
  }
  return v;
});
/** A taker's (size-weighted) trade price: rounded half-up to a pip, in [1, 9999]. */
const zTradePrice = z.string().transform((s, ctx) => {
  let p = -1;
  try {
    p = parsePrice(s, 'half-up');
  } catch {
    /* refused below */
  }
  if (!(p >= 1 && p <= 9999)) {
    ctx.addIssue({ code: 'custom', message: `bad trade price ${JSON.stringify(s.slice(0, 24))}` });
    return z.NEVER;
  }
  return p;
});
const zOrderKind = z.string().transform((s, ctx) => {
  const u = s.toUpperCase();
  if (u !== 'PLACEMENT' && u !== 'UPDATE' && u !== 'CANCELLATION') {
    ctx.addIssue({ code: 'custom', message: `unknown order event type ${JSON.stringify(s.slice(0, 20))}` });
    return z.NEVER;
  }
  return u as 'PLACEMENT' | 'UPDATE' | 'CANCELLATION';
});

const orderFields = {
  id: zId,
  market: zId,
  asset_id: zId,
  side: zSide,
  price: zLevelPrice,
  original_size: zSize,
  size_matched: zSize,
  status: zOrderStatus,
  /** The order's maker: the account (the funder of a proxy / Safe wallet), when the venue says. */
  maker_address: z.string().optional(),
  timestamp: zTimestamp,
  created_at: zTimestamp,
};

/** A user-channel `order` message. */
export const orderMessageSchema = z.object({ event_type: z.literal('order'), type: zOrderKind, ...orderFields });
/** An order record of /data/orders or /data/order/{id}. */
export const orderRecordSchema = z.object(orderFields);

const makerOrderSchema = z.object({
  order_id: zId,
  owner: z.string().optional(),
  maker_address: z.string().optional(),
  matched_amount: zSize,
  price: zLevelPrice,
  asset_id: zId,
  side: zSide,
  fee_rate_bps: zFeeBps,
});

const tradeFields = {
  id: zId,
  taker_order_id: zId,
  market: zId,
  asset_id: zId,
  side: zSide,
  size: zSize,
  price: zTradePrice,
  status: zTradeStatus,
  fee_rate_bps: zFeeBps,
  trader_side: z.enum(['TAKER', 'MAKER']).optional(),
  owner: z.string().optional(),
  maker_address: z.string().optional(),
  maker_orders: z
    .array(makerOrderSchema)
    .optional()
    .transform((v) => v ?? []),
  timestamp: zTimestamp,
  last_update: zTimestamp,
  match_time: zTimestamp,
  matchtime: zTimestamp,
};

/** A user-channel `trade` message. */
export const tradeMessageSchema = z.object({ event_type: z.literal('trade'), ...tradeFields });
/** A trade record of /data/trades. */
export const tradeRecordSchema = z.object(tradeFields);

export type WireOrder = z.output<typeof orderRecordSchema>;
export type WireTrade = z.output<typeof tradeRecordSchema>;

/**
 * Who "own" is. One API key (the signer's, the EOA's) may trade for several accounts: the EOA
 * itself, and with signatureType 1 / 2 its proxy wallet, Safe or a registered funder (the order's
 * maker). The venue reports the key every order of all of them; the account's are those whose
 * maker_address is `address`.
 */
export interface UserIdentity {
  /** The API key: the `owner` of the user's orders. */
  apiKey: string;
  /**
   * The account address (the funder with a proxy / Safe wallet, else the EOA), lower case. When
   * set, an order the record names another maker_address for is not the user's, although the key
   * owns it (another account of the same key); one whose maker_address is this is the user's, even
   * under another owner. Absent: orders are recognised by owner alone.
   */
  address?: string;
}

/** Whose an order is, by its owner and its maker_address ('' or absent: the record does not say). */
function isMine(me: UserIdentity, owner: string | undefined, makerAddress: string | undefined): boolean {
  const addr = me.address?.toLowerCase();
  if (addr !== undefined && makerAddress !== undefined && makerAddress !== '')
    return makerAddress.toLowerCase() === addr;
  return owner !== undefined && owner === me.apiKey;
}

/**
 * True when a trade record carries an order of the user's API key (owner) for another account
 * than `me.address` (e.g. the EOA's own order while the user is its Safe): not the user's, and no
 * malformed record either.
 */
export function keysOtherAccount(t: WireTrade, me: UserIdentity): boolean {
  const addr = me.address?.toLowerCase();
  if (addr === undefined) return false;
  const other = (owner: string | undefined, maker: string | undefined) =>
    owner !== undefined && owner === me.apiKey && maker !== undefined && maker !== '' && maker.toLowerCase() !== addr;
  return other(t.owner, t.maker_address) || t.maker_orders.some((mo) => other(mo.owner, mo.maker_address));
}

/** True when an order record names a maker_address other than `me.address` (another account of the key). */
export function othersOrder(m: { maker_address?: string | undefined }, me: UserIdentity): boolean {
  const addr = me.address?.toLowerCase();
  return (
    addr !== undefined &&
    m.maker_address !== undefined &&
    m.maker_address !== '' &&
    m.maker_address.toLowerCase() !== addr
  );
}

const firstTime = (...ts: number[]): number => {
  for (const t of ts) if (t >= 0) return t;
  return -1;
};

/** An order (message or record) as an order_update event. */
export function orderEvent(
  m: WireOrder,
  kind: OrderUpdateEvent['kind'],
  source: UserEventSource,
  recvTime: number,
): OrderUpdateEvent {
  const t = firstTime(m.timestamp, m.created_at);
  return {
    type: 'order_update',
    kind,
    venueTime: t < 0 ? recvTime : t,
    recvTime,
    id: m.id as OrderId,
    market: m.market as ConditionId,
    tokenId: m.asset_id as TokenId,
    side: m.side,
    price: m.price as Pips,
    originalSize: m.original_size as Micro,
    sizeMatched: m.size_matched as Micro,
    status: m.status,
    source,
  };
}

/**
 * The taker fee of a trade as the venue charged it under `protocol`: each maker order's match at
 * its price on the taker's token (the maker's price, or 1 − it for a maker on the complementary
 * token) charged apart (core/fees.ts `takerFeeOfMatches`), when the maker orders account for the
 * whole trade; else the fee of the trade's size at its average price (exact for a single match).
 */
export function tradeTakerFee(t: WireTrade, protocol: FeeProtocol): Micro {
  let matched = 0;
  for (const mo of t.maker_orders) matched += mo.matched_amount;
  if (t.maker_orders.length === 0 || matched !== t.size) return takerFee(protocol, t.size, t.price, t.fee_rate_bps);
  const matches = t.maker_orders.map(
    (mo) => [mo.asset_id === t.asset_id ? mo.price : PRICE_SCALE - mo.price, mo.matched_amount] as const,
  );
  return takerFeeOfMatches(protocol, matches, t.fee_rate_bps);
}

/**
 * The fills of the user's orders in a trade (message or record): the taker order when the user
 * was the taker, and every maker order the user owns. Empty when none is recognisably theirs.
 * @param feeProtocol the order protocol the venue charges fees under: when given, the taker fill
 *   carries its fee ({@link tradeTakerFee}) and a maker fill 0; absent, the fills carry the rate only
 */
export function fillsOf(
  t: WireTrade,
  me: UserIdentity,
  source: UserEventSource,
  recvTime: number,
  feeProtocol?: FeeProtocol,
): FillEvent[] {
  const ts = firstTime(t.timestamp, t.last_update, t.match_time, t.matchtime);
  const venueTime = ts < 0 ? recvTime : ts;
  const role = t.trader_side ?? (t.owner !== undefined && t.owner === me.apiKey ? 'TAKER' : 'MAKER');
  // the taker order is the user's when the trade says so and its maker (the taker's account) is not
  // another account of the key (the public service names it in the record's maker_address)
  const addr = me.address?.toLowerCase();
  const takerMine =
    role === 'TAKER' &&
    (addr === undefined ||
      t.maker_address === undefined ||
      t.maker_address === '' ||
      t.maker_address.toLowerCase() === addr);
  const base = {
    type: 'fill' as const,
    venueTime,
    recvTime,
    tradeId: t.id as TradeId,
    status: t.status,
    market: t.market as ConditionId,
    takerOrderId: t.taker_order_id as OrderId,
    source,
  };
  const out: FillEvent[] = [];
  if (takerMine) {
    out.push({
      ...base,
      orderId: t.taker_order_id as OrderId,
      role: 'TAKER',
      tokenId: t.asset_id as TokenId,
      side: t.side,
      price: t.price as Pips,
      size: t.size as Micro,
      feeRateBps: t.fee_rate_bps,
      ...(feeProtocol !== undefined ? { fee: tradeTakerFee(t, feeProtocol) } : {}),
    });
  }
  for (const mo of t.maker_orders) {
    if (!isMine(me, mo.owner, mo.maker_address)) continue;
    out.push({
      ...base,
      orderId: mo.order_id as OrderId,
      role: 'MAKER',
      tokenId: mo.asset_id as TokenId,
      side: mo.side,
      price: mo.price as Pips,
      size: mo.matched_amount as Micro,
      feeRateBps: mo.fee_rate_bps,
      ...(feeProtocol !== undefined ? { fee: 0 as Micro } : {}),
    });
  }
  return out;
}

/** Parses with a schema: the output, or a short reason. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  v: unknown,
): { ok: true; value: z.output<S> } | { ok: false; reason: string } {
  const r = schema.safeParse(v);
  return r.success ? { ok: true, value: r.data } : { ok: false, reason: zodReason(r.error) };
}

// ---- dedupe ---------------------------------------------------------------------------------------

const TERMINAL_ORDER: ReadonlySet<OrderStatus> = new Set<OrderStatus>(['MATCHED', 'CANCELED', 'UNMATCHED']);
const TRADE_RANK: Readonly<Record<TradeStatus, number>> = {
  MATCHED: 0,
  RETRYING: 1,
  MINED: 1,
  CONFIRMED: 2,
  FAILED: 2,
};
const TRADE_BIT: Readonly<Record<TradeStatus, number>> = {
  MATCHED: 1,
  MINED: 2,
  CONFIRMED: 4,
  RETRYING: 8,
  FAILED: 16,
};

/**
 * Remembers what was emitted so the stream and the reconciliation can overlap:
 *  - an order is emitted when its (status, sizeMatched) is new, never after a terminal status
 *    (MATCHED, CANCELED, UNMATCHED) and never with a smaller sizeMatched than already emitted;
 *  - a fill is emitted once per (trade id, order id, status), and never with a status that ranks
 *    below one already emitted for that pair (MATCHED < MINED, RETRYING < CONFIRMED, FAILED).
 * Bounded: the oldest entries go first beyond `capacity` per kind (consumers still key fills by
 * (trade id, order id)).
 */
export class UserDedupe {
  private readonly orders = new Map<string, { status: OrderStatus; sizeMatched: number; terminal: boolean }>();
  private readonly fills = new Map<string, { mask: number; rank: number }>();

  constructor(private readonly capacity = 100_000) {}

  /** True when the order is known (seen on the stream or in a reconciliation). */
  knowsOrder(id: string): boolean {
    return this.orders.has(id);
  }

  /** Decides whether this order state is new; records it when it is. */
  order(id: string, status: OrderStatus, sizeMatched: number): boolean {
    const prev = this.orders.get(id);
    if (prev !== undefined) {
      if (prev.terminal) return false;
      if (sizeMatched < prev.sizeMatched) return false;
      if (sizeMatched === prev.sizeMatched && status === prev.status) return false;
      this.orders.delete(id); // re-insert: most recent last
    }
    this.orders.set(id, { status, sizeMatched, terminal: TERMINAL_ORDER.has(status) });
    this.trim(this.orders);
    return true;
  }

  /** True when some status of this fill (trade and order) was seen already. */
  knowsFill(tradeId: string, orderId: string): boolean {
    return this.fills.has(`${tradeId}|${orderId}`);
  }

  /** Decides whether this fill status is new; records it when it is. */
  fill(tradeId: string, orderId: string, status: TradeStatus): boolean {
    const key = `${tradeId}|${orderId}`;
    const bit = TRADE_BIT[status];
    const rank = TRADE_RANK[status];
    const prev = this.fills.get(key);
    if (prev !== undefined) {
      if ((prev.mask & bit) !== 0 || rank < prev.rank) return false;
      prev.mask |= bit;
      prev.rank = Math.max(prev.rank, rank);
      return true;
    }
    this.fills.set(key, { mask: bit, rank });
    this.trim(this.fills);
    return true;
  }

  /** Ids of orders last seen in a non-terminal status (what a reconciliation should look up). */
  openOrderIds(): string[] {
    const out: string[] = [];
    for (const [id, o] of this.orders) if (!o.terminal) out.push(id);
    return out;
  }

  private trim(m: Map<string, unknown>): void {
    while (m.size > this.capacity) {
      const k = m.keys().next().value;
      if (k === undefined) break;
      m.delete(k);
    }
  }
}
