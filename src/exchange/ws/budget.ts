/**
 * The per-connection message budget of the exchange's streams: what one client can make the
 * exchange do, bounded whatever it sends. Pure: no sockets, no timers; callers pass the time (ms).
 *
 *  - Messages: every frame a client sends (PING included) takes one token of a bucket of
 *    `messageBurst` tokens refilled at `messagesPerSec`; a frame arriving on an empty bucket is
 *    refused (not handled).
 *  - Replies: the bytes the exchange sends IN REPLY to requests (book snapshots on a re-subscribe,
 *    RTDS price history on a repeated subscribe) draw on a bucket of `replyBurstBytes` refilled at
 *    `replyBytesPerSec`. A reply goes out whole while the bucket is positive (it may overdraw it:
 *    the debt is repaid before the next one) and is refused while it is empty. The first snapshot
 *    of each asset (or symbol) on a connection is not charged: a connection's first subscription
 *    always gets its snapshots. Data pushed by the exchange (book changes, trades, prices) is never
 *    charged: slow readers are handled by the socket's buffer cap.
 *  - Refusals add a strike each; strikes leak at one per second. A connection reaching `maxStrikes`
 *    is closed (1008): a flood is cut, a client refused now and then is not.
 */

/** Limits of one connection (defaults: DEFAULT_BUDGET). */
export interface BudgetOptions {
  /** Client frames a connection may send in a burst. */
  messageBurst: number;
  /** Client frames per second, sustained. */
  messagesPerSec: number;
  /** Reply bytes (snapshots re-sent on request) a connection may receive in a burst. */
  replyBurstBytes: number;
  /** Reply bytes per second, sustained. */
  replyBytesPerSec: number;
  /** Strikes (refusals, leaking one per second) at which the socket is closed with 1008. */
  maxStrikes: number;
}

/**
 * Defaults: 100 frames in a burst and 20 per second (the public clients send a PING every 5 or 10
 * s and a few subscriptions); 512 KiB of re-sent snapshots in a burst and 64 KiB per second (a
 * paper-exchange book is 0.5-3 KB: hundreds of resyncs); closed at 100 strikes.
 */
export const DEFAULT_BUDGET: Readonly<BudgetOptions> = {
  messageBurst: 100,
  messagesPerSec: 20,
  replyBurstBytes: 512 * 1024,
  replyBytesPerSec: 64 * 1024,
  maxStrikes: 100,
};

/** Strikes forgiven per second. */
export const STRIKE_LEAK_PER_SEC = 1;

/** A token bucket: `capacity` tokens, refilled continuously at `perSec`, full at the start. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly capacity: number,
    readonly perSec: number,
    now: number,
  ) {
    this.tokens = capacity;
    this.last = now;
  }

  /** Tokens available at `now` (negative while a debt is being repaid). */
  level(now: number): number {
    this.refill(now);
    return this.tokens;
  }

  /** Takes `n` tokens if that many are there; false (nothing taken) otherwise. */
  take(n: number, now: number): boolean {
    this.refill(now);
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }

  /** True when a draw may start now: the bucket is not empty. */
  canDraw(now: number): boolean {
    this.refill(now);
    return this.tokens > 0;
  }

  /** Takes `n` tokens unconditionally (the level may go below zero: a debt). */
  charge(n: number, now: number): void {
    this.refill(now);
    this.tokens -= n;
  }

  /** Milliseconds until `n` tokens are there (0 when they are); Infinity when the bucket never refills. */
  waitMs(n: number, now: number): number {
    this.refill(now);
    if (this.tokens >= n) return 0;
    if (this.perSec <= 0) return Number.POSITIVE_INFINITY;
    return Math.ceil(((n - this.tokens) * 1000) / this.perSec);
  }

  private refill(now: number): void {
    if (now <= this.last) return;
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) * this.perSec) / 1000);
    this.last = now;
  }
}

/** What to do about a refused frame or reply. */
export interface Refusal {
  /** The first refusal after a calm spell (no strike left): the one worth a security log line. */
  first: boolean;
  /** The strikes reached the maximum: close the socket (1008). */
  close: boolean;
  /** When the refused thing would pass, ms from now. */
  retryInMs: number;
}

/** The budget of one connection (see the module comment). */
export class ConnBudget {
  private readonly messages: TokenBucket;
  private readonly replies: TokenBucket;
  private strikes = 0;
  private strikesAt: number;
  /** Refusals so far (frames and replies). */
  refused = 0;

  constructor(
    private readonly o: BudgetOptions,
    now: number,
  ) {
    this.messages = new TokenBucket(o.messageBurst, o.messagesPerSec, now);
    this.replies = new TokenBucket(o.replyBurstBytes, o.replyBytesPerSec, now);
    this.strikesAt = now;
  }

  /** A client frame arrived: undefined when it may be handled, else the refusal. */
  message(now: number): Refusal | undefined {
    if (this.messages.take(1, now)) return undefined;
    return this.refuse(now, this.messages.waitMs(1, now));
  }

  /** Before sending charged replies: undefined when they may go out (then `charge` them), else the refusal. */
  reply(now: number): Refusal | undefined {
    if (this.replies.canDraw(now)) return undefined;
    return this.refuse(now, this.replies.waitMs(Number.MIN_VALUE, now));
  }

  /** Counts `bytes` of replies sent. */
  charge(bytes: number, now: number): void {
    this.replies.charge(bytes, now);
  }

  /** Current strikes (after the leak). */
  strikesAtTime(now: number): number {
    this.leak(now);
    return this.strikes;
  }

  private refuse(now: number, retryInMs: number): Refusal {
    this.refused++;
    this.leak(now);
    const first = this.strikes === 0;
    this.strikes++;
    return { first, close: this.strikes >= this.o.maxStrikes, retryInMs };
  }

  private leak(now: number): void {
    if (now <= this.strikesAt) return;
    this.strikes = Math.max(0, this.strikes - ((now - this.strikesAt) * STRIKE_LEAK_PER_SEC) / 1000);
    this.strikesAt = now;
  }
}
