/**
 * The fleet's ledger (issue 21; research §3.3): the members share one wallet, each keeps its own
 * ledger (its own data dir and store), and account reconciliation is fleet-level: the venue's
 * holdings are compared with the SUM of the members' ledgers.
 *
 * Each member publishes its ledger's figures per token (position and market, the signed size of
 * its unsettled fills, its fill count) to one HASH `ledgers` (field = the ledger's id, stable
 * across restarts: one per data directory, since a member's default name changes with its pid;
 * value = JSON naming the member): on change (debounced) and every `everyMs` (2 s). The record is
 * persistent: a dead member's positions still exist in the wallet, so they keep counting until an
 * operator removes the record (HDEL; README "Scaling out"). The audit of a member reads the OTHER
 * ledgers' records (`readOtherLedgers`) and adds its own live ledger (`sumLedgers`, pure). A Redis
 * restarted empty loses the records; each member remembers the others' (./ledger-memory.ts) and puts
 * them back, so a member not running then still counts (trial 14 F8); such a record is marked
 * (`restored`) until its member publishes again: it may be stale, and while any record is, the
 * audits book no difference (`unconfirmed`; trial 22 F3).
 */
import type { Redis } from 'ioredis';
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { FleetKeys } from './fleet-keys.ts';
import type { LedgerMemory } from './ledger-memory.ts';

/** One token in a member's ledger. Sizes micro-shares (signed). */
export interface LedgerToken {
  readonly market: string;
  /** The ledger's position (current epoch). */
  readonly size: number;
  /** Signed size of its fills the venue has not settled yet (BUY +, SELL −). */
  readonly unsettled: number;
  /** Fills of the token recorded so far (a counter that moves with every new fill). */
  readonly fills: number;
}

/** What a member publishes. */
export interface PublishedLedger {
  /** The member publishing it (its name now). */
  readonly member: string;
  /** When published (the member's clock, unix ms). */
  readonly at: number;
  readonly tokens: Readonly<Record<string, LedgerToken>>;
  /** Put back from a member's memory after Redis lost it, not published since by its own member (./ledger-memory.ts). */
  readonly restored?: true;
}

/** The other members' ledgers as one (what the audit adds to its own). */
export interface OthersLedger {
  /** Members whose records were read. */
  readonly members: readonly string[];
  readonly tokens: ReadonlyMap<string, LedgerToken>;
  /**
   * The members whose records were put back from a member's memory after Redis lost them and not
   * published since by their own member (absent: none): their figures may be stale (./ledger-memory.ts).
   */
  readonly unconfirmed?: readonly string[];
}

/** The empty view (a lone daemon, or no other member published yet). */
export const NO_OTHERS: OthersLedger = { members: [], tokens: new Map() };

/** Adds several members' token figures (pure). A token's market is the first one named. */
export function sumLedgers(
  ledgers: readonly (Readonly<Record<string, LedgerToken>> | ReadonlyMap<string, LedgerToken>)[],
): Map<string, LedgerToken> {
  const out = new Map<string, LedgerToken>();
  for (const l of ledgers) {
    const entries = l instanceof Map ? [...l.entries()] : Object.entries(l as Record<string, LedgerToken>);
    for (const [t, v] of entries) {
      const s = out.get(t);
      out.set(
        t,
        s === undefined
          ? { market: v.market, size: v.size, unsettled: v.unsettled, fills: v.fills }
          : { market: s.market, size: s.size + v.size, unsettled: s.unsettled + v.unsettled, fills: s.fills + v.fills },
      );
    }
  }
  return out;
}

const INT = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x);

/** Parses a published record; undefined when it is not one (a record of another version: ignored). */
export function parseLedger(json: string): PublishedLedger | undefined {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  if (typeof r.member !== 'string' || !INT(r.at) || typeof r.tokens !== 'object' || r.tokens === null) return undefined;
  const tokens: Record<string, LedgerToken> = {};
  for (const [t, x] of Object.entries(r.tokens as Record<string, unknown>)) {
    const e = x as Record<string, unknown> | null;
    if (e === null || typeof e !== 'object') return undefined;
    if (typeof e.market !== 'string' || !INT(e.size) || !INT(e.unsettled) || !INT(e.fills)) return undefined;
    tokens[t] = { market: e.market, size: e.size, unsettled: e.unsettled, fills: e.fills };
  }
  return { member: r.member, at: r.at, tokens, ...(r.restored === true ? { restored: true as const } : {}) };
}

/**
 * The other ledgers' published records, summed (`self`, this member's ledger id, excluded: its live
 * ledger counts instead). `members` names the members that published them. With `memory` (this
 * member's, ./ledger-memory.ts), records a Redis restarted empty lost are put back first (`restored`
 * says how many).
 * @throws what Redis throws (unreachable: the caller's audit fails and is retried)
 */
export async function readOtherLedgers(
  redis: Redis,
  keys: FleetKeys,
  self: string,
  memory?: Pick<LedgerMemory, 'read'>,
): Promise<OthersLedger & { readonly restored: number }> {
  let all: Readonly<Record<string, string>>;
  let restored = 0;
  if (memory === undefined) all = await redis.hgetall(keys.ledgers);
  else ({ records: all, restored } = await memory.read(redis, keys, self));
  const members: string[] = [];
  const ledgers: Record<string, LedgerToken>[] = [];
  const unconfirmed: string[] = [];
  for (const [m, json] of Object.entries(all)) {
    if (m === self) continue;
    const l = parseLedger(json);
    if (l === undefined) continue;
    members.push(l.member);
    ledgers.push(l.tokens as Record<string, LedgerToken>);
    if (l.restored === true) unconfirmed.push(l.member);
  }
  return {
    members: members.sort(),
    tokens: sumLedgers(ledgers),
    restored,
    ...(unconfirmed.length > 0 ? { unconfirmed: unconfirmed.sort() } : {}),
  };
}

export interface LedgerPublisherOptions {
  readonly redis: Redis;
  readonly keys: FleetKeys;
  /** This member's name (in the record). */
  readonly member: string;
  /** The ledger's id (the record's field; default `member`): stable across restarts of one data directory. */
  readonly ledgerId?: string;
  readonly clock: Clock;
  /** This member's ledger now, by token. */
  readonly collect: () => Readonly<Record<string, LedgerToken>>;
  /** Period, ms (default 2000). */
  readonly everyMs?: number;
  /** Delay of a publish after `changed()`, ms (default 200). */
  readonly debounceMs?: number;
  /** A publish failed (Redis unreachable: tried again next period). */
  readonly onError?: (err: Error) => void;
}

/** Publishes this member's ledger (see the module comment). */
export class LedgerPublisher {
  readonly #o: LedgerPublisherOptions;
  #timer: TimerHandle | undefined;
  #debounce: TimerHandle | undefined;
  #busy: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  /** Publishes done. */
  published = 0;

  constructor(o: LedgerPublisherOptions) {
    this.#o = o;
  }

  /** Publishes now and every period. */
  start(): Promise<void> {
    this.#timer = this.#o.clock.setInterval(() => void this.publish(), this.#o.everyMs ?? 2000);
    return this.publish();
  }

  /** The ledger changed (a fill, an adjustment): published after the debounce. */
  changed(): void {
    if (this.#stopped || this.#debounce !== undefined) return;
    this.#debounce = this.#o.clock.setTimeout(() => {
      this.#debounce = undefined;
      void this.publish();
    }, this.#o.debounceMs ?? 200);
  }

  /** One publish (never overlapping; one asked during a publish follows it). Never rejects. */
  publish(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#busy !== undefined) {
      this.#again = true;
      return this.#busy;
    }
    this.#busy = (async () => {
      do {
        this.#again = false;
        const o = this.#o;
        const rec: PublishedLedger = { member: o.member, at: o.clock.now(), tokens: o.collect() };
        try {
          // (the whole record: a mark of one put back from a memory goes with it, ./ledger-memory.ts)
          await o.redis.hset(o.keys.ledgers, o.ledgerId ?? o.member, JSON.stringify(rec));
          this.published++;
        } catch (e) {
          o.onError?.(e instanceof Error ? e : new Error(String(e)));
        }
      } while (this.#again && !this.#stopped);
    })().finally(() => {
      this.#busy = undefined;
    });
    return this.#busy;
  }

  /** A last publish, then stops (the record stays: the member's positions still exist). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    if (this.#timer !== undefined) this.#o.clock.clearInterval(this.#timer);
    if (this.#debounce !== undefined) this.#o.clock.clearTimeout(this.#debounce);
    this.#timer = this.#debounce = undefined;
    await this.publish();
    this.#stopped = true;
    await this.#busy;
  }
}
