/**
 * Fail closed (issue 21): a member that cannot reach the fleet's Redis pulls its quotes and places
 * nothing until Redis is back, since it can no longer know that it still holds its markets, that
 * the fleet was not killed, or that the shared budgets allow a request. The heartbeat lease holder
 * keeps heartbeating meanwhile (./heartbeat-lease.ts). When Redis answers again the member resumes;
 * its market leases decide what it quotes.
 *
 * `FleetGuard` turns the health watch (./redis-health.ts) into a pause of the executor (reason
 * 'fleet') and an `onDown` (the wiring cancels the member's orders), and answers `quotable(market)`
 * = Redis up, the fleet not killed and the market's lease held.
 */
import type { FleetKillRecord } from './kill.ts';

/** What the guard pauses (the Executor implements it). */
export interface FleetPauseTarget {
  pause(reason: string): void;
  resume(reason: string): void;
}

export interface FleetGuardOptions {
  readonly health: { isUp(): boolean; onChange(fn: (up: boolean) => void): () => void };
  readonly kill?: { tripped(): FleetKillRecord | undefined };
  readonly markets?: { holds(market: string): boolean };
  readonly target?: FleetPauseTarget;
  /** Redis went away: pull the quotes (cancel the member's orders). */
  readonly onDown?: () => void;
  /** Redis is back. */
  readonly onUp?: () => void;
  /** The pause reason (default 'fleet'). */
  readonly reason?: string;
}

/** See the module comment. `start()` once (pauses at once if Redis is down), `stop()` at shutdown. */
export class FleetGuard {
  readonly #o: FleetGuardOptions;
  #paused = false;
  #unwatch: (() => void) | undefined;
  #downs = 0;

  constructor(o: FleetGuardOptions) {
    this.#o = o;
  }

  start(): void {
    if (this.#unwatch !== undefined) return;
    this.#unwatch = this.#o.health.onChange((up) => this.#apply(up));
    this.#apply(this.#o.health.isUp());
  }

  stop(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  /** Whether new orders may go out at all (Redis up, the fleet not killed). */
  canPlace(): boolean {
    return this.#o.health.isUp() && this.#o.kill?.tripped() === undefined;
  }

  /** Whether this member may quote `market` now. */
  quotable(market: string): boolean {
    return this.canPlace() && (this.#o.markets?.holds(market) ?? true);
  }

  /** How many times Redis went away since start. */
  get outages(): number {
    return this.#downs;
  }

  #apply(up: boolean): void {
    const reason = this.#o.reason ?? 'fleet';
    if (!up && !this.#paused) {
      this.#paused = true;
      this.#downs++;
      this.#o.target?.pause(reason);
      try {
        this.#o.onDown?.();
      } catch {
        /* the pause holds */
      }
    } else if (up && this.#paused) {
      this.#paused = false;
      this.#o.target?.resume(reason);
      try {
        this.#o.onUp?.();
      } catch {
        /* resumed */
      }
    }
  }
}
