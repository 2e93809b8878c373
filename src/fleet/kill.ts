/**
 * The fleet kill switch (issue 21; research §3.5): a trip anywhere (a member's risk trip, or
 * `mmkit kill --fleet`) pulls every member's quotes within 2 s, and every member then exits with
 * the risk-stop code (4).
 *
 * A trip = `SET <prefix>kill <record>` (no TTL: it stays tripped, and a member started later sees it
 * at start and refuses to quote) + `PUBLISH <prefix>kill:ch <record>`. Members subscribe (ioredis
 * resubscribes after a reconnect) AND read the key every 0.5 s, so a missed message costs at most
 * half a second. `clearFleetKill` re-arms the fleet (an operator's decision, after the cause is
 * fixed). A value that does not parse still counts as tripped (fail closed).
 */
import type { Redis } from 'ioredis';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { ValidationError } from '../core/errors.ts';
import type { FleetKeys } from './fleet-keys.ts';

/** Why, by whom and when the fleet was killed. */
export interface FleetKillRecord {
  readonly reason: string;
  /** The member (or `cli:<host>` for `mmkit kill --fleet`) that tripped it. */
  readonly by: string;
  /** Unix ms (the tripping process's clock). */
  readonly at: number;
}

/** The record a stored or published value holds; an unreadable one still means "tripped". */
export function parseKillRecord(raw: string): FleetKillRecord {
  try {
    const v = JSON.parse(raw) as Partial<FleetKillRecord>;
    if (typeof v.reason === 'string' && typeof v.by === 'string' && typeof v.at === 'number' && Number.isFinite(v.at))
      return { reason: v.reason, by: v.by, at: v.at };
  } catch {
    /* below */
  }
  return { reason: 'fleet kill switch tripped (unreadable record)', by: 'unknown', at: 0 };
}

/**
 * Trips the fleet kill switch: the persistent key first (what the pollers read), then the message.
 * A second trip keeps the first record (SET NX) and publishes again. Returns the record in force.
 * @throws ValidationError on an empty reason or `by` (nothing written); the client's error when Redis fails
 */
export async function tripFleetKill(redis: Redis, keys: FleetKeys, rec: FleetKillRecord): Promise<FleetKillRecord> {
  if (rec.reason.trim() === '' || rec.by.trim() === '')
    throw new ValidationError('fleet kill: reason and by must not be empty');
  const raw = JSON.stringify({ reason: rec.reason.slice(0, 500), by: rec.by.slice(0, 100), at: rec.at });
  const set = await redis.set(keys.kill, raw, 'NX');
  const inForce = set === 'OK' ? raw : ((await redis.get(keys.kill)) ?? raw);
  await redis.publish(keys.killChannel, inForce);
  return parseKillRecord(inForce);
}

/** The trip in force, or null when the fleet is armed. */
export async function readFleetKill(redis: Redis, keys: FleetKeys): Promise<FleetKillRecord | null> {
  const raw = await redis.get(keys.kill);
  return raw === null ? null : parseKillRecord(raw);
}

/** Re-arms the fleet (deletes the trip record). Returns whether one was in force. */
export async function clearFleetKill(redis: Redis, keys: FleetKeys): Promise<boolean> {
  return (await redis.del(keys.kill)) === 1;
}

export interface FleetKillWatchOptions {
  /** The member's fail-fast connection (./redis.ts); the watch opens one duplicate for pub/sub. */
  readonly redis: Redis;
  readonly keys: FleetKeys;
  readonly clock: Clock;
  /** Called once, on the first trip seen (message or poll). */
  readonly onTrip: (rec: FleetKillRecord) => void;
  /** Poll period, ms (default 500). */
  readonly pollMs?: number;
}

/** Watches the fleet kill switch (see the module comment). `start()` once, `stop()` at shutdown. */
export class FleetKillWatch {
  readonly #o: FleetKillWatchOptions;
  #sub: Redis | undefined;
  #timer: TimerHandle | undefined;
  #tripped: FleetKillRecord | undefined;
  #polling = false;

  constructor(o: FleetKillWatchOptions) {
    this.#o = o;
    if (!((o.pollMs ?? 500) > 0)) throw new RangeError('fleet kill watch: pollMs must be positive');
  }

  /** The trip seen, if any. */
  tripped(): FleetKillRecord | undefined {
    return this.#tripped;
  }

  /**
   * Subscribes, polls once (a trip already in force fires `onTrip` before this resolves), then polls
   * every pollMs. A subscription that cannot be made now is retried by the client; polling covers it.
   */
  async start(): Promise<void> {
    if (this.#timer !== undefined) return;
    this.#timer = this.#o.clock.setInterval(() => void this.#poll(), this.#o.pollMs ?? 500);
    // its own connection (a subscribed client runs no other command); it queues the SUBSCRIBE until
    // connected and resubscribes after every reconnect, while the poll does not depend on it
    const sub = this.#o.redis.duplicate({
      lazyConnect: true,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
    });
    this.#sub = sub;
    sub.on('error', () => undefined);
    sub.on('message', (ch: string, msg: string) => {
      if (ch === this.#o.keys.killChannel) this.#fire(parseKillRecord(msg));
    });
    sub.connect().catch(() => undefined);
    let timer: TimerHandle | undefined;
    await Promise.race([
      sub.subscribe(this.#o.keys.killChannel).catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = this.#o.clock.setTimeout(resolve, 1000);
      }),
    ]);
    if (timer !== undefined) this.#o.clock.clearTimeout(timer);
    await this.#poll();
  }

  stop(): void {
    if (this.#timer !== undefined) this.#o.clock.clearInterval(this.#timer);
    this.#timer = undefined;
    this.#sub?.disconnect();
    this.#sub = undefined;
  }

  async #poll(): Promise<void> {
    if (this.#polling || this.#tripped !== undefined) return;
    this.#polling = true;
    try {
      const rec = await readFleetKill(this.#o.redis, this.#o.keys);
      if (rec !== null) this.#fire(rec);
    } catch {
      /* Redis unreachable: the fail-closed guard pulls the quotes */
    } finally {
      this.#polling = false;
    }
  }

  #fire(rec: FleetKillRecord): void {
    if (this.#tripped !== undefined) return;
    this.#tripped = rec;
    this.#o.onTrip(rec);
  }
}
