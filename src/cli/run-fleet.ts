/**
 * `mmkit run` as a member of a fleet (issue 21; fleet.redisUrl set): joins the fleet's Redis
 * (src/fleet/member.ts) and ties it to the daemon's kernel:
 *  - heartbeats: only the heartbeat lease holder sends them (TraderOptions.fleet), a taker at once,
 *    going on from the chain's last id the holders record in Redis (src/fleet/heartbeat-chain.ts);
 *  - markets: quoted only while this member holds the market's lease; a market taken from another
 *    member first has that member's orders there cancelled (whatever rests on the market and is
 *    not this daemon's: the lease made the market exclusive), and those orders and the ones that
 *    filled there in the last minute are that member's (`previousHolderOrders`: src/cli/fleet-takeover.ts);
 *    a market lost is pulled;
 *  - fail closed: Redis unreachable pauses placing (reason 'fleet') and pulls every market; Redis
 *    back resumes (the leases decide what is quoted again);
 *  - kill: a fleet trip trips this daemon's kill switch ('manual': a risk stop, exit 4), and a risk
 *    trip of this daemon trips the fleet's;
 *  - account limits: risk.maxNotionalGlobal / maxOpenOrdersGlobal are the fleet's; this member's
 *    gate enforces its grant of them (src/fleet/risk-reserve.ts: a keeper fits the grant to the
 *    member's open orders every second), and risk.maxLoss applies to the members' summed PnL (each
 *    writes the last PnL its kill switch was fed every second; the sum below -maxLoss trips the
 *    fleet kill: src/fleet/fleet-loss.ts), and risk.maxDailyLoss to the members' summed PnL of the
 *    UTC day (each its own ledger's since the day's open);
 *  - reconciliation: the member publishes its ledger (src/fleet/fleet-ledger.ts: positions,
 *    unsettled fills and fill counts by token, on change and every 2 s); its position audit
 *    compares the venue with the sum of the members' ledgers and books a difference only on a
 *    market it holds; an order or fill on a fleet market this member does not hold, that it did not
 *    place, is another member's: never foreign (`bot.foreignOrders` applies to orders of no member);
 *    so is a fill of an order any member recorded as its own in the fleet's registry, whatever the
 *    market (src/fleet/member-orders.ts), and a member with an empty store backfills the account's
 *    history only when its ledger books it (findings-2 F5, F8), claimed before its ledger is first
 *    published (review-1 F1: members started together, each publishing first, saw each other's
 *    ledger and nobody booked the history), and only once its limits were accepted (a member refused
 *    at join publishes no ledger and claims nothing);
 *  - rewards: a payout is booked once fleet-wide, by the holder of its market (src/fleet/reward-claims.ts);
 *  - exit, after the orderly shutdown's cancels: `release()` (the leases and the heartbeat go at once;
 *    the connection stays), the shutdown backfill (its claims, its fills' ids), then `leave()` (the
 *    ledger's last publish, the grant released, the connection closed).
 * Without fleet.redisUrl none of this loads.
 * Apart, by concept: the takeover (src/cli/fleet-takeover.ts), the limits' check at join
 * (src/cli/run-fleet-limits.ts), the member's status record (src/cli/run-fleet-status.ts) and the
 * ledger's start with its history claim (src/fleet/ledger-start.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../core/clock.ts';
import { ConfigError, type ConfigProblem } from '../core/errors.ts';
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { Venue } from '../core/venue.ts';
import type { FleetMember } from '../fleet/member.ts';
import type { RiskAmounts } from '../fleet/risk-reserve.ts';
import type { Trader, TraderFleet } from '../kernel/create-trader.ts';
import type { BudgetConfig } from '../api/http/budgets.ts';
import { globalUsage } from '../risk/gate.ts';
import { isRiskTrigger } from '../risk/kill-switch.ts';
import type { RiskLimits } from '../risk/limits.ts';
import { CliError, ExitCode } from './exit-codes.ts';
import { previousHolderOrders, sharedListing, TAKEOVER_FILLS_MS } from './fleet-takeover.ts';
import { checkRunFleetLimits } from './run-fleet-limits.ts';
import type { Logger } from 'pino';

/**
 * The id of the ledger of a data directory in its fleet: read from `<dataDir>/fleet-ledger.id`,
 * made (random) on first use. Stable across restarts, whatever the member's name (its default
 * carries the pid), so a restarted member replaces its published ledger instead of adding one.
 */
export function fleetLedgerId(dataDir: string): string {
  const file = join(dataDir, 'fleet-ledger.id');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (/^[A-Za-z0-9-]{8,64}$/.test(id)) return id;
  } catch {
    /* none yet */
  }
  const id = randomUUID();
  writeFileSync(file, `${id}\n`, { mode: 0o600 });
  return id;
}

/** fleet.* of the configuration, as `mmkit run` takes it. */
export interface RunFleetConfig {
  redisUrl: string;
  member: string;
}

/**
 * A fleet member trades the account the other members trade, at the venue they trade on; the two
 * defaults of a lone `mmkit run` give neither: the in-process paper exchange is this process's own
 * venue, and the paper wallet in `<dataDir>/paper-wallet.key` is this data directory's own account
 * (each member has its own data directory). Either would make a one-member fleet of its own,
 * silently (the members would each quote the same markets elsewhere). So a member needs a venue URL
 * (bot.exchangeUrl, or venue.clobUrl with venue.wsUrl) and a configured wallet (bot.keystoreFile or
 * MMKIT_PRIVATE_KEY). Pure (reads `env`, default process.env).
 * @throws ConfigError naming every key missing (exit 2); nothing when fleet.redisUrl is unset
 */
export function checkFleetMemberSetup(
  cfg: {
    readonly fleet?: { readonly redisUrl: string } | undefined;
    readonly exchangeUrl: string;
    readonly urls?: { readonly clob?: string; readonly ws?: string } | undefined;
    readonly keystoreFile: string;
  },
  env: Record<string, string | undefined> = process.env,
): void {
  if (cfg.fleet === undefined || cfg.fleet.redisUrl === '') return;
  const problems: ConfigProblem[] = [];
  if (cfg.exchangeUrl === '' && !(cfg.urls?.clob && cfg.urls.ws))
    problems.push({
      key: 'bot.exchangeUrl',
      message:
        "a fleet member (fleet.redisUrl set) needs the venue the other members trade on: set bot.exchangeUrl (MMKIT_EXCHANGE_URL, --exchange-url; e.g. a paper exchange started with `mmkit exchange`), not the in-process paper exchange, which is this daemon's alone",
    });
  if (cfg.keystoreFile === '' && !env['MMKIT_PRIVATE_KEY'])
    problems.push({
      key: 'bot.keystoreFile',
      message:
        "a fleet member (fleet.redisUrl set) needs the wallet the other members trade: set bot.keystoreFile (MMKIT_KEYSTORE_FILE, --keystore) with MMKIT_KEYSTORE_PASSWORD, or MMKIT_PRIVATE_KEY, the same on every member; the paper wallet of a data directory is that directory's alone",
    });
  const [first, ...rest] = problems;
  if (first !== undefined) throw ConfigError.of([first, ...rest]);
}

/** The live venue's heartbeat chain (LiveVenue fits): the id it last got, and where to go on from. */
export interface HeartbeatIds {
  readonly heartbeatId: string | null;
  continueHeartbeatChain(id: string | null): void;
}

/** The fleet's settings of `mmkit run` (RunConfig.fleet). */
type FleetSettings = RunFleetConfig & { maxMembers?: number; reserve?: number };

type SharedBudgets = Awaited<ReturnType<typeof import('../fleet/shared-budgets.ts').openSharedBudgets>>;

/**
 * A fleet: the account's request budgets are shared with the other members through Redis (loaded
 * only then: without fleet.redisUrl nothing of the fleet, ioredis included, is imported); undefined
 * for a lone daemon or with budgets.enabled false.
 * @throws CliError UNREACHABLE (exit 3) when Redis cannot be reached
 */
export async function openRunFleetBudgets(
  cfg: { fleet?: FleetSettings | undefined; budgets?: BudgetConfig | undefined },
  o: { account: string; signer?: string; clock: Clock; log: Logger },
): Promise<SharedBudgets | undefined> {
  if (cfg.fleet === undefined || cfg.fleet.redisUrl === '' || cfg.budgets?.enabled === false) return undefined;
  return openSharedBudgetsOrExit3({
    url: cfg.fleet.redisUrl,
    member: cfg.fleet.member,
    ...(cfg.fleet.maxMembers !== undefined ? { maxMembers: cfg.fleet.maxMembers } : {}),
    ...(cfg.fleet.reserve !== undefined ? { reserve: cfg.fleet.reserve } : {}),
    account: o.account,
    ...(o.signer !== undefined ? { signer: o.signer } : {}),
    budgets: cfg.budgets ?? {},
    clock: o.clock,
    log: o.log.child({ component: 'fleet' }),
  });
}

/** The fleet's shared budgets (loaded only in a fleet); an unreachable Redis is exit 3 (UNREACHABLE). */
async function openSharedBudgetsOrExit3(
  o: Parameters<typeof import('../fleet/shared-budgets.ts').openSharedBudgets>[0],
): Promise<SharedBudgets> {
  const fleet = await import('../fleet/shared-budgets.ts');
  const { FleetUnreachableError } = await import('../fleet/redis.ts');
  try {
    return await fleet.openSharedBudgets(o);
  } catch (e) {
    if (e instanceof FleetUnreachableError)
      throw new CliError(e.message, ExitCode.UNREACHABLE, 'UNREACHABLE', { cause: e });
    throw e;
  }
}

/** A late-bound fleet member: the kernel is built before the member joins (fail closed until then). */
export interface FleetRef {
  member?: FleetMember;
  /** This member's grant of the account's global caps (src/fleet/risk-reserve.ts RiskKeeper). */
  risk?: { caps(): RiskAmounts; press(): void };
  /** This member's ledger id in the fleet (`fleetLedgerId`; set once joined). */
  ledgerId?: string;
  /** This member's memory of the other ledgers (src/fleet/ledger-memory.ts; set once joined, with a data dir). */
  memory?: import('../fleet/ledger-memory.ts').LedgerMemory;
  /** Records a Redis restarted empty had lost were put back (`restored` of them; logged). */
  onLedgersRestored?: (restored: number, members: readonly string[]) => void;
  /** This member's ledger publisher (set once joined). */
  ledger?: import('../fleet/fleet-ledger.ts').LedgerPublisher;
  /** The fleet's registry of the members' filled orders (set once joined; src/fleet/member-orders.ts). */
  orders?: import('../fleet/member-orders.ts').MemberOrders;
  /**
   * The account's loss limits checked now with this member's PnL (src/fleet/fleet-loss.ts
   * FleetLossWatch.check; set once joined): run before quoting, after the member's own check.
   */
  lossCheck?: () => Promise<void>;
  /** True when this ledger books the account's history (claimed at join: `startFleetLedger`, src/fleet/ledger-start.ts; unset: not asked). */
  history?: boolean;
}

const NO_CAPS: RiskAmounts = Object.freeze({ notional: 0, orders: 0 });

/** What the kernel reads (TraderOptions.fleet): nothing is quoted or beaten before the member joined. */
export function fleetView(ref: FleetRef, markets: readonly ConditionId[], clock: Pick<Clock, 'now'>): TraderFleet {
  const fleetMarkets = new Set<string>(markets);
  // the members whose ledger is a record put back from memory, as of the last read (the audit books nothing meanwhile)
  let unconfirmed: readonly string[] = [];
  return {
    shouldBeat: () => ref.member?.shouldBeat() ?? false,
    quotable: (m) => ref.member?.quotable(m) ?? false,
    canPlace: () => ref.member?.canPlace() ?? false,
    // nothing may rest before the fleet granted room for it
    globalCaps: () => ref.risk?.caps() ?? NO_CAPS,
    globalPressure: () => ref.risk?.press(),
    ledger: {
      // a fleet market this member does not hold (before joining: every one; a foreign order there
      // is left to the market's holder, who tells it from its own)
      othersMarket: (m) => fleetMarkets.has(m) && ref.member?.quotable(m) !== true,
      others: async () => {
        const member = ref.member;
        if (member === undefined) throw new Error('not joined to the fleet yet');
        const { readOtherLedgers } = await import('../fleet/fleet-ledger.ts');
        const self = ref.ledgerId ?? member.status().member;
        const others = await readOtherLedgers(member.redis, member.keys, self, ref.memory);
        if (others.restored > 0) ref.onLedgersRestored?.(others.restored, others.members);
        unconfirmed = others.unconfirmed ?? [];
        return others.tokens;
      },
      unconfirmed: () => unconfirmed,
      changed: () => ref.ledger?.changed(),
      // whose fills (findings-2 F5, F8): the members' filled orders, recorded in the fleet's Redis
      memberOrders: async (ids) => {
        if (ref.orders === undefined) throw new Error('not joined to the fleet yet');
        return ref.orders.lookup(ids);
      },
      ownFill: (id) => ref.orders?.add(id),
      // a fill of an order no member placed, on a market outside the fleet's (nobody holds it, every
      // member sees it): booked by the ledger that claims it first, once fleet-wide
      externalClaims: {
        needed: (m) => !fleetMarkets.has(m),
        claim: async (tradeId, orderId) => {
          const member = ref.member;
          if (member === undefined || ref.ledgerId === undefined) throw new Error('not joined to the fleet yet');
          const { claimExternalFill } = await import('../fleet/member-orders.ts');
          return claimExternalFill(member.redis, member.keys, ref.ledgerId, tradeId, orderId);
        },
      },
      historySince: async () => {
        // claimed at join, before the ledger was published (review-1 F1)
        if (ref.history !== undefined) return ref.history ? 0 : clock.now();
        const member = ref.member;
        if (member === undefined || ref.ledgerId === undefined) throw new Error('not joined to the fleet yet');
        const { claimHistory } = await import('../fleet/member-orders.ts');
        return (await claimHistory(member.redis, member.keys, ref.ledgerId)) ? 0 : clock.now();
      },
    },
  };
}

/**
 * The fleet's reward claims of this member (src/fleet/reward-claims.ts): it books a payout of a market
 * it holds, or of a market outside the fleet's while it holds the heartbeat lease, and only the part
 * the fleet has not booked yet (findings-2 F3: every member reads the whole account's payouts).
 */
export async function fleetRewardClaims(
  member: FleetMember,
  markets: readonly ConditionId[],
  ledgerId: string,
): Promise<import('../fleet/reward-claims.ts').RewardClaims> {
  const { rewardClaims } = await import('../fleet/reward-claims.ts');
  return rewardClaims(member.redis, member.keys, {
    ledgerId,
    holds: (m) => member.quotable(m),
    beats: () => member.shouldBeat(),
    fleetMarkets: markets,
  });
}

/** The message of a kill-switch trip that came from the fleet (not sent back to it). */
const FROM_FLEET = 'fleet kill switch: ';

/**
 * Joins the fleet and wires it to the trader (see the module comment); sets `ref.member`.
 * @throws ConfigError on a bad member name; CliError UNREACHABLE (exit 3, URL redacted) when Redis cannot be reached
 */
export async function joinRunFleet(
  cfg: RunFleetConfig,
  o: {
    ref: FleetRef;
    trader: Trader;
    venue: Venue;
    address: string;
    markets: readonly ConditionId[];
    clock: Clock;
    log: Logger;
    /** The venue's heartbeat ids, shared with the fleet's chain (absent: each member chains alone). */
    chain?: HeartbeatIds;
    /** The configured risk limits: their global caps and maxLoss are the account's. */
    limits: RiskLimits;
    /** The id of this member's ledger in the fleet (`fleetLedgerId(dataDir)`; default the member's name). */
    ledgerId?: string;
    /** This member's store has no fill yet: it claims the account's history at join (`startFleetLedger`). */
    claimHistory?: boolean;
    /** The data directory: it remembers the other ledgers across a Redis restarted empty (src/fleet/ledger-memory.ts). */
    dataDir?: string;
  },
): Promise<FleetMember> {
  const { joinFleet } = await import('../fleet/member.ts');
  const { memberName } = await import('../fleet/redis.ts');
  const { trader, venue, log } = o;
  const name = memberName(cfg.member);
  const flog = log.child({ component: 'fleet', member: name });
  let joined!: (m: FleetMember) => void;
  const ready = new Promise<FleetMember>((res) => {
    joined = res;
  });
  // (before the join: the first markets are taken during it, and a takeover reads the memory)
  let memory: import('../fleet/ledger-memory.ts').LedgerMemory | undefined;
  if (o.dataDir !== undefined) {
    const { LedgerMemory } = await import('../fleet/ledger-memory.ts');
    memory = new LedgerMemory(o.dataDir);
  }
  // the takeovers of one lease round read the account's orders and fills once
  const listing = sharedListing(venue, () => o.clock.now());
  let member: FleetMember;
  try {
    member = await joinFleet({
      redisUrl: cfg.redisUrl,
      account: o.address,
      member: name,
      ...(o.ledgerId !== undefined ? { ledgerId: o.ledgerId } : {}),
      clock: o.clock,
      markets: o.markets,
      onKill: (rec) => {
        // (a member started on a fleet tripped earlier learns it here: when, and how to re-arm: trial 22 F8)
        const since = new Date(rec.at).toISOString();
        flog.error(
          { reason: rec.reason, by: rec.by, at: since },
          'fleet kill switch tripped: every member stops; once its cause is dealt with, `mmkit kill --fleet --rearm` lets members start again',
        );
        trader.kill.trip(
          'manual',
          `${FROM_FLEET}${rec.reason} (by ${rec.by} at ${since}; re-arm: mmkit kill --fleet --rearm)`,
        );
      },
      pauseTarget: trader.executor,
      onDown: () => {
        flog.warn('fleet Redis unreachable: quotes pulled, placing paused until it is back');
        for (const m of o.markets) trader.pullMarket(m);
      },
      onUp: () => flog.info('fleet Redis reachable again: quoting resumes'),
      onHeartbeatLease: (held) => {
        flog.info({ held }, held ? 'heartbeat lease taken: this member heartbeats' : 'heartbeat lease lost');
        if (!held) return;
        // a taker goes on from the fleet's chain, then beats at once (once joined: nothing beats before)
        void ready.then(async (m) => {
          if (o.chain !== undefined) {
            const id = await m.lastHeartbeatId().catch(() => null);
            if (id !== null) o.chain.continueHeartbeatChain(id);
          }
          await trader.heartbeat.beatNow();
        });
      },
      onMarketGained: async (market, previous, fleet) => {
        // the fleet's Redis lost its records (restarted empty): the market's last holder is unknown, not
        // none; what rests there and is not ours is a member's that may be gone (its lease went with the
        // rest), or placed outside the fleet: cancelled, as at a takeover (trial 22 F1: a dead member's
        // orders rested for good, kept alive by the heartbeat holder)
        // (only a market with no last holder recorded: one this member or another took since has one)
        const unknown =
          previous === null &&
          !fleet.recorded &&
          memory !== undefined &&
          (await memory.lostRecords(fleet.redis, fleet.keys));
        if (previous === null && !unknown) {
          flog.info({ market }, 'market taken');
          return;
        }
        // what rests on the market and is not ours belonged to the previous holder: cancelled, not
        // adopted; it and the orders of the market that filled just before are that member's
        const { open, filled } = await previousHolderOrders(listing, trader.executor, market as ConditionId, {
          ours: new Set<OrderId>(trader.tracker.liveOrders().map((x) => x.id)),
          sinceMs: o.clock.now() - TAKEOVER_FILLS_MS,
          onError: (err) =>
            flog.warn({ market, err: err.message }, 'takeover: the recent fills could not be read (taken over anyway)'),
        });
        if (open.length > 0) await venue.cancel(open);
        if (previous !== null)
          flog.info(
            { market, from: previous.member, cancelled: open.length, filled: filled.length },
            'market taken over',
          );
        else
          flog.warn(
            { market, cancelled: open.length, orders: open, filled: filled.length },
            "market taken after the fleet's Redis lost its records (restarted empty?): its last holder is unknown, so the orders resting there that are not this member's (a member's that may be gone, or placed outside the fleet) are cancelled",
          );
      },
      onMarketLost: (market) => {
        flog.info({ market }, 'market given up: quotes pulled');
        trader.pullMarket(market as ConditionId);
      },
      onError: (err) => flog.debug({ err: err.message }, 'fleet Redis connection error'),
    });
  } catch (e) {
    // (the message names the Redis redacted: src/fleet/redis.ts)
    const { FleetUnreachableError } = await import('../fleet/redis.ts');
    if (e instanceof FleetUnreachableError)
      throw new CliError(e.message, ExitCode.UNREACHABLE, 'UNREACHABLE', { cause: e });
    throw e;
  }
  o.ref.member = member;
  o.ref.ledgerId = o.ledgerId ?? name;
  if (memory !== undefined) {
    o.ref.memory = memory;
    o.ref.onLedgersRestored = (restored, members) =>
      flog.warn(
        { restored, members },
        "the fleet's Redis had lost ledgers (restarted empty?): the ones this member remembered are back, so the holdings of members not running are not booked again",
      );
  }
  joined(member);
  const chain = o.chain;
  if (chain !== undefined) {
    // the holder records every new id of the chain (fenced: a former holder's late write is refused)
    let recorded: string | null = null;
    trader.heartbeat.onStatus((s) => {
      const id = chain.heartbeatId;
      if (!s.ok || id === null || id === recorded || !member.shouldBeat()) return;
      recorded = id;
      member
        .recordHeartbeat(id)
        .then((ok) => ok || flog.debug('heartbeat id not recorded: another member holds the heartbeat lease'))
        .catch((err: Error) => flog.debug({ err: err.message }, 'heartbeat id not recorded (Redis unreachable)'));
    });
  }
  // (a member refused here has published no ledger and claimed no history: review-1 F1)
  const keepLimits = await checkRunFleetLimits(member, { ...o, name, log: flog });
  // this member's ledger for the fleet's reconciliation (the record stays after it leaves)
  const { LedgerPublisher } = await import('../fleet/fleet-ledger.ts');
  const { startFleetLedger } = await import('../fleet/ledger-start.ts');
  const ledger = new LedgerPublisher({
    redis: member.redis,
    keys: member.keys,
    member: name,
    ledgerId: o.ref.ledgerId,
    clock: o.clock,
    collect: () => trader.ledgerFigures(),
    onError: (err) => flog.debug({ err: err.message }, 'fleet ledger not published (retried)'),
  });
  o.ref.ledger = ledger;
  try {
    const history = await startFleetLedger(member, {
      ledgerId: o.ref.ledgerId,
      claimHistory: o.claimHistory === true,
      publisher: ledger,
    });
    if (history !== undefined) o.ref.history = history;
  } catch (e) {
    flog.warn({ err: (e as Error).message }, "could not claim the account's history");
    keepLimits();
    await member.leave().catch(() => undefined);
    throw new CliError(
      "fleet: could not claim the account's history in the fleet's Redis (unreachable?)",
      ExitCode.UNREACHABLE,
      'UNREACHABLE',
    );
  }
  // the members' filled orders: this member's recorded, the others' known to its executor (their fills are theirs)
  const { MemberOrders } = await import('../fleet/member-orders.ts');
  const orders = new MemberOrders({
    redis: member.redis,
    keys: member.keys,
    clock: o.clock,
    onMemberOrders: (ids) => trader.executor.markMemberOrders(ids as OrderId[]),
    onError: (err) => flog.debug({ err: err.message }, 'fleet order registry not reached (retried)'),
  });
  o.ref.orders = orders;
  await orders.start();
  const leaveRisk = await startRunFleetRisk(member, o, name, flog, keepLimits);
  trader.kill.onTrip((t) => {
    if (!isRiskTrigger(t.trigger) || t.message.startsWith(FROM_FLEET)) return;
    member
      .trip(`${t.trigger}: ${t.message}`)
      .catch((err: Error) =>
        flog.error({ err: err.message }, 'could not trip the fleet kill switch (Redis unreachable)'),
      );
  });
  flog.info({ markets: o.markets.length }, 'joined the fleet');
  return {
    ...member,
    leave: async () => {
      await orders.stop();
      await ledger.stop();
      await leaveRisk();
    },
  };
}

/** The lower of two PnL figures, µ (either may be unknown). */
const lowerOf = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.min(a, b);
/** The lower of two PnLs of the UTC day, of the same date (the latest date otherwise). */
function lowerDay<D extends { readonly date: string; readonly pnl: number }>(
  a: D | undefined,
  b: D | undefined,
): D | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  if (a.date !== b.date) return a.date > b.date ? a : b;
  return a.pnl <= b.pnl ? a : b;
}

/** Starts the grant keeper and the loss watch; returns the member's leave that stops them first. */
async function startRunFleetRisk(
  member: FleetMember,
  o: { ref: FleetRef; trader: Trader; clock: Clock; limits: RiskLimits },
  name: string,
  flog: Logger,
  keepLimits: () => void,
): Promise<() => Promise<void>> {
  const { RiskGrants, RiskKeeper } = await import('../fleet/risk-reserve.ts');
  const { FleetLossWatch } = await import('../fleet/fleet-loss.ts');
  const { trader, clock } = o;
  const g = o.limits.global;
  let warned = false;
  const keeper = new RiskKeeper({
    grants: new RiskGrants(member.redis, member.keys, { notional: g.maxNotional, orders: g.maxOpenOrders }),
    member: name,
    clock,
    usage: () => globalUsage(trader.tracker.liveOrders()),
    liveMembers: () => Math.max(1, member.status().liveMembers.length),
    onError: (err) => {
      if (!warned) flog.debug({ err: (err as Error).message }, 'risk grant round failed: the grant in force stays');
      warned = true;
    },
  });
  o.ref.risk = keeper;
  await keeper.start();
  const loss = new FleetLossWatch({
    redis: member.redis,
    keys: member.keys,
    member: name,
    ...(o.ref.ledgerId !== undefined ? { ledger: o.ref.ledgerId } : {}),
    clock,
    maxLoss: o.limits.killSwitch.maxLoss,
    // the lower of its last reading and its last complete one (every held position marked): an
    // incomplete reading may leave a loss out, and a complete one may be old (trial 22 F2)
    pnl: () => lowerOf(trader.kill.lastPnl, trader.kill.lastCompletePnl),
    // the member's day PnL (its ledger's since the UTC day's open), summed over the fleet's members
    maxDailyLoss: o.limits.killSwitch.maxDailyLoss,
    dayPnl: () => lowerDay(trader.kill.dailyPnl, trader.kill.completeDailyPnl),
    onTrip: (rec) => {
      flog.error({ reason: rec.reason }, 'fleet loss limit: fleet kill switch tripped');
      // this member stops at once (the fleet's key reaches it too, moments later): a trip in the check
      // before quoting stops the start before the strategy gets any event
      trader.kill.trip('manual', `${FROM_FLEET}${rec.reason} (by ${rec.by})`);
    },
  });
  loss.start();
  o.ref.lossCheck = () => loss.check();
  let left: Promise<void> | undefined;
  return () =>
    (left ??= (async () => {
      loss.stop();
      // (the limits keeper first: its round touches the membership, and one after the leave would make
      // this member look live for 3 s more, refusing a member started with other values meanwhile)
      keepLimits();
      await keeper.stop().catch(() => undefined);
      // the last figures of this member (its PnL and PnL of the day at exit: a dead member's stay in the
      // sums), written now: the rounds' last could be a second old, before the loss that stopped it
      await loss.check();
      await member.leave();
    })());
}
