/**
 * The presign pool of the live venue: GTC limit orders likely to be re-quoted are signed in idle
 * time and kept by slot (token, side, price), so a later `prepare` of an identical order takes a
 * signature from the pool instead of signing on the path to the socket (see PresignOptions).
 */
import type { OrderBuilder, OrderProtocol } from '../../api/orders.ts';
import type { AnyWireOrder } from '../../api/signing/order-v2.ts';
import { PRICE_SCALE, tickPips, type TickSize } from '../../core/units.ts';
import type { MarketInfo, PlaceRequest } from '../../core/venue.ts';

/**
 * Speculative signing. Signing (EIP-712 hash + secp256k1) is most of the time between a market
 * frame and an order on the wire (~50-90 us per order). After a GTC limit order is prepared, the
 * same order at its price and `ticks` ticks either side is signed in idle time (one signature per
 * event-loop turn, so incoming frames wait at most one signature), and a later `prepare` of an
 * identical order (token, side, price, size, tick, neg-risk, fee) takes it from the cache. Each
 * pre-signed order has its own salt and is used at most once; unused ones are simply never sent.
 * Up to `copies` are kept per order, because an executor often re-sends an order identical to one
 * it just placed (it cancels a pair and re-places both when only one price moved): with a single
 * copy, that second order finds the cache empty (its replacement is not signed yet, there was no
 * idle time in between) and is signed on the spot.
 */
export interface PresignOptions {
  /** Ticks either side of each prepared price to pre-sign (default 1; 0 pre-signs the same price only). */
  ticks?: number;
  /** Pre-signed orders kept per identical order (default 2). Costs idle time only when used. */
  copies?: number;
  /** Most pre-signed orders kept (oldest dropped first; default 1,000). */
  capacity?: number;
}

/** A pre-signed order, with what its signature depends on besides its token, side and price. */
export interface Presigned {
  readonly id: string;
  readonly wire: AnyWireOrder;
  readonly size: number;
  readonly tick: TickSize;
  readonly negRisk: boolean;
  readonly feeRateBps: number;
}
/** An order waiting to be pre-signed. */
export interface PresignJob {
  readonly tokenId: string;
  readonly side: PlaceRequest['side'];
  readonly price: number;
  readonly size: number;
}
/** Idle poll of the presign step while re-quotes are recent (see PresignPool.#presignPoll), ms; and how many empty polls before it stops. */
const PRESIGN_POLL_MS = 1;
const PRESIGN_POLL_IDLE = 1000;
/** Price slots per (token, side) in a presign slot number. */
const PRESIGN_PRICES = PRICE_SCALE + 1;

/** Whether a pre-signed order is the order (size, market tick, neg-risk, fee) asked for now. */
function presignMatches(e: Presigned, size: number, m: MarketInfo): boolean {
  return e.size === size && e.tick === m.tick && e.negRisk === m.negRisk && e.feeRateBps === m.feeRateBps;
}

/** A token as the venue knows it: its market's info (as last seen) and a small number (its presign slots). */
export interface PresignToken {
  m: MarketInfo;
  no: number;
}

/** Counters of a presign pool. */
export interface PresignStats {
  /** `take` found a pre-signed order / did not. */
  presignHits: number;
  presignMisses: number;
  /** Orders signed in idle time so far, and held now. */
  presigned: number;
  presignHeld: number;
}

/** Pre-signed GTC orders by slot, filled in idle time (see the module comment). */
export class PresignPool {
  readonly #presignTicks: number; // -1: disabled
  readonly #presignCap: number;
  readonly #presignCopies: number;
  /**
   * Pre-signed orders by slot (token, side, price: see #presignSlot), oldest first; #presignHeld
   * counts them. A number keys the maps because this is looked up on every re-quote: a string key
   * (a token id is ~78 digits) would be built and hashed each time.
   */
  readonly #presigned = new Map<number, Presigned[]>();
  #presignHeld = 0;
  /** What to sign next, by slot (the latest size asked for a slot wins). */
  readonly #presignQueue = new Map<number, PresignJob>();
  /** A step is due: an immediate (work queued) or the idle poll. */
  #presignScheduled = false;
  /**
   * While re-quotes keep coming, the idle step also polls every PRESIGN_POLL_MS (one reused,
   * unref'd timer), so that `prepare` finds a step already due and schedules nothing itself
   * (scheduling an immediate is a few microseconds on the path to the socket). It stops after
   * PRESIGN_POLL_IDLE empty polls; the next `prepare` schedules a step again.
   */
  #presignPoll: ReturnType<typeof setTimeout> | undefined;
  #presignIdlePolls = 0;
  /** GTC orders prepared since the last idle step: their neighbours are queued there, not on the hot path. */
  #presignPending: PresignJob[] = [];
  readonly #stats = { presignHits: 0, presignMisses: 0, presigned: 0 };
  #closed = false;

  /**
   * @param opts the venue's presign option (undefined: defaults; false: disabled)
   * @param builder signs the orders
   * @param tokenOf the venue's current knowledge of a token (undefined: unknown)
   */
  constructor(
    opts: PresignOptions | false | undefined,
    private readonly builder: Pick<OrderBuilder<OrderProtocol>, 'buildLimit'>,
    private readonly tokenOf: (tokenId: string) => PresignToken | undefined,
  ) {
    const ps = opts === undefined ? {} : opts;
    this.#presignTicks = ps === false ? -1 : Math.max(0, Math.floor(ps.ticks ?? 1));
    this.#presignCap = ps === false ? 0 : Math.max(1, ps.capacity ?? 1_000);
    this.#presignCopies = ps === false ? 0 : Math.max(1, Math.floor(ps.copies ?? 2));
  }

  /** False when presigning is disabled. */
  get enabled(): boolean {
    return this.#presignTicks >= 0;
  }

  /** The counters now. */
  stats(): PresignStats {
    return { ...this.#stats, presignHeld: this.#presignHeld };
  }

  /**
   * Takes the oldest pre-signed order identical to this GTC order (size, and the market's tick,
   * neg-risk and fee as they are now), counting a hit or a miss; undefined: none, sign it now.
   */
  take(t: PresignToken, side: PlaceRequest['side'], price: number, size: number): Presigned | undefined {
    const hit = this.#takePresigned(PresignPool.#slot(t.no, side, price), size, t.m);
    if (hit !== undefined) this.#stats.presignHits++;
    else this.#stats.presignMisses++;
    return hit;
  }

  /** A GTC order was prepared: its replacement and its neighbours are queued in idle time, not now. */
  prepared(job: PresignJob): void {
    this.#presignPending.push(job);
    this.#kickPresign();
  }

  /** Stops the idle work (idempotent). */
  close(): void {
    this.#closed = true;
    if (this.#presignPoll !== undefined) clearTimeout(this.#presignPoll);
  }

  /** The presign slot of (token by its number, side, price): one number. */
  static #slot(tokenNo: number, side: PlaceRequest['side'], price: number): number {
    return (tokenNo * 2 + (side === 'BUY' ? 0 : 1)) * PRESIGN_PRICES + price;
  }

  /** How many pre-signed orders of a slot are this order (size, and the market's tick, neg-risk, fee). */
  #presignCount(slot: number, size: number, m: MarketInfo): number {
    const list = this.#presigned.get(slot);
    if (list === undefined) return 0;
    let n = 0;
    for (const e of list) if (presignMatches(e, size, m)) n++;
    return n;
  }

  /** Takes the oldest pre-signed order of a slot that is this order, or undefined. */
  #takePresigned(slot: number, size: number, m: MarketInfo): Presigned | undefined {
    const list = this.#presigned.get(slot);
    if (list === undefined) return undefined;
    for (let i = 0; i < list.length; i++) {
      const e = list[i]!;
      if (!presignMatches(e, size, m)) continue;
      if (i === 0) list.shift();
      else list.splice(i, 1);
      if (list.length === 0) this.#presigned.delete(slot);
      this.#presignHeld--;
      return e;
    }
    return undefined;
  }

  /** Drops the oldest pre-signed order (capacity). */
  #dropOldestPresigned(): void {
    const first = this.#presigned.entries().next();
    if (first.done) return;
    const [slot, list] = first.value;
    list.shift();
    this.#presignHeld--;
    if (list.length === 0) this.#presigned.delete(slot);
  }

  /** Schedules the idle step if there is idle work and none is scheduled. */
  #kickPresign(): void {
    if (!this.#presignScheduled && !this.#closed && (this.#presignPending.length > 0 || this.#presignQueue.size > 0)) {
      this.#presignScheduled = true;
      setImmediate(this.#presignStep);
    }
  }

  /** After a step: the next one at once while work is queued, else a poll while re-quotes are recent, else none. */
  #presignNext(worked: boolean): void {
    if (this.#closed) return;
    if (this.#presignQueue.size > 0) {
      this.#presignScheduled = true;
      setImmediate(this.#presignStep);
      return;
    }
    this.#presignIdlePolls = worked ? 0 : this.#presignIdlePolls + 1;
    if (this.#presignIdlePolls > PRESIGN_POLL_IDLE) return;
    this.#presignScheduled = true;
    if (this.#presignPoll === undefined) {
      this.#presignPoll = setTimeout(this.#presignStep, PRESIGN_POLL_MS);
      this.#presignPoll.unref();
    } else this.#presignPoll.refresh();
  }

  /** Queues the same order at its price and the neighbouring ticks (those not held yet) for signing. */
  #presignAround(q: PresignJob): void {
    const t = this.tokenOf(q.tokenId);
    if (t === undefined) return;
    const m = t.m;
    const tick = tickPips(m.tick);
    const n = this.#presignTicks;
    const base = PresignPool.#slot(t.no, q.side, 0);
    for (let k = -n; k <= n; k++) {
      const p = q.price + k * tick;
      if (p < tick || p > PRICE_SCALE - tick) continue;
      const slot = base + p;
      const queued = this.#presignQueue.get(slot);
      if (queued !== undefined && queued.size === q.size) continue;
      if (this.#presignCount(slot, q.size, m) >= this.#presignCopies) continue;
      this.#presignQueue.set(slot, k === 0 ? q : { tokenId: q.tokenId, side: q.side, price: p, size: q.size });
    }
    while (this.#presignQueue.size > this.#presignCap)
      this.#presignQueue.delete(this.#presignQueue.keys().next().value!);
  }

  /**
   * Idle work, one event-loop turn at a time (incoming frames wait at most one signature): first
   * the orders prepared since the last turn queue their replacements and neighbours, then one
   * queued order is signed, with the market's tick, neg-risk and fee as they are now. A slot still
   * short of its copies goes back to the end of the queue: every slot gets its first copy before
   * any gets its second.
   */
  readonly #presignStep = (): void => {
    this.#presignScheduled = false;
    if (this.#closed) return;
    let worked = false;
    if (this.#presignPending.length > 0) {
      const pending = this.#presignPending;
      this.#presignPending = [];
      for (let i = 0; i < pending.length; i++) this.#presignAround(pending[i]!);
      worked = true;
    }
    const next = this.#presignQueue.entries().next();
    if (!next.done) {
      worked = true;
      const [slot, q] = next.value;
      this.#presignQueue.delete(slot);
      const cur = this.tokenOf(q.tokenId)?.m;
      if (cur !== undefined && this.#presignCount(slot, q.size, cur) < this.#presignCopies) {
        try {
          const b = this.builder.buildLimit({
            tokenId: q.tokenId,
            side: q.side,
            tick: cur.tick,
            negRisk: cur.negRisk,
            feeRateBps: cur.feeRateBps,
            price: q.price,
            size: q.size,
          });
          let list = this.#presigned.get(slot);
          if (list === undefined) this.#presigned.set(slot, (list = []));
          list.push({
            id: b.id,
            wire: b.wire,
            size: q.size,
            tick: cur.tick,
            negRisk: cur.negRisk,
            feeRateBps: cur.feeRateBps,
          });
          this.#presignHeld++;
          this.#stats.presigned++;
          if (this.#presignCount(slot, q.size, cur) < this.#presignCopies && !this.#presignQueue.has(slot))
            this.#presignQueue.set(slot, q);
          while (this.#presignHeld > this.#presignCap) this.#dropOldestPresigned();
        } catch {
          /* off the tick now, or out of range: nothing to pre-sign */
        }
      }
    }
    this.#presignNext(worked);
  };
}
