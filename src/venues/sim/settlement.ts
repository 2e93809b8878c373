/**
 * Settlement of a resolved market: its tokens' shares are paid 1 (the winning token) or 0 in
 * collateral and leave the account. Cancelling our orders on the market is the venue's, before.
 */
import type { TokenId } from '../../core/ids.ts';
import type { Micro } from '../../core/units.ts';
import type { SimLedger } from './sim-account.ts';
import type { MarketState } from './sim-state.ts';
import type { Settlement } from './sim-types.ts';

/**
 * Pays out the market's positions (1 collateral per winning share; a `winner` that is none of its
 * tokens pays nothing), marks it resolved and inactive, and records its settlement on it.
 * `cancelledOrders`: how many of our orders the resolution cancelled; `at`: clock time.
 */
export function settleMarket(
  m: MarketState,
  winner: TokenId,
  ledger: SimLedger,
  at: number,
  cancelledOrders: number,
): Settlement {
  m.resolved = true;
  m.info = { ...m.info, active: false };
  const positions: Array<{ tokenId: TokenId; shares: Micro; payout: Micro }> = [];
  let payout = 0;
  const win = m.tokens.find((t) => t.id === winner);
  for (const t of m.tokens) {
    const s = ledger.shares.get(t.id);
    const shares = s === undefined ? 0 : s.available + s.reserved;
    if (s !== undefined) {
      s.available = 0;
      s.reserved = 0;
    }
    const pay = t === win ? shares : 0; // 1 collateral per winning share: micro-shares to micro
    payout += pay;
    positions.push({ tokenId: t.id, shares: shares as Micro, payout: pay as Micro });
  }
  ledger.collateral += payout;
  ledger.settled += payout;
  const st: Settlement = {
    market: m.info.market,
    winningTokenId: win?.id,
    at,
    positions,
    payout: payout as Micro,
    cancelledOrders,
  };
  m.settlement = st;
  return st;
}
