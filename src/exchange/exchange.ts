/**
 * The paper exchange's state: the matching engine plus everything around it that the venue keeps:
 * markets, the world's records, API keys, funding, the trade log, last prices, volumes, positions,
 * the dead-man switch and order expiry. The HTTP, WS and RTDS layers are thin around this class.
 *
 * Every state change is a `Command` applied by `exec` (see commands.ts): that makes the state
 * journal-able and replayable (--db). Reads go straight to the structures.
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import { PRICE_SCALE, tickFromPips } from '../core/units.ts';
import { OrderHasher, CTF_EXCHANGE, NEG_RISK_CTF_EXCHANGE, type SignedOrderStruct } from '../api/signing/order.ts';
import {
  CONTRACTS_V2,
  CTF_EXCHANGE_V2,
  NEG_RISK_CTF_EXCHANGE_V2,
  OrderHasherV2,
  type SignedOrderStructV2,
} from '../api/signing/order-v2.ts';
import { MatchingEngine } from './matching/engine.ts';
import { TradeLog } from './trades.ts';
import { admitOrder, internalOrder, placeRefusal, type AdmissionContext } from './order-admission.ts';
import type { CancelReason, EngineEvent, OrderState, PlaceResult, Trade } from './matching/types.ts';
import { ApiKeyStore, newHeartbeatId, type ApiKeyRecord } from './accounts/keys.ts';
import { DeadManSwitch } from './accounts/dead-man.ts';
import { TradingAccounts } from './accounts/funders.ts';
import { Allowances } from './accounts/allowances.ts';
import { PositionBook } from './accounts/positions.ts';
import { liquidityOf, refreshLiveState, toMarketDef, type LiveMarketState, type MarketMeta } from './markets.ts';
import { applyContent, type Command, type CommandSink, type TimedCommand } from './commands.ts';
import { RelayerLedger } from './relayer/ledger.ts';
import type { RelayerOp, RelayerOutcome } from './relayer/types.ts';
import { WorldStore } from './world/store.ts';
import { checkRewardConfig, ExchangeRewards, type EpochPayout } from './rewards/ledger.ts';
import { RewardSchedule } from './rewards/schedule.ts';
import { NotFoundError } from '../core/errors.ts';
import { rewardAsset } from './rewards/wire.ts';
import type { RewardConfig } from '../core/rewards.ts';
import { NOT_CANCELED_REASON } from '../core/order-rules.ts';
import type { WorldEvent } from './world/model.ts';

export * from './exchange-types.ts';
import {
  DEFAULT_PROTOCOL,
  type ClobProtocol,
  type ExchangeEvent,
  type ExchangeListener,
  type ExchangeOptions,
  type InternalOrder,
  type MarketEntry,
  type PlaceOutcome,
  type PlaceRequest,
  type TradeRecord,
  type TradeStatus,
} from './exchange-types.ts';

// the `not_canceled` reason of every cancel route (core/order-rules.ts: the simulated venue answers it too)
export { NOT_CANCELED_REASON };

export class PaperExchange {
  readonly opts: ExchangeOptions;
  readonly clock: Clock;
  readonly engine = new MatchingEngine();
  readonly keys: ApiKeyStore;
  readonly positions = new PositionBook();
  readonly world = new WorldStore();
  /** The relayer's operations (split, merge, redeem, convert) and their transactions. */
  readonly relayerLedger: RelayerLedger;
  /**
   * Liquidity rewards: each market's config, the running epoch's samples, the payout history
   * (rewards/ledger.ts). Sampling and payouts run on the exchange's clock from `start()`.
   */
  readonly rewards: ExchangeRewards;
  /** Builder attribution per order id (orders may carry a builder key). */
  readonly orderBuilder = new Map<string, string>();
  /** Collateral allowances to the exchange contracts (unlimited unless an operator set one: POST /admin/allowances). */
  readonly allowances = new Allowances();
  /**
   * How far the venue's clock is off the exchange's own, ms (POST /admin/clock): GET /time and the
   * L1/L2 timestamp check read `serverNow()`, so a client sees a venue whose clock is off. 0 by default.
   */
  timeOffsetMs = 0;
  private readonly markets = new Map<string, MarketEntry>();
  private readonly tokenIndex = new Map<string, { entry: MarketEntry; index: 0 | 1 }>();
  /** Trades by id and by account, and each token's last trade (trades.ts). */
  private readonly tradeLog = new TradeLog();
  /** The dead-man switch's armed addresses (journaled transitions: accounts/dead-man.ts). */
  private readonly deadMan = new DeadManSwitch();
  private readonly listeners = new Set<ExchangeListener>();
  private readonly funded = new Set<string>();
  /** Who trades for whom: registered funders (POST /admin/funders) and derived wallets (accounts/funders.ts). */
  private readonly accounts = new TradingAccounts();
  private readonly hashers: { normal: OrderHasher; negRisk: OrderHasher };
  /** V2 hashers: the V2 contracts of the chain (CONTRACTS_V2; the 137 addresses on any other chain). */
  private readonly hashersV2: { normal: OrderHasherV2; negRisk: OrderHasherV2 };
  /** Ids of the orders admitted signed as V2 (every other order is V1-signed or the exchange's own). */
  private readonly v2Orders = new Set<string>();
  /** What order admission (order-admission.ts) and its signer checks (order-signers.ts) read of the exchange. */
  private readonly admission: AdmissionContext = {
    signers: {
      mayTradeFor: (signer, maker, st) => this.mayTradeFor(signer, maker, st),
      hasherV2: (tokenId) =>
        this.tokenIndex.get(tokenId.toString(10))?.entry.meta.negRisk ? this.hashersV2.negRisk : this.hashersV2.normal,
    },
    protocol: () => this.protocol,
    gtdThresholdSec: () => this.opts.gtdThresholdSec,
    now: () => this.clock.now(),
    marketOfToken: (tokenId) => this.tokenIndex.get(tokenId),
    engineMarketOfToken: (tokenId) => this.engine.marketOfToken(tokenId),
    orderId: (o, negRisk) => this.orderId(o, negRisk),
    orderIdV2: (o, negRisk) => this.orderIdV2(o, negRisk),
    exchangeContracts: () => this.exchangeContracts(),
    allowanceIsZero: (account, spender) => this.allowances.isZero(account, spender),
  };
  private pendingWorld: WorldEvent[] = [];
  /** Engine events drained early (by an advance), delivered with the next drain. */
  private pendingEngine: EngineEvent[] = [];
  private sink: CommandSink | undefined;
  private timer: TimerHandle | undefined;
  /** When rewards are sampled and paid (rewards/schedule.ts). */
  private readonly rewardSchedule: RewardSchedule;
  /** Time of the command being applied (replay uses the journal's times, not the clock). */
  private now = 0;

  constructor(opts: ExchangeOptions) {
    this.opts = opts;
    this.clock = opts.clock;
    this.keys = new ApiKeyStore(opts.serverSecret);
    this.rewards = new ExchangeRewards(
      {
        forEachResting: (cid, side, fn) => this.engine.forEachResting(cid, side, fn),
        isActive: (cid) => this.engine.getMarket(cid)?.status === 'active',
        now: () => this.clock.now(),
      },
      opts.rewards,
    );
    this.rewardSchedule = new RewardSchedule(this.clock, this.rewards, (p) =>
      this.exec({ k: 'rewardPayout', epochStart: p.epochStart, epochEnd: p.epochEnd, rows: p.rows }),
    );
    this.relayerLedger = new RelayerLedger({
      engine: this.engine,
      positions: this.positions,
      market: (cid) => this.market(cid),
      listMarkets: () => this.listMarkets(),
    });
    this.hashers = {
      normal: new OrderHasher(opts.chainId, opts.exchangeAddress ?? CTF_EXCHANGE),
      negRisk: new OrderHasher(opts.chainId, opts.negRiskExchangeAddress ?? NEG_RISK_CTF_EXCHANGE),
    };
    const v2 = CONTRACTS_V2[opts.chainId as 137 | 80002] as (typeof CONTRACTS_V2)[137] | undefined;
    this.hashersV2 = {
      normal: new OrderHasherV2(opts.chainId, v2?.exchange ?? CTF_EXCHANGE_V2),
      negRisk: new OrderHasherV2(opts.chainId, v2?.negRiskExchange ?? NEG_RISK_CTF_EXCHANGE_V2),
    };
  }

  /** The venue's clock as clients see it (GET /time, auth timestamps): the clock plus `timeOffsetMs`. */
  serverNow(): number {
    return this.clock.now() + this.timeOffsetMs;
  }

  /**
   * The exchange contracts collateral is approved to, in the protocol spoken: V2's of the chain
   * (CONTRACTS_V2; the 137 addresses on any other chain), or V1's (the configured or default ones).
   */
  exchangeContracts(): { exchange: string; negRiskExchange: string } {
    if (this.protocol === 2) {
      const v2 = CONTRACTS_V2[this.opts.chainId as 137 | 80002] as (typeof CONTRACTS_V2)[137] | undefined;
      return {
        exchange: v2?.exchange ?? CTF_EXCHANGE_V2,
        negRiskExchange: v2?.negRiskExchange ?? NEG_RISK_CTF_EXCHANGE_V2,
      };
    }
    return {
      exchange: this.opts.exchangeAddress ?? CTF_EXCHANGE,
      negRiskExchange: this.opts.negRiskExchangeAddress ?? NEG_RISK_CTF_EXCHANGE,
    };
  }

  /** The CLOB protocol the exchange speaks (`GET /version`): orders signed in the other are refused. */
  get protocol(): ClobProtocol {
    return this.opts.protocol ?? DEFAULT_PROTOCOL;
  }

  /** Journal every applied command from now on (--db). */
  setSink(sink: CommandSink | undefined): void {
    this.sink = sink;
  }

  /**
   * Starts housekeeping (4 Hz): GTD expiry and the heartbeat dead-man switch; and the liquidity
   * rewards: a sample every `rewards.sampleMs` (at multiples of it) and a payout at each epoch's end
   * (rewards/schedule.ts).
   */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = this.clock.setInterval(() => this.tick(), 250);
    // addresses armed before a restart (replayed) are armed again, their windows from now (F10)
    this.deadMan.restartAll(this.clock.now());
    this.rewardSchedule.start();
  }

  stop(): void {
    if (this.timer !== undefined) this.clock.clearInterval(this.timer);
    this.timer = undefined;
    this.rewardSchedule.stop();
  }

  /** The rewards' timer: pay an ended epoch, take a due sample (rewards/schedule.ts `due`). */
  rewardsDue(): void {
    this.rewardSchedule.due();
  }

  /** The asset rewards are paid in: the collateral (pUSD with CLOB V2, USDC.e with V1). */
  get rewardAsset(): string {
    return rewardAsset(this.protocol, this.opts.chainId);
  }

  /**
   * Set (or clear, with null) a market's reward config. Journaled.
   * @throws NotFoundError for an unknown market; ValidationError for an invalid config (nothing changes).
   */
  setRewardConfig(conditionId: string, config: RewardConfig | null): void {
    const entry = this.market(conditionId);
    if (entry === undefined) throw new NotFoundError(`unknown market ${conditionId.slice(0, 80)}`);
    if (config !== null) checkRewardConfig(config);
    this.exec({ k: 'rewardConfig', conditionId: entry.meta.conditionId, config });
  }

  /** Expire GTD orders and enforce heartbeats at the current time. */
  tick(): void {
    const now = this.clock.now();
    this.exec({ k: 'advance' });
    for (const address of this.deadMan.expired(now, this.opts.heartbeatTimeoutMs)) {
      this.exec({ k: 'deadman', address, armed: false });
      this.cancelAll(address, 'HEARTBEAT');
    }
  }

  subscribe(fn: ExchangeListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Publish a world event that changes no state (crypto price ticks). */
  publish(e: WorldEvent): void {
    this.pendingWorld.push(e);
    this.flush();
  }

  // ---- commands --------------------------------------------------------------------------------

  /** Apply a command now (journaled when a sink is set) and notify listeners. */
  exec(cmd: Command): unknown {
    const t = this.clock.now();
    const out = this.apply({ ...cmd, t } as TimedCommand);
    this.flush();
    return out;
  }

  /** Replay journaled commands (at their own times) without notifying anyone. */
  replay(cmds: Iterable<TimedCommand>): number {
    const sink = this.sink;
    this.sink = undefined;
    let n = 0;
    try {
      for (const c of cmds) {
        this.apply(c);
        n++;
        // keep derived state, drop notifications: nobody is connected yet
        this.drain();
        this.pendingWorld = [];
      }
    } finally {
      this.sink = sink;
    }
    return n;
  }

  private apply(c: TimedCommand): unknown {
    this.now = c.t;
    // an advance that expires nothing changes nothing: it is not journaled (the 4 Hz housekeeping)
    if (c.k !== 'advance') this.sink?.append(c);
    const e = this.engine;
    switch (c.k) {
      case 'market':
        return this.applyMarket(c.meta, c.t);
      case 'event':
      case 'tag':
      case 'series':
      case 'sport':
      case 'article':
      case 'profile':
        applyContent(this.world, c);
        return undefined;
      case 'comment':
        this.world.addComment(c.comment);
        this.pendingWorld.push({ type: 'comment_created', comment: c.comment, at: c.t });
        return undefined;
      case 'fund':
        e.credit(c.account, c.micro);
        this.funded.add(c.account);
        return undefined;
      case 'setCollateral':
        e.setCollateral(c.account, c.micro);
        return undefined;
      case 'setTokens':
        e.setTokens(c.account, c.tokenId, c.micro);
        return undefined;
      case 'key': {
        const rec = this.keys.create(c.address, c.nonce, c.t);
        if (rec !== null && !this.funded.has(rec.address)) {
          this.funded.add(rec.address);
          if (this.opts.startingCollateral > 0) e.credit(rec.address, this.opts.startingCollateral);
        }
        return rec;
      }
      case 'delkey':
        return this.keys.delete(c.apiKey);
      case 'rokey':
        return this.keys.createReadonly(c.address, c.t);
      case 'delrokey':
        return this.keys.deleteReadonly(c.address, c.apiKey);
      case 'bkey':
        return this.keys.createBuilder(c.address, c.t);
      case 'revbkey':
        return this.keys.revokeBuilder(c.address, c.t, c.apiKey);
      case 'deadman':
        this.deadMan.set(c.address, c.armed, c.t);
        return undefined;
      case 'place': {
        const r = e.place(c.order, c.t);
        if (r.ok && c.builder !== undefined) this.orderBuilder.set(c.order.id, c.builder);
        // a V2 order pays the market's fee on the V2 curve: that is how the journal knows it (an
        // order of the exchange's own flow, owned by its account, is never asked: not kept)
        if (r.ok && c.order.feeModel === 'v2' && c.order.owner !== c.order.account) this.v2Orders.add(c.order.id);
        return r;
      }
      case 'funder':
        return this.accounts.register(c.signer, c.funder);
      case 'cancel':
        return c.ids.map((id) => e.cancel(c.account, id, c.t, c.reason));
      case 'cancelAll':
        return e.cancelAll(c.account, c.t, c.reason);
      case 'cancelMarket':
        return e.cancelMarket(
          c.account,
          { ...(c.market ? { market: c.market } : {}), ...(c.tokenId ? { tokenId: c.tokenId } : {}) },
          c.t,
        );
      case 'advance': {
        e.advance(c.t);
        const expired = e.drainEvents();
        if (expired.length > 0) {
          this.sink?.append(c);
          this.pendingEngine.push(...expired);
        }
        return undefined;
      }
      case 'tick':
        e.setTickSize(c.conditionId, c.tickPips, c.t);
        return undefined;
      case 'close':
        e.closeMarket(c.conditionId, c.t);
        return undefined;
      case 'resolve':
        e.resolveMarket(c.conditionId, c.winningToken, c.t);
        return undefined;
      case 'relayer':
        return this.relayerLedger.apply(c.account, c.op, c.t);
      case 'rewardConfig':
        this.rewards.setConfig(c.conditionId, c.config);
        return undefined;
      case 'rewardPayout':
        return this.applyPayout(c);
      default: {
        const never: never = c;
        throw new Error(`unknown command ${JSON.stringify(never)}`);
      }
    }
  }

  /** Credit a closed epoch's payouts and keep its rows. */
  private applyPayout(p: EpochPayout): undefined {
    for (const r of p.rows) if (r.paid > 0) this.engine.credit(r.maker, r.paid);
    this.rewards.record(p);
    return undefined;
  }

  /** Drain the engine's events and update derived state; returns them. */
  private drain(): EngineEvent[] {
    let events = this.engine.drainEvents();
    if (this.pendingEngine.length > 0) {
      events = this.pendingEngine.concat(events);
      this.pendingEngine = [];
    }
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
        }
      }
    }
    return events;
  }

  private flush(): void {
    const events: ExchangeEvent[] = this.drain();
    if (this.pendingWorld.length) {
      events.push(...this.pendingWorld);
      this.pendingWorld = [];
    }
    if (events.length === 0) return;
    for (const fn of this.listeners) fn(events);
  }

  private recordTrade(t: Trade): void {
    this.tradeLog.add(t);
    this.positions.applyTrade(t);
    const found = this.tokenIndex.get(t.tokenId);
    if (found) for (const m of t.makers) found.entry.volume += Math.round((m.size * m.price) / PRICE_SCALE);
    this.tradeLog.noteLast(t, found?.entry.meta.tokens[found.index === 0 ? 1 : 0]);
  }

  // ---- markets -------------------------------------------------------------------------------

  addMarket(meta: MarketMeta): MarketEntry {
    return this.exec({ k: 'market', meta }) as MarketEntry;
  }

  private applyMarket(meta: MarketMeta, t: number): MarketEntry {
    const entry: MarketEntry = {
      meta,
      state: { status: 'active', tick: meta.tick, lastPrice: [undefined, undefined], mid: [undefined, undefined] },
      volume: 0,
      createdAt: t,
    };
    this.engine.addMarket(toMarketDef(meta));
    this.markets.set(meta.conditionId, entry);
    this.tokenIndex.set(meta.tokens[0], { entry, index: 0 });
    this.tokenIndex.set(meta.tokens[1], { entry, index: 1 });
    this.pendingWorld.push({ type: 'new_market', conditionId: meta.conditionId, at: t });
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
  /** Live state with mids and last prices refreshed (markets.ts). */
  marketState(entry: MarketEntry): LiveMarketState {
    return refreshLiveState(entry.meta.tokens, entry.state, this.engine, (tok) => this.tradeLog.last(tok)?.price);
  }
  /**
   * Resting liquidity of a market in micro-collateral: the notional of every YES-book level within
   * 10% of the mid (both sides; markets.ts).
   */
  liquidity(entry: MarketEntry): number {
    return liquidityOf(this.engine, entry.meta.tokens[0]);
  }
  lastTradePrice(tokenId: string): { price: number; side: 'BUY' | 'SELL'; at: number } | undefined {
    return this.tradeLog.last(tokenId);
  }

  setTickSize(conditionId: string, tickPips: number): void {
    this.exec({ k: 'tick', conditionId, tickPips });
  }
  closeMarket(conditionId: string): void {
    this.exec({ k: 'close', conditionId });
  }
  resolveMarket(conditionId: string, winningToken: string): void {
    this.exec({ k: 'resolve', conditionId, winningToken });
  }

  // ---- accounts ------------------------------------------------------------------------------

  /** Credit collateral (micro) to an address. */
  fund(address: string, micro: number): void {
    this.exec({ k: 'fund', account: address.toLowerCase(), micro });
  }
  setCollateral(address: string, micro: number): void {
    this.exec({ k: 'setCollateral', account: address.toLowerCase(), micro });
  }
  setTokens(address: string, tokenId: string, micro: number): void {
    this.exec({ k: 'setTokens', account: address.toLowerCase(), tokenId, micro });
  }

  /** Creates the key for (address, nonce); the address gets its starting balance on its first key. */
  createApiKey(address: string, nonce: string): ApiKeyRecord | null {
    return this.exec({ k: 'key', address: address.toLowerCase(), nonce }) as ApiKeyRecord | null;
  }
  /**
   * The key created for (address, nonce), or undefined: deriving never creates one (as the public
   * service's GET /auth/derive-api-key, 400 when there is none), so a check that derives (`mmkit
   * doctor`) creates nothing, nor credits the starting balance.
   */
  deriveApiKey(address: string, nonce: string): ApiKeyRecord | undefined {
    return this.keys.find(address, nonce);
  }
  deleteApiKey(apiKey: string): boolean {
    return this.exec({ k: 'delkey', apiKey }) as boolean;
  }
  /**
   * Registers `funder` as a maker account `signer` may place proxy orders (signatureType 1/2) for,
   * besides its derived proxy wallet and Safe (an operator action: POST /admin/funders). Returns
   * whether it was new; the registration is journaled and lasts.
   */
  registerFunder(signer: string, funder: string): boolean {
    return this.exec({ k: 'funder', signer: signer.toLowerCase(), funder: funder.toLowerCase() }) as boolean;
  }
  /** Whether `signer` may place an order of `signatureType` funded by `maker` (accounts/funders.ts). */
  mayTradeFor(signer: string, maker: string, signatureType: number): boolean {
    return this.accounts.mayTradeFor(signer, maker, signatureType);
  }

  // ---- orders --------------------------------------------------------------------------------

  /** The order id (EIP-712 digest) of a signed V1 order, for the market it trades in. */
  orderId(o: SignedOrderStruct, negRisk: boolean): string {
    return (negRisk ? this.hashers.negRisk : this.hashers.normal).digest(o);
  }

  /** The order id (EIP-712 digest, domain version 2) of a signed V2 order, for the market it trades in. */
  orderIdV2(o: SignedOrderStructV2, negRisk: boolean): string {
    return (negRisk ? this.hashersV2.negRisk : this.hashersV2.normal).digest(o);
  }

  /** The protocol an order was signed in: 2 for an admitted V2 order, else 1 (V1, or the exchange's own flow). */
  signedProtocol(orderId: string): ClobProtocol {
    return this.v2Orders.has(orderId) ? 2 : 1;
  }

  /**
   * Validate, verify and place one signed order (V1 or V2) for the caller `key`: admission
   * (order-admission.ts `admitOrder`), then the `place` command. Never throws for bad input: every
   * refusal is a PlaceOutcome with a venue code.
   */
  place(key: ApiKeyRecord, req: PlaceRequest): PlaceOutcome {
    const a = admitOrder(this.admission, key, req);
    if (!a.ok) return a;
    const orderID = a.order.id;
    const r = this.exec({
      k: 'place',
      order: a.order,
      ...(a.builder !== undefined ? { builder: a.builder } : {}),
    }) as PlaceResult;
    if (!r.ok) return placeRefusal(orderID, r.code, r.message);
    const tradeIds = r.trade ? [r.trade.id] : [];
    return {
      ok: true,
      orderID,
      status: r.status,
      makingAmount: r.makingAmount,
      takingAmount: r.takingAmount,
      tradeIds,
      transactionsHashes: tradeIds.map((id) => this.tradeLog.get(id)?.transactionHash ?? ''),
    };
  }

  /** Place an order from inside the exchange (flow agents): no signature, no API key. */
  placeInternal(o: InternalOrder): PlaceResult {
    const feeRateBps = this.tokenIndex.get(o.tokenId)?.entry.meta.feeRateBps ?? 0;
    return this.exec({ k: 'place', order: internalOrder(o, feeRateBps, this.protocol) }) as PlaceResult;
  }

  /**
   * The accounts an API key's address trades for: itself, its derived proxy wallet and Safe, and
   * the funders registered to it (accounts/funders.ts).
   */
  accountsOf(address: string): string[] {
    return this.accounts.accountsOf(address);
  }

  /**
   * Cancel the caller's orders by id. An id that is not a live order of the caller (unknown,
   * another user's, already cancelled or matched) is under `not_canceled` with the public service's
   * one reason, NOT_CANCELED_REASON.
   */
  cancel(
    address: string,
    ids: readonly string[],
    reason: CancelReason = 'USER',
  ): { canceled: string[]; not_canceled: Record<string, string> } {
    const accounts = this.accountsOf(address);
    const byAccount = new Map<string, string[]>();
    const not_canceled: Record<string, string> = {};
    for (const id of ids) {
      const o = this.engine.getOrder(id);
      if (o === undefined || !accounts.includes(o.account)) {
        not_canceled[id] = NOT_CANCELED_REASON;
        continue;
      }
      let list = byAccount.get(o.account);
      if (list === undefined) byAccount.set(o.account, (list = []));
      list.push(id);
    }
    const canceled: string[] = [];
    for (const [account, list] of byAccount) {
      const results = this.exec({ k: 'cancel', account, ids: list, reason }) as Array<{ ok: boolean; reason?: string }>;
      list.forEach((id, i) => {
        const r = results[i];
        if (r?.ok) canceled.push(id);
        else not_canceled[id] = NOT_CANCELED_REASON;
      });
    }
    return { canceled, not_canceled };
  }

  cancelAll(
    address: string,
    reason: CancelReason = 'USER',
  ): { canceled: string[]; not_canceled: Record<string, string> } {
    const canceled: string[] = [];
    for (const account of this.accountsOf(address)) {
      if (this.engine.openOrders(account).length === 0) continue;
      const out = this.exec({ k: 'cancelAll', account, reason }) as OrderState[];
      canceled.push(...out.map((o) => o.id));
    }
    return { canceled, not_canceled: {} };
  }

  cancelMarket(
    address: string,
    filter: { market?: string; tokenId?: string },
  ): { canceled: string[]; not_canceled: Record<string, string> } {
    const canceled: string[] = [];
    for (const account of this.accountsOf(address)) {
      const out = this.exec({ k: 'cancelMarket', account, ...filter }) as OrderState[];
      canceled.push(...out.map((o) => o.id));
    }
    return { canceled, not_canceled: {} };
  }

  /** One of the caller's orders (any status), or undefined (also for another user's order). */
  getOrder(address: string, id: string): OrderState | undefined {
    const o = this.engine.getOrder(id);
    return o !== undefined && this.accountsOf(address).includes(o.account) ? o : undefined;
  }

  /** The caller's open orders across the accounts it trades for. */
  openOrders(address: string): OrderState[] {
    return this.accountsOf(address).flatMap((a) => this.engine.openOrders(a));
  }

  // ---- relayer -------------------------------------------------------------------------------

  /**
   * Apply a relayer operation (split, merge, redeem, convert) to `account`'s balances, atomically;
   * a refusal changes nothing. The caller authenticated the account (or is the exchange itself).
   */
  relayer(account: string, op: RelayerOp): RelayerOutcome {
    return this.exec({ k: 'relayer', account: account.toLowerCase(), op }) as RelayerOutcome;
  }

  // ---- heartbeats ----------------------------------------------------------------------------

  /** Records a heartbeat; from the first one on, silence longer than the timeout cancels all orders. */
  heartbeat(account: string): string {
    // arming is journaled (it survives a restart); each heartbeat's time is not (accounts/dead-man.ts)
    if (!this.deadMan.isArmed(account)) this.exec({ k: 'deadman', address: account, armed: true });
    else this.deadMan.beat(account, this.clock.now());
    return newHeartbeatId();
  }

  // ---- trades --------------------------------------------------------------------------------

  /** Trades an account took part in, in match order. */
  tradesOf(account: string): readonly TradeRecord[] {
    return this.tradeLog.of(account);
  }
  /** Trades of every account an API key's address trades for, in match order, each once. */
  tradesOfKey(address: string): readonly TradeRecord[] {
    return this.tradeLog.ofAccounts(this.accountsOf(address));
  }
  allTrades(): readonly TradeRecord[] {
    return this.tradeLog.all();
  }
  trade(id: string): TradeRecord | undefined {
    return this.tradeLog.get(id);
  }
  tradeStatus(t: Trade, now = this.clock.now()): TradeStatus {
    const age = now - t.matchTime;
    return age >= this.opts.confirmedMs ? 'CONFIRMED' : age >= this.opts.minedMs ? 'MINED' : 'MATCHED';
  }
}
