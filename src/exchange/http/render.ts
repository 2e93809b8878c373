/**
 * Wire renderers of the CLOB API: internal integers become the venue's decimal strings here and
 * nowhere else.
 */
import { createHash } from 'node:crypto';
import { formatAmount, formatPrice, PRICE_SCALE } from '../../core/units.ts';
import type { BookView, OrderState } from '../matching/types.ts';
import { ownerAlias } from '../accounts/keys.ts';
import type { PaperExchange, TradeRecord } from '../exchange.ts';

/** Half-pips (a mid may fall between two pips) as a decimal string. */
export function formatMid(pips: number): string {
  return Number.isInteger(pips) ? formatPrice(pips) : formatAmount(Math.round(pips * 100));
}

/** The owner shown to `viewer`: their own API key, or an alias for anyone else's. */
function shownOwner(owner: string, viewerKey: string | undefined): string {
  return owner === viewerKey ? owner : ownerAlias(owner);
}

/**
 * An order as its owner reads it. A GTD order's `expiration` is the one it was sent with: the book
 * drops it `gtdThresholdSec` earlier (the public service's security threshold), at `expiresAt`.
 */
export function renderOrder(o: OrderState, viewerKey?: string, gtdThresholdSec = 0): Record<string, unknown> {
  return {
    id: o.id,
    status: o.status,
    owner: shownOwner(o.owner, viewerKey),
    maker_address: o.account,
    market: o.market,
    asset_id: o.tokenId,
    side: o.side,
    original_size: formatAmount(o.originalSize),
    size_matched: formatAmount(o.sizeMatched),
    price: formatPrice(o.price),
    outcome: o.outcome,
    associate_trades: [...o.tradeIds],
    created_at: Math.floor(o.createdAt / 1000),
    expiration: o.expiresAt > 0 ? String(Math.floor(o.expiresAt / 1000) + gtdThresholdSec) : '0',
    order_type: o.type,
  };
}

/**
 * A trade as `viewer` sees it: the taker's trade with its maker orders; `trader_side` says whether
 * the viewer was the taker or a maker.
 */
export function renderTrade(
  ex: PaperExchange,
  rec: TradeRecord,
  viewerAccount: string | undefined,
  viewerKey: string | undefined,
): Record<string, unknown> {
  const t = rec.trade;
  const status = ex.tradeStatus(t);
  const secs = String(Math.floor(t.matchTime / 1000));
  return {
    id: t.id,
    taker_order_id: t.takerOrderId,
    market: t.market,
    asset_id: t.tokenId,
    side: t.side,
    size: formatAmount(t.size),
    fee_rate_bps: String(t.feeRateBps),
    price: formatPrice(t.price),
    status,
    match_time: secs,
    last_update: secs,
    outcome: t.outcome,
    bucket_index: 0,
    owner: shownOwner(t.takerOwner, viewerKey),
    maker_address: t.takerAccount,
    transaction_hash: rec.transactionHash,
    trader_side: viewerAccount !== undefined && viewerAccount !== t.takerAccount ? 'MAKER' : 'TAKER',
    maker_orders: t.makers.map((m) => ({
      order_id: m.orderId,
      owner: shownOwner(m.owner, viewerKey),
      maker_address: m.account,
      matched_amount: formatAmount(m.size),
      price: formatPrice(m.price),
      fee_rate_bps: '0',
      asset_id: m.tokenId,
      outcome: m.outcome,
      side: m.side,
    })),
  };
}

export interface WireBook {
  market: string;
  asset_id: string;
  timestamp: string;
  hash: string;
  bids: Array<{ price: string; size: string }>;
  asks: Array<{ price: string; size: string }>;
  min_order_size: string;
  tick_size: string;
  neg_risk: boolean;
  last_trade_price: string;
}

/** Per exchange, per token: the book last rendered (without its time) and since when it has stood. */
const bookStamps = new WeakMap<PaperExchange, Map<string, { readonly state: string; readonly at: string }>>();

/**
 * The book of one token (REST `GET /book`, the market channel's `book`). Levels are ordered as the
 * public service orders them on REST, best LAST: bids ascending by price, asks descending (the
 * public client walks the arrays from the end). `hash` is the SHA-1 of the summary serialised with
 * hash "" (as the public client computes it). Its `timestamp` is when the book took this state (its
 * first render), not when it is read, so the hash stays the same until the book changes: a client
 * compares hashes to know whether the book changed between reads, as the public service documents.
 */
export function renderBook(ex: PaperExchange, view: BookView, now: number): WireBook {
  const found = ex.marketOfToken(view.tokenId);
  const last = ex.lastTradePrice(view.tokenId);
  const book: WireBook = {
    market: view.market,
    asset_id: view.tokenId,
    timestamp: '',
    hash: '',
    bids: view.bids.map((l) => ({ price: formatPrice(l.price), size: formatAmount(l.size) })).reverse(),
    asks: view.asks.map((l) => ({ price: formatPrice(l.price), size: formatAmount(l.size) })).reverse(),
    min_order_size: found ? formatAmount(found.entry.meta.minSizeMicro) : '0',
    tick_size: found ? found.entry.state.tick : '0.01',
    neg_risk: found ? found.entry.meta.negRisk : false,
    last_trade_price: last ? formatPrice(last.price) : '',
  };
  const state = JSON.stringify(book);
  let stamps = bookStamps.get(ex);
  if (stamps === undefined) bookStamps.set(ex, (stamps = new Map()));
  const seen = stamps.get(view.tokenId);
  if (seen !== undefined && seen.state === state) book.timestamp = seen.at;
  else {
    book.timestamp = String(now);
    stamps.set(view.tokenId, { state, at: book.timestamp });
  }
  book.hash = createHash('sha1').update(JSON.stringify(book)).digest('hex');
  return book;
}

export const complement = (p: number): number => PRICE_SCALE - p;
