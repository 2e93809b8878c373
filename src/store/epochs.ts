/**
 * The store's scopes in time: ledger epochs (one per venue + world + address traded on; the
 * latest is current) and sessions (one per daemon run). Checks, rows and their mapping.
 */
import { ValidationError } from '../core/errors.ts';
import type { EpochIdentity, LedgerEpoch, LedgerSession } from './store-types.ts';

/** A row of the epochs table. */
export interface EpochRow {
  id: number;
  venue: string;
  world: string | null;
  address: string;
  started_at: number;
}
/** A row of the sessions table. */
export interface SessionRow {
  id: number;
  epoch: number | null;
  started_at: number;
  ended_at: number | null;
  pid: number;
}

export function toEpoch(r: EpochRow): LedgerEpoch {
  return { id: r.id, venue: r.venue, world: r.world, address: r.address, startedAt: r.started_at };
}
export function toSession(r: SessionRow): LedgerSession {
  return { id: r.id, epoch: r.epoch, startedAt: r.started_at, endedAt: r.ended_at, pid: r.pid };
}

/**
 * The identity as stored: the address lower-case (hex addresses differ only by their checksum case).
 * @throws ValidationError on an empty venue, a world neither a non-empty string nor null, or an address not a string.
 */
export function epochIdentity(id: EpochIdentity): EpochIdentity {
  if (typeof id?.venue !== 'string' || id.venue.length === 0)
    throw new ValidationError('openEpoch: venue must be a non-empty string');
  if (id.world !== null && (typeof id.world !== 'string' || id.world.length === 0))
    throw new ValidationError('openEpoch: world must be a non-empty string or null');
  if (typeof id.address !== 'string') throw new ValidationError('openEpoch: address must be a string');
  return { venue: id.venue, world: id.world, address: id.address.toLowerCase() };
}

/** The chain of a venue identity (`<clob url>#<chain id>`), or undefined. */
function chainOf(venue: string): string | undefined {
  return /#(\d+)$/.exec(venue)?.[1];
}

/**
 * True when the epoch is the one of this identity (already normalised by epochIdentity): the same
 * address, and the same paper world (its world id names it wherever it is reached: another port, a
 * proxy, in-process or not), or, on a real venue (no world), the same chain, whatever URL reaches it
 * (the account's holdings are the chain's: trial 15 F4, a tunnel or gateway in front of the venue
 * opened a new epoch); a venue identity without a chain is compared whole.
 */
export function sameEpoch(e: LedgerEpoch, id: EpochIdentity): boolean {
  if (e.address !== id.address || e.world !== id.world) return false;
  if (e.world !== null) return true;
  const a = chainOf(e.venue);
  const b = chainOf(id.venue);
  return a !== undefined && b !== undefined ? a === b : e.venue === id.venue;
}

/** @throws ValidationError unless `t` is a time (unix ms). */
export function checkTime(what: string, t: unknown): asserts t is number {
  if (typeof t !== 'number' || !Number.isSafeInteger(t) || t < 0)
    throw new ValidationError(`${what}: expected unix ms, got ${String(t)}`);
}
