/**
 * The identity of a paper exchange's world: which run of the venue a client is talking to.
 *
 * A fresh world (a start without a database, or with a new database file) gets a new random
 * `worldId`; a world restored from its journal (--db) keeps the id, start time and seed it was
 * created with. A client that remembers the id (the bot's ledger) can tell "the same venue after a
 * restart" from "a new world where nothing of mine exists", and start a new ledger epoch only then.
 *
 * Served at `GET {clob_url}/world` (an mmkit extension: the public service has no such route, so a
 * 404 there means "no world identity").
 */
import { randomUUID } from 'node:crypto';

/** Who this world is. */
export interface WorldIdentity {
  /** Random, fixed for the life of the world (a UUID). */
  readonly worldId: string;
  /** When the world was created, unix ms. */
  readonly startedAt: number;
  /** The seed the world was generated with. */
  readonly seed: number;
}

/** A new world's identity: a random id, created now. */
export function newWorldIdentity(seed: number, now: number): WorldIdentity {
  return { worldId: randomUUID(), startedAt: now, seed };
}

/** The wire form of `GET /world`: `{world_id, started_at (ISO 8601), seed}`. */
export function worldRecord(w: WorldIdentity): { world_id: string; started_at: string; seed: number } {
  return { world_id: w.worldId, started_at: new Date(w.startedAt).toISOString(), seed: w.seed };
}
