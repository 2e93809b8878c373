/**
 * The paper exchange's trade log: every trade in match order, by id and by the accounts that took
 * part in it, each with its transaction hash, and each token's last trade. It is state the exchange
 * derives from the engine's trade events as it drains them (exchange.ts), so replaying the journal
 * rebuilds it; it lives apart from the command log, which only feeds it, and from the routes that
 * read it (GET /trades, /data/trades, the data API, last-trade-price).
 */
import { keccak256, toUtf8Bytes } from 'ethers';
import { PRICE_SCALE } from '../core/units.ts';
import type { Trade } from './matching/types.ts';
import type { TradeRecord } from './exchange-types.ts';

/** A token's last trade: its price (pips, that token's scale), the side taken, when (unix ms). */
export interface LastTrade {
  price: number;
  side: 'BUY' | 'SELL';
  at: number;
}

/** Trades by id and by account, and each token's last trade (see the module comment). */
export class TradeLog {
  private readonly trades: TradeRecord[] = [];
  private readonly tradeById = new Map<string, TradeRecord>();
  private readonly tradesByAccount = new Map<string, TradeRecord[]>();
  private readonly lastTrade = new Map<string, LastTrade>();

  /** Log a trade under its id and under every account that took part (taker and makers). */
  add(t: Trade): void {
    // the hash (keccak: ~7 % of a synthetic backtest's CPU) is made when first read: most trades'
    // never are (the world's agents trade among themselves); the value is the same either way
    let hash: string | undefined;
    const rec: TradeRecord = {
      trade: t,
      get transactionHash(): string {
        return (hash ??= keccak256(toUtf8Bytes(`tx:${t.id}`)));
      },
    };
    this.trades.push(rec);
    this.tradeById.set(t.id, rec);
    const accounts = new Set<string>([t.takerAccount, ...t.makers.map((m) => m.account)]);
    for (const a of accounts) {
      let list = this.tradesByAccount.get(a);
      if (list === undefined) this.tradesByAccount.set(a, (list = []));
      list.push(rec);
    }
  }

  /**
   * The last trade of a trade's token and of `other`, its market's other token (undefined: the
   * market is unknown, nothing is noted), at the price of the trade's last maker fill.
   */
  noteLast(t: Trade, other: string | undefined): void {
    const last = t.makers[t.makers.length - 1];
    if (last !== undefined && other !== undefined) {
      const pxFor = (tok: string) => (last.tokenId === tok ? last.price : PRICE_SCALE - last.price);
      this.lastTrade.set(t.tokenId, { price: pxFor(t.tokenId), side: t.side, at: t.matchTime });
      this.lastTrade.set(other, { price: pxFor(other), side: t.side === 'BUY' ? 'SELL' : 'BUY', at: t.matchTime });
    }
  }

  /** Trades an account took part in, in match order. */
  of(account: string): readonly TradeRecord[] {
    return this.tradesByAccount.get(account) ?? [];
  }

  /** Trades of any of `accounts`, in match order, each once. */
  ofAccounts(accounts: readonly string[]): readonly TradeRecord[] {
    const trading = accounts.filter((a) => this.of(a).length > 0);
    if (trading.length === 0) return [];
    if (trading.length === 1) return this.of(trading[0]!);
    const seen = new Set<TradeRecord>();
    for (const a of trading) for (const t of this.of(a)) seen.add(t);
    return [...seen].sort((x, y) => x.trade.matchTime - y.trade.matchTime);
  }

  /** Every trade, in match order. */
  all(): readonly TradeRecord[] {
    return this.trades;
  }

  /** The trade `id`, or undefined. */
  get(id: string): TradeRecord | undefined {
    return this.tradeById.get(id);
  }

  /** A token's last trade, or undefined. */
  last(tokenId: string): LastTrade | undefined {
    return this.lastTrade.get(tokenId);
  }
}
