/**
 * The heartbeat lease (issue 21; research §3.2): the venue's dead-man switch belongs to the account
 * (one heartbeat chain per API key), so exactly one member of the fleet sends the heartbeats, and
 * another takes over within the dead-man window when it dies.
 *
 * Timing (defaults): lease ttl L = 2500 ms, renewed every 500 ms; the others try to take it every
 * 250 ms. A holder that dies (kill -9: it stops renewing) leaves a lease that expires within L, so a
 * taker holds it within L + 250 ms + a round trip and heartbeats at once (`onAcquired`). With the
 * venue's 5 s cadence that is ~7.8 s at worst, inside its 10 s timeout.
 *
 * Self-fencing: the holder beats only until `sentAt(last good renew) + 0.8 L`, and stops once a
 * renew answers "not yours". The one exception (the issue's): while Redis is unreachable (a renew
 * FAILS rather than answers), the holder keeps heartbeating as long as it reaches the venue, since
 * a duplicate heartbeat is harmless and a missing one cancels every order of the account. When
 * Redis returns, the former holder re-takes the lease at once, and the others wait one extra L
 * before claiming (after they saw Redis come back), so that it can.
 *
 * The wiring (src/kernel): the HeartbeatKeeper's `beat` becomes `() => lease.shouldBeat() ?
 * venue.heartbeat() : Promise.resolve(true)`, its `active` is true on the holder, and `onAcquired`
 * calls `keeper.beatNow()`.
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import { type RedisLeases, selfFenceUntil } from './lease.ts';

export interface HeartbeatLeaseOptions {
  readonly leases: RedisLeases;
  /** The lease key (FleetKeys.heartbeatLease). */
  readonly key: string;
  readonly member: string;
  readonly clock: Clock;
  /** Whether Redis is reachable (RedisHealth.isUp), and its changes. */
  readonly health: { isUp(): boolean; onChange(fn: (up: boolean) => void): () => void };
  /** Lease ttl, ms (default 2500). */
  readonly ttlMs?: number;
  /** Renew period of the holder, ms (default 500). */
  readonly renewMs?: number;
  /** Claim period of the others, ms (default 250). */
  readonly pollMs?: number;
  /** Called when this member took the lease (heartbeat at once). */
  readonly onAcquired?: (fence: number) => void;
  /** Called when this member lost it (another holds it now, or it expired). */
  readonly onLost?: () => void;
}

/** What `status()` reports. */
export interface HeartbeatLeaseStatus {
  readonly holder: boolean;
  readonly fence: number;
  /** Self-fence deadline (clock ms; 0 when not holding). */
  readonly validUntil: number;
  /** True while the holder beats on through a Redis outage. */
  readonly riding: boolean;
  readonly acquired: number;
  readonly lost: number;
}

/** One member's side of the heartbeat lease (see the module comment). */
export class HeartbeatLease {
  readonly #o: Required<Omit<HeartbeatLeaseOptions, 'onAcquired' | 'onLost'>> &
    Pick<HeartbeatLeaseOptions, 'onAcquired' | 'onLost'>;
  #timer: TimerHandle | undefined;
  #busy = false;
  #value: string | undefined;
  #fence = 0;
  #validUntil = 0;
  #lastRenewAt = 0;
  /** Set while a renew failed (Redis unreachable) and the holder beats on. */
  #riding = false;
  /** A former holder that lost the lease through an outage re-takes it without waiting. */
  #formerHolder = false;
  #blockedUntil = 0;
  #sawDown = false;
  #acquired = 0;
  #lost = 0;
  #unwatch: (() => void) | undefined;

  /** @throws RangeError on periods that cannot keep a lease (renew and poll must be below 0.8 ttl) */
  constructor(o: HeartbeatLeaseOptions) {
    this.#o = { ttlMs: 2500, renewMs: 500, pollMs: 250, ...o };
    const { ttlMs, renewMs, pollMs } = this.#o;
    if (!(renewMs > 0 && pollMs > 0 && renewMs < 0.8 * ttlMs && pollMs < 0.8 * ttlMs))
      throw new RangeError('heartbeat lease: renewMs and pollMs must be positive and below 0.8 × ttlMs');
  }

  /** Starts claiming (and, once holding, renewing). Idempotent. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#unwatch = this.#o.health.onChange((up) => {
      if (!up) {
        this.#sawDown = true;
        return;
      }
      // back after an outage: the former holder re-takes first; the others give it one lease period
      if (this.#sawDown && this.#value === undefined && !this.#formerHolder)
        this.#blockedUntil = this.#o.clock.now() + this.#o.ttlMs;
      this.#sawDown = false;
    });
    this.#timer = this.#o.clock.setInterval(() => void this.#tick(), this.#o.pollMs);
    void this.#tick();
  }

  /** Stops, and releases the lease if held (a clean exit: the next member takes over at once). */
  async stop(): Promise<void> {
    this.halt();
    const v = this.#value;
    this.#drop(false);
    if (v !== undefined) await this.#o.leases.release(this.#o.key, v).catch(() => false);
  }

  /** Stops without releasing (what a crash looks like to the others; for tests and abrupt exits). */
  halt(): void {
    if (this.#timer !== undefined) this.#o.clock.clearInterval(this.#timer);
    this.#timer = undefined;
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  /** Whether this member should send the venue's heartbeats now. */
  shouldBeat(): boolean {
    if (this.#value === undefined) return false;
    return this.#riding || this.#o.clock.now() < this.#validUntil;
  }

  status(): HeartbeatLeaseStatus {
    return {
      holder: this.#value !== undefined,
      fence: this.#fence,
      validUntil: this.#value === undefined ? 0 : this.#validUntil,
      riding: this.#riding,
      acquired: this.#acquired,
      lost: this.#lost,
    };
  }

  async #tick(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      if (this.#value !== undefined) await this.#renew();
      else await this.#claim();
    } finally {
      this.#busy = false;
    }
  }

  async #renew(): Promise<void> {
    const now = this.#o.clock.now();
    // while riding an outage, try every poll; else every renewMs
    if (!this.#riding && now - this.#lastRenewAt < this.#o.renewMs) return;
    const value = this.#value!;
    this.#lastRenewAt = now;
    let held: boolean;
    try {
      held = await this.#o.leases.renew(this.#o.key, value, this.#o.ttlMs);
    } catch {
      // Redis unreachable: beat on (a duplicate heartbeat is harmless, a missing one is not)
      this.#riding = true;
      return;
    }
    if (this.#value !== value) return;
    if (held) {
      this.#validUntil = selfFenceUntil(now, this.#o.ttlMs);
      this.#riding = false;
      return;
    }
    const afterOutage = this.#riding;
    this.#drop(true);
    if (afterOutage) {
      // Redis came back without our lease (restarted empty, or it expired meanwhile): re-take it
      this.#formerHolder = true;
      await this.#claim();
    }
  }

  async #claim(): Promise<void> {
    const now = this.#o.clock.now();
    if (!this.#formerHolder && (now < this.#blockedUntil || !this.#o.health.isUp())) return;
    let r;
    try {
      r = await this.#o.leases.acquire(this.#o.key, this.#o.member, this.#o.ttlMs);
    } catch {
      return;
    }
    this.#formerHolder = false;
    if (!r.ok || this.#timer === undefined) {
      if (r.ok) await this.#o.leases.release(this.#o.key, r.value).catch(() => false);
      return;
    }
    this.#value = r.value;
    this.#fence = r.fence;
    this.#validUntil = selfFenceUntil(now, this.#o.ttlMs);
    this.#lastRenewAt = now;
    this.#riding = false;
    this.#acquired++;
    try {
      this.#o.onAcquired?.(r.fence);
    } catch {
      /* the lease is kept */
    }
  }

  #drop(notify: boolean): void {
    const had = this.#value !== undefined;
    this.#value = undefined;
    this.#validUntil = 0;
    this.#riding = false;
    if (had && notify) {
      this.#lost++;
      try {
        this.#o.onLost?.();
      } catch {
        /* nothing to undo */
      }
    }
  }
}
