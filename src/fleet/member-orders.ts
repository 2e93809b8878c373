/**
 * Whose fills (findings-2 F5, F8): which orders of the wallet the fleet's members placed, so that a
 * member never books another member's fill as its own "external" one, whoever holds the market now.
 *
 * A member tells its own orders from its store. An order it does not know is another member's or
 * someone else's on the wallet (truly external). Who holds the market NOW does not say which: after
 * a restart a member takes its market back and backfills the fills another member made there while
 * it was away; a member started on a fresh data directory backfills the account's whole history.
 * So the fleet keeps a registry in Redis: every member adds the id of each of its own orders that
 * filled (a ZSET `orders`, id -> when recorded, kept `MEMBER_ORDERS_RETENTION_MS`), in batches every
 * `flushMs`; every member reads the ids added since its last read every `syncMs` (its executor then
 * knows them as members', whatever the market), and asks for a batch of ids at once before a
 * backfill books them (`lookup`). Only filled orders are recorded: an order that never filled has no
 * fill to tell apart, and a quoting fleet places many more orders than it fills.
 * The "when" is Redis's clock (`TIME`, read by the script that adds a batch and trims the registry),
 * as in every other fleet script: a read "since the newest score seen" compares the scores of all
 * members, so scores stamped by the members' own clocks would hide the ids of a member whose clock
 * runs behind the others' by more than the read's overlap (review-1 F10). The members need no clock
 * sync.
 *
 * The account's history (`claimHistory`): a member whose store has no fill yet backfills the
 * account's past fills. Those of orders placed before the fleet kept a registry (or before it was
 * kept this long) cannot be told apart by id, and they are in the ledgers of the members that made
 * them (or, truly external, booked as such by the member that saw them then). So the history is
 * booked once per account: by the first ledger to claim it, when no other ledger has been published
 * yet; every later member with an empty store starts at its start.
 *
 * Fills from outside the fleet (`claimExternalFill`): a fill of an order no member placed (the
 * operator's, by hand on the same wallet) is booked as external by the member holding its market;
 * on a market outside the fleet's markets nobody holds it and every member sees it (the user
 * channel's audit asks for the account's trades), so each would book it and the ledgers would sum
 * N times the venue's holding. Such a fill is booked by the ledger that claims it first (a key per
 * fill, `trade|order` -> ledger id, kept `MEMBER_ORDERS_RETENTION_MS`): once fleet-wide, whoever
 * sees it first, and again by the same ledger after a restart (its store keeps it once).
 */
import type { Redis } from 'ioredis';
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { FleetKeys } from './fleet-keys.ts';
import { Script } from './lua-script.ts';

/** How long the registry keeps an order id: 30 days (a fill of an older order is a rare late one). */
export const MEMBER_ORDERS_RETENTION_MS = 30 * 24 * 3_600_000;

/**
 * A read of the ids added since the last one starts this much earlier: ids of the same ms as the
 * newest one seen, and a Redis clock stepped back a little (NTP) or a failover to another host.
 */
const SYNC_OVERLAP_MS = 10_000;

/**
 * The first read, at start, goes this far back: the user channel's first audit and reconnects ask
 * the venue for the trades of a margin (60 s) before the stream's start; a restart's own backfill
 * asks by id (`lookup`) however far back it goes.
 */
export const MEMBER_ORDERS_START_MS = 3_600_000;

/** Ids asked at once (ZMSCORE). */
const LOOKUP_BATCH = 1000;

/**
 * KEYS[1] the registry; ARGV the retention (ms), then the ids. Adds the ids not recorded yet, stamped
 * with Redis's clock (ms), and drops those older than the retention; returns that stamp.
 */
const ADD_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local score = string.format('%.0f', now)
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'NX', score, ARGV[i]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - tonumber(ARGV[1])))
return score
`;
const ADD = new Script(ADD_LUA);

export interface MemberOrdersOptions {
  readonly redis: Redis;
  readonly keys: FleetKeys;
  /** Runs the periods (the registry's times are Redis's, never this clock's). */
  readonly clock: Clock;
  /** Ids added by the members since the last read (this member's own among them: harmless). */
  readonly onMemberOrders: (ids: readonly string[]) => void;
  /** Batches of this member's ids are written every this many ms (default 500). */
  readonly flushMs?: number;
  /** The members' new ids are read every this many ms (default 1000). */
  readonly syncMs?: number;
  /** A write or read failed (Redis unreachable: tried again next period; the ids stay queued). */
  readonly onError?: (err: Error) => void;
}

/** This member's side of the registry (see the module comment). */
export class MemberOrders {
  readonly #o: MemberOrdersOptions;
  #queued = new Set<string>();
  #flushTimer: TimerHandle | undefined;
  #syncTimer: TimerHandle | undefined;
  #flushing: Promise<void> | undefined;
  #syncing: Promise<void> | undefined;
  /** The newest score read so far (ms of Redis's clock; undefined before the first read). */
  #syncedTo: number | undefined;

  constructor(o: MemberOrdersOptions) {
    this.#o = o;
  }

  /**
   * Reads the ids added in the last `MEMBER_ORDERS_START_MS` now, and those added from then on every
   * `syncMs` (`sync`); writes this member's every `flushMs` (`flush`).
   */
  async start(): Promise<void> {
    this.#flushTimer = this.#o.clock.setInterval(() => void this.flush(), this.#o.flushMs ?? 500);
    this.#syncTimer = this.#o.clock.setInterval(() => void this.sync(), this.#o.syncMs ?? 1000);
    await this.sync();
  }

  /** An own order filled: its id goes to the registry with the next batch. */
  add(orderId: string): void {
    this.#queued.add(orderId);
  }

  /** Writes the queued ids now (and trims the registry). Never rejects. */
  flush(): Promise<void> {
    if (this.#flushing !== undefined || this.#queued.size === 0) return this.#flushing ?? Promise.resolve();
    const ids = [...this.#queued];
    this.#queued = new Set();
    this.#flushing = ADD.run(this.#o.redis, [this.#o.keys.memberOrders], [MEMBER_ORDERS_RETENTION_MS, ...ids])
      .then(() => undefined)
      .catch((e: unknown) => {
        for (const id of ids) this.#queued.add(id);
        this.#o.onError?.(e instanceof Error ? e : new Error(String(e)));
      })
      .finally(() => {
        this.#flushing = undefined;
      });
    return this.#flushing;
  }

  /**
   * Reads the ids the members added since the last read (the first read: in the last
   * `MEMBER_ORDERS_START_MS` of Redis's clock) and hands them to `onMemberOrders`. Never rejects.
   */
  sync(): Promise<void> {
    this.#syncing ??= (async () => {
      try {
        let synced = this.#syncedTo;
        if (synced === undefined) {
          const [sec, us] = await this.#o.redis.time();
          synced = Number(sec) * 1000 + Math.floor(Number(us) / 1000) - MEMBER_ORDERS_START_MS;
        }
        const from = synced - SYNC_OVERLAP_MS;
        const r = await this.#o.redis.zrangebyscore(this.#o.keys.memberOrders, from, '+inf', 'WITHSCORES');
        const ids: string[] = [];
        for (let i = 0; i + 1 < r.length; i += 2) {
          ids.push(r[i]!);
          const s = Number(r[i + 1]);
          if (s > synced) synced = s;
        }
        this.#syncedTo = synced;
        if (ids.length > 0) this.#o.onMemberOrders(ids);
      } catch (e) {
        this.#o.onError?.(e instanceof Error ? e : new Error(String(e)));
      }
    })().finally(() => {
      this.#syncing = undefined;
    });
    return this.#syncing;
  }

  /**
   * Which of `ids` a member of the fleet recorded (this member's own included, when it did).
   * @throws what Redis throws (the caller must not book these fills as external then)
   */
  async lookup(ids: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    const uniq = [...new Set(ids)];
    for (let i = 0; i < uniq.length; i += LOOKUP_BATCH) {
      const part = uniq.slice(i, i + LOOKUP_BATCH);
      const scores = await this.#o.redis.zmscore(this.#o.keys.memberOrders, ...part);
      part.forEach((id, j) => {
        if (scores[j] !== null && scores[j] !== undefined) out.add(id);
      });
    }
    return out;
  }

  /** Stops the timers after a last flush. */
  async stop(): Promise<void> {
    if (this.#flushTimer !== undefined) this.#o.clock.clearInterval(this.#flushTimer);
    if (this.#syncTimer !== undefined) this.#o.clock.clearInterval(this.#syncTimer);
    this.#flushTimer = this.#syncTimer = undefined;
    await this.#flushing;
    await this.flush();
  }
}

/**
 * KEYS[1] history, KEYS[2] ledgers; ARGV this ledger's id. The ledger that books the account's
 * history: the one recorded, else this one when no other ledger is published (recorded then), else
 * `-` (a fleet older than the record: its members' ledgers have the history; recorded too).
 */
const HISTORY_LUA = `
local v = redis.call('GET', KEYS[1])
if v then return v end
local n = redis.call('HLEN', KEYS[2])
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then n = n - 1 end
if n > 0 then v = '-' else v = ARGV[1] end
redis.call('SET', KEYS[1], v)
return v
`;
const HISTORY = new Script(HISTORY_LUA);

/**
 * True when the ledger `ledgerId` books the account's history (see the module comment): a member
 * whose store has no fill yet backfills from the beginning then, else from its start.
 * @throws what Redis throws
 */
export async function claimHistory(redis: Redis, keys: FleetKeys, ledgerId: string): Promise<boolean> {
  return (await HISTORY.run(redis, [keys.history, keys.ledgers], [ledgerId])) === ledgerId;
}

/**
 * KEYS[1] the fill's claim; ARGV this ledger's id, the ttl (ms). The ledger that books the fill:
 * the one recorded, else this one (recorded then).
 */
const EXTERNAL_FILL_LUA = `
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]
`;
const EXTERNAL_FILL = new Script(EXTERNAL_FILL_LUA);

/**
 * True when the ledger `ledgerId` books the fill `tradeId`/`orderId` of an order no member placed,
 * on a market outside the fleet's (see the module comment): the first ledger to claim it, and that
 * ledger again on every later claim.
 * @throws what Redis throws (the caller books nothing then: it asks again later)
 */
export async function claimExternalFill(
  redis: Redis,
  keys: FleetKeys,
  ledgerId: string,
  tradeId: string,
  orderId: string,
): Promise<boolean> {
  const key = keys.externalFill(tradeId, orderId);
  return (await EXTERNAL_FILL.run(redis, [key], [ledgerId, MEMBER_ORDERS_RETENTION_MS])) === ledgerId;
}
