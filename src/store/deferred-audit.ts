/**
 * Deferred audit writes of a 'batched' store (StoreOptions.commit): entries are kept in order,
 * each with its time and its JSON made at the call, and inserted together before anything reads the
 * audit table, at a flush or a close, and whenever BATCHED_PENDING_AUDIT are waiting. The rows in
 * the end are those of one INSERT per call: the same times, kinds and texts, and the same sequence
 * numbers (this store is the table's only writer and keeps the calls' order).
 *
 * Why: a backtest audits every executor cycle, one INSERT between two market events each time,
 * when SQLite's pages and code are no longer in the CPU's caches; inserted one after another, the
 * same rows cost a fraction of that.
 */
import type { Statements } from './statements.ts';

/** How many audit entries a 'batched' store keeps deferred at most (memory stays bounded). */
export const BATCHED_PENDING_AUDIT = 4096;

/** The deferred audit entries of one 'batched' store. */
export class DeferredAudit {
  readonly #times: number[] = [];
  readonly #kinds: string[] = [];
  readonly #jsons: string[] = [];

  constructor(private readonly st: Statements) {}

  /** Entries waiting. */
  get size(): number {
    return this.#times.length;
  }

  /** Keeps one entry (its time and JSON as of now); writes them all at the bound. */
  add(time: number, kind: string, json: string): void {
    this.#times.push(time);
    this.#kinds.push(kind);
    this.#jsons.push(json);
    if (this.#times.length >= BATCHED_PENDING_AUDIT) this.write();
  }

  /** Inserts the entries waiting, in order, inside the store's open transaction. */
  write(): void {
    const n = this.#times.length;
    if (n === 0) return;
    const insert = this.st.insertAudit;
    // an entry that fails to insert stays with the ones after it, for the next write
    let i = 0;
    try {
      for (; i < n; i++) insert.run(this.#times[i]!, this.#kinds[i]!, this.#jsons[i]!);
    } finally {
      this.#times.splice(0, i);
      this.#kinds.splice(0, i);
      this.#jsons.splice(0, i);
    }
  }
}
