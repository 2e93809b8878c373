/**
 * The paper exchange's dead-man switch: after an address's first heartbeat (`POST /v1/heartbeats`)
 * the address is armed, and silence longer than the timeout cancels all its open orders and disarms
 * it (until its next heartbeat arms it again).
 *
 * Being armed is state that must survive a restart (--db, findings-6 F10): orders replayed from the
 * journal would otherwise rest with no client heartbeating them, and fill. So the exchange journals
 * the transitions (a `deadman` command when an address is armed, and when its switch fires), not
 * each heartbeat: replay rebuilds the armed set exactly, and the journal grows by two commands per
 * arming, not one per heartbeat. A heartbeat's time is not journaled: at restart every armed
 * address's window begins at the restart (`restartAll`), so a client that reconnects and heartbeats
 * within the timeout keeps its orders, and one that does not loses them a timeout after the restart
 * (rather than at the first tick, before any client could have reconnected).
 *
 * Pure: no clock, no I/O; times are passed in.
 */

/** Armed addresses and their last heartbeat times (unix ms). */
export class DeadManSwitch {
  private readonly last = new Map<string, number>();

  /** Whether `address` has heartbeated since it was last disarmed (or ever). */
  isArmed(address: string): boolean {
    return this.last.has(address);
  }

  /** Arm `address` (its window from `at`), or disarm it: the journaled transition. */
  set(address: string, armed: boolean, at: number): void {
    if (armed) this.last.set(address, at);
    else this.last.delete(address);
  }

  /** A heartbeat of an armed address at `at`: its window begins again. No-op when not armed. */
  beat(address: string, at: number): void {
    if (this.last.has(address)) this.last.set(address, at);
  }

  /** The exchange (re)starts at `at`: every armed address's window begins then. */
  restartAll(at: number): void {
    for (const address of this.last.keys()) this.last.set(address, at);
  }

  /** Armed addresses silent for longer than `timeoutMs` at `now`, in arming order. */
  expired(now: number, timeoutMs: number): string[] {
    const out: string[] = [];
    for (const [address, at] of this.last) if (now - at > timeoutMs) out.push(address);
    return out;
  }

  /** The armed addresses, in arming order. */
  armed(): string[] {
    return [...this.last.keys()];
  }
}
