/**
 * The price ranges `mmkit strategy check` reports per market: per token in that token's own prices
 * (a YES bid and a NO bid are both bids, on different books), and the market's whole quote in YES
 * prices (a NO bid at p is a YES ask at 1 − p, a NO ask at p a YES bid at 1 − p), so quotes of the
 * two tokens are never shown in one range where they would look crossed.
 */
import { formatPrice, parsePrice, PRICE_SCALE } from '../core/units.ts';

/** What the ranges need of one order (decimal price). */
export interface QuotedOrder {
  readonly tokenId: string;
  readonly side: string;
  readonly price: string;
}

/** Bids and asks on one book: counts and "low to high" price ranges (null: none). */
export interface SideRanges {
  bids: number;
  asks: number;
  bidPrices: string | null;
  askPrices: string | null;
}

/** One token's quotes, in its own prices. */
export interface TokenRanges extends SideRanges {
  tokenId: string;
  /** Its outcome ("Yes", "No", …), null when unknown. */
  outcome: string | null;
}

/** A market's quotes: per token, and all of them in the first (YES) token's prices. */
export interface MarketRanges {
  tokens: TokenRanges[];
  /** Every quote of the market as YES prices; null when the market's YES token is unknown. */
  inYes: SideRanges | null;
}

/** "0.16 to 0.2" (or "0.2" for one price); null for none. */
function range(prices: readonly number[]): string | null {
  if (prices.length === 0) return null;
  const lo = Math.min(...prices);
  const hi = Math.max(...prices);
  return lo === hi ? formatPrice(lo) : `${formatPrice(lo)} to ${formatPrice(hi)}`;
}

function sides(bids: readonly number[], asks: readonly number[]): SideRanges {
  return { bids: bids.length, asks: asks.length, bidPrices: range(bids), askPrices: range(asks) };
}

/**
 * The ranges of one market's orders.
 * @param tokens the market's tokens in listing order (the first is YES) with their outcomes; tokens
 *   of `orders` not listed follow in the order they appear, outcome unknown
 */
export function quoteRanges(
  orders: readonly QuotedOrder[],
  tokens: readonly { readonly tokenId: string; readonly outcome: string | null }[],
): MarketRanges {
  const ids = [...tokens.map((t) => t.tokenId), ...orders.map((o) => o.tokenId)].filter(
    (id, i, all) => all.indexOf(id) === i,
  );
  const pips = (tokenId: string, side: string) =>
    orders.filter((o) => o.tokenId === tokenId && o.side === side).map((o) => parsePrice(o.price, 'half-up'));
  const out: TokenRanges[] = [];
  for (const tokenId of ids) {
    const bids = pips(tokenId, 'BUY');
    const asks = pips(tokenId, 'SELL');
    if (bids.length === 0 && asks.length === 0) continue;
    out.push({
      tokenId,
      outcome: tokens.find((t) => t.tokenId === tokenId)?.outcome ?? null,
      ...sides(bids, asks),
    });
  }
  const [yes, no] = tokens;
  let inYes: SideRanges | null = null;
  if (yes !== undefined) {
    const flip = (ps: number[]) => ps.map((p) => PRICE_SCALE - p);
    const noBids = no === undefined ? [] : pips(no.tokenId, 'BUY');
    const noAsks = no === undefined ? [] : pips(no.tokenId, 'SELL');
    inYes = sides([...pips(yes.tokenId, 'BUY'), ...flip(noAsks)], [...pips(yes.tokenId, 'SELL'), ...flip(noBids)]);
  }
  return { tokens: out, inYes };
}

/** One line of text: "Yes 3 bid(s) 0.16 to 0.2, 1 ask(s) 0.78; No 3 bid(s) …; in YES prices bids …, asks …". */
export function describeRanges(r: MarketRanges): string {
  const one = (s: SideRanges) =>
    `${s.bids} bid(s)${s.bidPrices ? ` ${s.bidPrices}` : ''}, ${s.asks} ask(s)${s.askPrices ? ` ${s.askPrices}` : ''}`;
  const parts = r.tokens.map((t) => `${t.outcome ?? `token ${t.tokenId.slice(0, 10)}…`} ${one(t)}`);
  if (parts.length === 0) return 'no quotes';
  if (r.inYes !== null && r.tokens.length > 1)
    parts.push(`in YES prices: bids ${r.inYes.bidPrices ?? 'none'}, asks ${r.inYes.askPrices ?? 'none'}`);
  return parts.join('; ');
}
