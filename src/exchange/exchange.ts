/**
 * The paper exchange's state: the matching engine plus everything around it that the venue keeps:
 * markets, API keys, funding, the trade log, last prices, positions, the dead-man switch and
 * order expiry. The HTTP, WS and RTDS layers are thin around this class.
 */
import { keccak256, toUtf8Bytes } from 'ethers';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { AMOUNT_SCALE, impliedPrice, MAX_ORDER_MICRO, PRICE_SCALE, tickFromPips } from '../core/units.ts';
import { OrderHasher, recoverSigner, CTF_EXCHANGE, NEG_RISK_CTF_EXCHANGE, type SignedOrderStruct } from '../api/signing/order.ts';
import { MatchingEngine } from './matching/engine.ts';
import type { CancelReason, EngineEvent, OrderState, OrderType, RejectCode, Trade } from './matching/types.ts';
import { ApiKeyStore, newHeartbeatId, type ApiKeyRecord } from './accounts/keys.ts';
import { PositionBook } from './accounts/positions.ts';
import { toMarketDef, type LiveMarketState, type MarketMeta } from './markets.ts';

export interface ExchangeOptions {
  clock: Clock;
  chainId: number;
  /** Collateral credited to an address when it first creates an API key (micro). */
  startingCollateral: number;
  heartbeatTimeoutMs: number;
  /** The venue's GTD security threshold: an order lives until expiration - threshold. */
  gtdThresholdSec: number;
  /** Trade status progression: MATCHED, then MINED after minedMs, CONFIRMED after confirmedMs. */
  minedMs: number;
  confirmedMs: number;
  serverSecret?: Buffer;
  exchangeAddress?: string;
  negRiskExchangeAddress?: string;
}

export const DEFAULT_EXCHANGE_OPTIONS: Omit<ExchangeOptions, 'clock'> = {
  chainId: 137,
  startingCollateral: 10_000 * AMOUNT_SCALE,
  heartbeatTimeoutMs: 10_000,
  gtdThresholdSec: 60,
  minedMs: 2_000,
  confirmedMs: 5_000,
};

export interface MarketEntry {
  meta: MarketMeta;
  state: LiveMarketState;
}

export interface PlaceRequest {
  order: SignedOrderStruct;
  signature: string;
  owner: string;
  orderType: OrderType;
  postOnly: boolean;
  /** Optional builder attribution key (data API builder statistics). */
  builder?: string;
}

export type PlaceOutcome =
  | {
      ok: true;
      orderID: string;
      status: 'live' | 'matched' | 'unmatched' | 'delayed';
      makingAmount: number;
      takingAmount: number;
      tradeIds: string[];
      transactionsHashes: string[];
    }
  | { ok: false; orderID: string; code: RejectCode | 'INVALID_SIGNATURE' | 'INVALID_ORDER_OWNER'; message: string; httpStatus: number };

export type TradeStatus = 'MATCHED' | 'MINED' | 'CONFIRMED';

export interface TradeRecord {
  trade: Trade;
  transactionHash: string;
}

export type ExchangeListener = (events: readonly EngineEvent[]) => void;

export class PaperExchange {
  readonly opts: ExchangeOptions;
  readonly clock: Clock;
  readonly engine = new MatchingEngine();
  readonly keys: ApiKeyStore;
  readonly positions = new PositionBook();
  private readonly markets = new Map<string, MarketEntry>();
  private readonly tokenIndex = new Map<string, { entry: MarketEntry; index: 0 | 1 }>();
  private readonly trades: TradeRecord[] = [];
  private readonly tradeById = new Map<string, TradeRecord>();
  private readonly tradesByAccount = new Map<string, TradeRecord[]>();
  private readonly lastTrade = new Map<string, { price: number; side: 'BUY' | 'SELL' }>();
  private readonly heartbeats = new Map<string, { at: number; id: string }>();
  private readonly listeners = new Set<ExchangeListener>();
  private readonly funded = new Set<string>();
  private readonly hashers: { normal: OrderHasher; negRisk: OrderHasher };
  private timer: TimerHandle | undefined;

  constructor(opts: ExchangeOptions) {
    this.opts = opts;
    this.clock = opts.clock;
    this.keys = new ApiKeyStore(opts.serverSecret);
    this.hashers = {
      normal: new OrderHasher(opts.chainId, opts.exchangeAddress ?? CTF_EXCHANGE),
      negRisk: new OrderHasher(opts.chainId, opts.negRiskExchangeAddress ?? NEG_RISK_CTF_EXCHANGE),
    };
  }

  /** Starts the 1 s housekeeping timer: GTD expiry and the heartbeat dead-man switch. */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = this.clock.setInterval(() => this.tick(), 250);
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Expire GTD orders and enforce heartbeats at the current time. */
  tick(): void {
    const now = this.clock.now();
    this.engine.advance(now);
    for (const [account, hb] of this.heartbeats) {
      if (now - hb.at > this.opts.heartbeatTimeoutMs) {
        this.heartbeats.delete(account);
        this.engine.cancelAll(account, now, 'HEARTBEAT');
      }
    }
    this.flush();
  }

  subscribe(fn: ExchangeListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Drain the engine's events, update derived state and notify listeners. */
  private flush(): void {
    const events = this.engine.drainEvents();
    if (events.length === 0) return;
    for (const e of events) {
      if (e.type === 'trade') this.recordTrade(e.trade);
      else if (e.type === 'tick_size_change') {
        const entry = this.markets.get(e.market);
        if (entry) entry.state.tick = tickFromPips(e.newTickPips);
      } else if (e.type === 'market_status') {
        const entry = this.markets.get(e.market);
        if (entry) {
          entry.state.status = e.status;
          entry.state.winningToken = e.winningToken;
          if (e.status === 'resolved' && e.winningToken) this.positions.resolve(entry.meta.tokens, e.winningToken);
        }
      }
    }
    for (const fn of this.listeners) fn(events);
  }

  /** Builder attribution per order id (orders may carry a builder key). */
  readonly orderBuilder = new Map<string, string>();

  private recordTrade(t: Trade): void {
    const rec: TradeRecord = { trade: t, transactionHash: keccak256(toUtf8Bytes(`tx:${t.id}`)) };
    this.trades.push(rec);
    this.tradeById.set(t.id, rec);
    const accounts = new Set<string>([t.takerAccount, ...t.makers.map((m) => m.account)]);
    for (const a of accounts) {
      let list = this.tradesByAccount.get(a);
      if (list === undefined) this.tradesByAccount.set(a, (list = []));
      list.push(rec);
    }
    this.positions.applyTrade(t);
    const last = t.makers[t.makers.length - 1];
    if (last !== undefined) {
      const makerTokenPx = last.price;
      const otherToken = (tok: string): string | undefined => {
        const e = this.tokenIndex.get(tok);
        return e ? e.entry.meta.tokens[e.index === 0 ? 1 : 0] : undefined;
      };
      this.lastTrade.set(t.tokenId, { price: last.tokenId === t.tokenId ? makerTokenPx : PRICE_SCALE - makerTokenPx, side: t.side });
      const other = otherToken(t.tokenId);
      if (other !== undefined)
        this.lastTrade.set(other, { price: last.tokenId === other ? makerTokenPx : PRICE_SCALE - makerTokenPx, side: t.side === 'BUY' ? 'SELL' : 'BUY' });
    }
  }

  // ---- markets -------------------------------------------------------------------------------

  addMarket(meta: MarketMeta): MarketEntry {
    const entry: MarketEntry = {
      meta,
      state: { status: 'active', tick: meta.tick, lastPrice: [undefined, undefined], mid: [undefined, undefined] },
    };
    this.engine.addMarket(toMarketDef(meta));
    this.markets.set(meta.conditionId, entry);
    this.tokenIndex.set(meta.tokens[0], { entry, index: 0 });
    this.tokenIndex.set(meta.tokens[1], { entry, index: 1 });
    return entry;
  }

  listMarkets(): MarketEntry[] {
    return [...this.markets.values()];
  }
  market(conditionId: string): MarketEntry | undefined {
    return this.markets.get(conditionId) ?? this.markets.get(conditionId.toLowerCase());
  }
  marketOfToken(tokenId: string): { entry: MarketEntry; index: 0 | 1 } | undefined {
    return this.tokenIndex.get(tokenId);
  }
  /** Live state with mids and last prices refreshed. */
  marketState(entry: MarketEntry): LiveMarketState {
    for (const i of [0, 1] as const) {
      const tok = entry.meta.tokens[i];
      const bba = this.engine.bestBidAsk(tok);
      entry.state.mid[i] = bba.bid !== null && bba.ask !== null ? (bba.bid + bba.ask) / 2 : undefined;
      entry.state.lastPrice[i] = this.lastTrade.get(tok)?.price;
    }
    return entry.state;
  }
  lastTradePrice(tokenId: string): { price: number; side: 'BUY' | 'SELL' } | undefined {
    return this.lastTrade.get(tokenId);
  }

  setTickSize(conditionId: string, tickPips: number): void {
    this.engine.setTickSize(conditionId, tickPips, this.clock.now());
    this.flush();
  }
  closeMarket(conditionId: string): void {
    this.engine.closeMarket(conditionId, this.clock.now());
    this.flush();
  }
  resolveMarket(conditionId: string, winningToken: string): void {
    this.engine.resolveMarket(conditionId, winningToken, this.clock.now());
    this.flush();
  }

  // ---- accounts ------------------------------------------------------------------------------

  /** Credit collateral (micro) to an address. */
  fund(address: string, micro: number): void {
    this.engine.credit(address.toLowerCase(), micro);
    this.funded.add(address.toLowerCase());
    this.flush();
  }

  /** Creates the key for (address, nonce); the address gets its starting balance on its first key. */
  createApiKey(address: string, nonce: string): ApiKeyRecord | null {
    const rec = this.keys.create(address, nonce, this.clock.now());
    if (rec !== null) this.fundOnce(rec.address);
    return rec;
  }
  deriveApiKey(address: string, nonce: string): ApiKeyRecord {
    const rec = this.keys.deriveOrCreate(address, nonce, this.clock.now());
    this.fundOnce(rec.address);
    return rec;
  }
  private fundOnce(address: string): void {
    if (this.funded.has(address)) return;
    this.funded.add(address);
    if (this.opts.startingCollateral > 0) this.engine.credit(address, this.opts.startingCollateral);
    this.flush();
  }

  // ---- orders --------------------------------------------------------------------------------

  /** The order id (EIP-712 digest) of a signed order, for the market it trades in. */
  orderId(o: SignedOrderStruct, negRisk: boolean): string {
    return (negRisk ? this.hashers.negRisk : this.hashers.normal).digest(o);
  }

  /**
   * Validate, verify and place one signed order for the caller `key`.
   * Never throws for bad input: every refusal is a PlaceOutcome with a venue code.
   */
  place(key: ApiKeyRecord, req: PlaceRequest): PlaceOutcome {
    const o = req.order;
    const tokenId = o.tokenId.toString(10);
    const found = this.tokenIndex.get(tokenId);
    const orderID = this.orderId(o, found?.entry.meta.negRisk ?? false);
    const reject = (code: Extract<PlaceOutcome, { ok: false }>['code'], message: string, httpStatus = 400): PlaceOutcome => ({
      ok: false,
      orderID,
      code,
      message,
      httpStatus,
    });
    if (req.owner !== key.apiKey) return reject('INVALID_ORDER_OWNER', 'the order owner has to be the owner of the API KEY');
    if (o.signer.toLowerCase() !== key.address) return reject('INVALID_ORDER_OWNER', 'the order signer address has to be the address of the API KEY');
    if (o.signatureType === 0 && o.maker.toLowerCase() !== o.signer.toLowerCase())
      return reject('INVALID_ORDER_OWNER', 'for EOA orders (signatureType 0) maker must equal signer');
    if (found === undefined) return reject('MARKET_NOT_READY', `invalid token id: no market trades token ${tokenId.slice(0, 20)}…`);
    let signer: string;
    try {
      signer = recoverSigner(orderID, req.signature);
    } catch {
      return reject('INVALID_SIGNATURE', 'invalid order signature');
    }
    if (signer.toLowerCase() !== o.signer.toLowerCase())
      return reject('INVALID_SIGNATURE', 'invalid order signature: it does not recover the order signer (wrong key, chain or exchange contract?)');
    if (o.taker !== '0x0000000000000000000000000000000000000000' && o.taker.toLowerCase() !== '0x0000000000000000000000000000000000000000')
      return reject('INVALID_ORDER_ERROR', 'only public orders (taker = zero address) are supported');
    const side = o.side === 0 ? 'BUY' : 'SELL';
    if (o.makerAmount > BigInt(MAX_ORDER_MICRO) * 2n || o.takerAmount > BigInt(MAX_ORDER_MICRO) * 2n)
      return reject('INVALID_ORDER_ERROR', 'order amounts too large');
    const ip = impliedPrice(side, o.makerAmount, o.takerAmount);
    if (ip.shares <= 0) return reject('INVALID_ORDER_MIN_SIZE', 'order is invalid. Size lower than the minimum');
    const now = this.clock.now();
    let expiresAt = 0;
    if (req.orderType === 'GTD') {
      const exp = Number(o.expiration);
      if (!(exp > 0) || (exp - this.opts.gtdThresholdSec) * 1000 <= now)
        return reject('INVALID_ORDER_EXPIRATION', `invalid expiration: a GTD order needs expiration > now + ${this.opts.gtdThresholdSec}s (unix seconds)`);
      expiresAt = (exp - this.opts.gtdThresholdSec) * 1000;
    }
    if (o.feeRateBps > 10_000n) return reject('INVALID_ORDER_ERROR', 'invalid feeRateBps');
    const r = this.engine.place(
      {
        id: orderID,
        account: o.maker.toLowerCase(),
        owner: key.apiKey,
        tokenId,
        side,
        price: ip.price,
        size: ip.shares,
        type: req.orderType,
        postOnly: req.postOnly,
        expiresAt,
        feeRateBps: Number(o.feeRateBps),
      },
      now,
    );
    this.flush();
    if (!r.ok) return reject(r.code, r.message);
    if (req.builder !== undefined) this.orderBuilder.set(orderID, req.builder);
    const tradeIds = r.trade ? [r.trade.id] : [];
    return {
      ok: true,
      orderID,
      status: r.status,
      makingAmount: r.makingAmount,
      takingAmount: r.takingAmount,
      tradeIds,
      transactionsHashes: tradeIds.map((id) => this.tradeById.get(id)?.transactionHash ?? ''),
    };
  }

  /** Cancel the caller's orders by id. Another user's order is reported as not found. */
  cancel(account: string, ids: readonly string[], reason: CancelReason = 'USER'): { canceled: string[]; not_canceled: Record<string, string> } {
    const now = this.clock.now();
    const canceled: string[] = [];
    const not_canceled: Record<string, string> = {};
    for (const id of ids) {
      const r = this.engine.cancel(account, id, now, reason);
      if (r.ok) canceled.push(id);
      else not_canceled[id] = r.reason === 'NOT_FOUND' ? 'order not found' : 'order can not be canceled because it is already canceled or matched';
    }
    this.flush();
    return { canceled, not_canceled };
  }

  cancelAll(account: string): { canceled: string[]; not_canceled: Record<string, string> } {
    const out = this.engine.cancelAll(account, this.clock.now(), 'USER').map((o) => o.id);
    this.flush();
    return { canceled: out, not_canceled: {} };
  }

  cancelMarket(account: string, filter: { market?: string; tokenId?: string }): { canceled: string[]; not_canceled: Record<string, string> } {
    const out = this.engine.cancelMarket(account, filter, this.clock.now()).map((o) => o.id);
    this.flush();
    return { canceled: out, not_canceled: {} };
  }

  getOrder(account: string, id: string): OrderState | undefined {
    const o = this.engine.getOrder(id);
    return o !== undefined && o.account === account ? o : undefined;
  }

  // ---- heartbeats ----------------------------------------------------------------------------

  /** Records a heartbeat; from the first one on, silence longer than the timeout cancels all orders. */
  heartbeat(account: string): string {
    const id = newHeartbeatId();
    this.heartbeats.set(account, { at: this.clock.now(), id });
    return id;
  }

  // ---- trades --------------------------------------------------------------------------------

  tradesOf(account: string): readonly TradeRecord[] {
    return this.tradesByAccount.get(account) ?? [];
  }
  allTrades(): readonly TradeRecord[] {
    return this.trades;
  }
  tradeStatus(t: Trade, now = this.clock.now()): TradeStatus {
    const age = now - t.matchTime;
    return age >= this.opts.confirmedMs ? 'CONFIRMED' : age >= this.opts.minedMs ? 'MINED' : 'MATCHED';
  }
}
