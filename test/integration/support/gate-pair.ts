/**
 * The driver of the fleet's differential gate tests (fleet/signer-gate, fleet/window-gate): each
 * random operation goes to a local gate (side L) and to its Redis twin (side R) alike, and each side
 * records, by the request's number, the tickets it granted and the requests it refused, for the
 * test to compare after every step.
 */

/** What one gate gave: tickets and refusals by request number (and the abort of each request). */
export interface GateSide<T> {
  tickets: Map<number, T>;
  aborts: Map<number, AbortController>;
  failed: Set<number>;
}

function side<T>(): GateSide<T> {
  return { tickets: new Map(), aborts: new Map(), failed: new Set() };
}

export class GatePair<G, T> {
  readonly L: GateSide<T> = side();
  readonly R: GateSide<T> = side();
  #id = 0;
  readonly #released = new Set<number>();

  constructor(
    readonly local: G,
    readonly shared: G,
  ) {}

  /** The next request, made by `acquire` to each gate (L's first): its grant or refusal recorded on each side. */
  acquire(acquire: (gate: G, side: GateSide<T>, k: number) => Promise<T>): void {
    const k = ++this.#id;
    for (const [s, g] of [
      [this.L, this.local],
      [this.R, this.shared],
    ] as const)
      acquire(g, s, k).then(
        (t) => s.tickets.set(k, t),
        () => s.failed.add(k),
      );
  }

  /**
   * Releases (`release`) on both sides the `pick`-th (modulo) of L's tickets not released yet; none
   * when there is none. R's is skipped when R did not grant it (the step's comparison then fails).
   */
  release(pick: number, release: (t: T) => void): void {
    const open = [...this.L.tickets.keys()].filter((k) => !this.#released.has(k));
    if (open.length === 0) return;
    const k = open[pick % open.length]!;
    this.#released.add(k);
    release(this.L.tickets.get(k)!);
    const r = this.R.tickets.get(k);
    if (r !== undefined) release(r);
  }

  /** Aborts on both sides the `pick`-th (modulo) of L's requests still waiting; none when there is none. */
  abort(pick: number): void {
    const waiting = [...this.L.aborts.keys()].filter((k) => !this.L.tickets.has(k) && !this.L.failed.has(k));
    if (waiting.length === 0) return;
    const k = waiting[pick % waiting.length]!;
    this.L.aborts.get(k)!.abort();
    this.R.aborts.get(k)!.abort();
  }
}
