/**
 * The other members' ledgers, remembered across a Redis restarted empty (trial 14 F8).
 *
 * A member's audit compares the venue's holdings with the sum of the fleet's ledgers
 * (./fleet-ledger.ts). The ledger records live in Redis; a Redis restarted empty (no persistence,
 * or a failover to an empty replica) loses them. The live members publish theirs again within a
 * period, but a member not running then has nobody to publish its record: a live member's audit
 * found the venue holding more than the ledgers it read and booked the difference (the down
 * member's holdings) as its own, so the stores held those shares twice once the down member ran
 * again.
 *
 * So each member keeps the other ledgers' records (and their PnL figures and PnL figures of the UTC
 * day, which the fleet's loss limits sum: ./fleet-loss.ts) as it last read them, with the fleet's generation, in `<dataDir>/fleet-ledgers.json` (its own file: it survives the member's restart
 * too). The generation is a random id the first reader sets in Redis (`<prefix>generation`, no
 * TTL): a Redis restarted empty has none, or the new one another member set after the loss. A read
 * that finds another generation than the one remembered puts the remembered records back (HSETNX:
 * a record a member published since, its own, is never replaced) before it sums, in one script. A
 * record an operator removed (HDEL, README "Scaling out") is not put back: the generation is the
 * same, and the next read forgets it.
 *
 * A record put back is the down member's as this member last read it: what that member did after
 * (a read every audit) is not in it (trial 22 F3: a live member's audit booked the difference as an
 * external trade, which stayed in its PnL after the down member came back). So a record is put
 * back marked (`"restored":true` first in its JSON), until its own member publishes it again (of
 * any mmkit version: the publish replaces the whole record); readers see the mark
 * (./fleet-ledger.ts `unconfirmed`), and while any record is so, the audits book no difference
 * (src/engine/position-audit.ts).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type { FleetKeys } from './fleet-keys.ts';
import { Script } from './lua-script.ts';

/** The file of a data directory that remembers the fleet's ledgers. */
export const LEDGER_MEMORY_FILE = 'fleet-ledgers.json';

/** What a member remembers: the fleet's generation, the other ledgers' records (raw JSON) and PnL figures. */
export interface RememberedLedgers {
  /** The fleet's key prefix (its account): what is remembered of another fleet is not put back in this one. */
  readonly fleet?: string;
  readonly generation: string | undefined;
  /** ledger id -> the record as published (./fleet-ledger.ts PublishedLedger, JSON). */
  readonly ledgers: Readonly<Record<string, string>>;
  /** ledger id -> the last PnL the loss limit sums (./fleet-loss.ts, µ as written). */
  readonly pnl: Readonly<Record<string, string>>;
  /** ledger id -> the last "date:PnL of that UTC day" the daily loss limit sums (absent in an older file: none). */
  readonly dayPnl?: Readonly<Record<string, string>>;
}

const NOTHING: RememberedLedgers = { generation: undefined, ledgers: {}, pnl: {} };

/**
 * KEYS[1] the generation, KEYS[2] the ledgers HASH, KEYS[3] the PnL HASH, KEYS[4] the day PnL HASH;
 * ARGV[1] the generation remembered ('' none), ARGV[2] a new generation (set when none exists),
 * ARGV[3] how many ledger pairs follow, ARGV[4] how many PnL pairs follow them, then ledger id,
 * record pairs, then ledger id, PnL pairs, then ledger id, day PnL pairs remembered. Puts the
 * remembered ones back (HSETNX) when a generation was remembered and Redis has another (or none);
 * returns { generation, how many records were put back, the ledgers, the PnL, the day PnL (HGETALLs) }.
 * A record is put back with `"restored":true` first (once: a remembered record may carry it already).
 */
const READ_LUA = `
local gen = redis.call('GET', KEYS[1])
if not gen then
  redis.call('SET', KEYS[1], ARGV[2])
  gen = ARGV[2]
end
local restored = 0
if ARGV[1] ~= '' and ARGV[1] ~= gen then
  local last = 4 + 2 * tonumber(ARGV[3])
  for i = 5, last, 2 do
    local rec = ARGV[i + 1]
    if string.sub(rec, 1, 17) ~= '{"restored":true,' then rec = '{"restored":true,' .. string.sub(rec, 2) end
    restored = restored + redis.call('HSETNX', KEYS[2], ARGV[i], rec)
  end
  local lastPnl = last + 2 * tonumber(ARGV[4])
  for i = last + 1, lastPnl, 2 do
    redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[i + 1])
  end
  for i = lastPnl + 1, #ARGV, 2 do
    redis.call('HSETNX', KEYS[4], ARGV[i], ARGV[i + 1])
  end
end
return { gen, restored, redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3]), redis.call('HGETALL', KEYS[4]) }
`;
const READ = new Script(READ_LUA);

/** The fleet's ledger records read with the memory: the HASH, and how many records were put back. */
export interface LedgersRead {
  readonly records: Readonly<Record<string, string>>;
  /** Remembered records put back (a Redis restarted empty had lost them). */
  readonly restored: number;
}

/**
 * A member's memory of the fleet's ledgers (see the module comment), in `dir` (its data directory).
 * An unreadable file is nothing remembered (the next read writes it afresh).
 */
export class LedgerMemory {
  readonly #file: string;
  #mem: RememberedLedgers;
  #written: string;
  /** A generation this member's read found in place of the one it remembered (Redis lost its records into it). */
  #lostInto: string | undefined;

  constructor(dir: string) {
    this.#file = join(dir, LEDGER_MEMORY_FILE);
    let text = '';
    try {
      text = readFileSync(this.#file, 'utf8');
    } catch {
      /* none yet */
    }
    this.#mem = parseMemory(text);
    this.#written = text;
  }

  /** What is remembered now. */
  get remembered(): RememberedLedgers {
    return this.#mem;
  }

  /**
   * Reads the fleet's ledger records, putting back the remembered ones when Redis lost them, and
   * remembers what it read (without `self`, this member's own ledger id: it publishes its own).
   * @throws what Redis throws (nothing remembered then)
   */
  async read(redis: Redis, keys: FleetKeys, self: string): Promise<LedgersRead> {
    // (a data dir that traded another account's fleet before: nothing of it is put back here)
    const mem = this.#mem.fleet === keys.prefix ? this.#mem : NOTHING;
    const ledgers = Object.entries(mem.ledgers).filter(([id]) => id !== self);
    const pnl = Object.entries(mem.pnl).filter(([id]) => id !== self);
    const args: string[] = [mem.generation ?? '', randomUUID(), String(ledgers.length), String(pnl.length)];
    for (const [id, rec] of ledgers) args.push(id, rec);
    for (const [id, v] of pnl) args.push(id, v);
    for (const [id, v] of Object.entries(mem.dayPnl ?? {})) if (id !== self) args.push(id, v);
    const [gen, restored, flat, flatPnl, flatDay] = (await READ.run(
      redis,
      [keys.generation, keys.ledgers, keys.pnl, keys.dayPnl],
      args,
    )) as [string, number, string[], string[], string[]];
    const records = pairs(flat);
    if (mem.generation !== undefined && mem.generation !== gen) this.#lostInto = gen;
    this.#remember({
      fleet: keys.prefix,
      generation: gen,
      ledgers: without(records, self),
      pnl: without(pairs(flatPnl), self),
      dayPnl: without(pairs(flatDay), self),
    });
    return { records, restored };
  }

  /**
   * Whether the fleet's Redis lost its records (restarted empty, an empty replica) since this member,
   * or its data directory, read them before: the generation in Redis is none or another than the one
   * remembered, or the one a read of this process found in place of the remembered one (trial 22 F1:
   * a market's last holder is gone with the rest, so whatever rests on a market taken then may be a
   * member's that died). False when nothing was remembered (a new data dir knows nothing to compare).
   * @throws what Redis throws
   */
  async lostRecords(redis: Pick<Redis, 'get'>, keys: FleetKeys): Promise<boolean> {
    const mem = this.#mem.fleet === keys.prefix ? this.#mem : NOTHING;
    const gen = await redis.get(keys.generation);
    if (gen !== null && gen === this.#lostInto) return true;
    return mem.generation !== undefined && gen !== mem.generation;
  }

  #remember(m: RememberedLedgers): void {
    this.#mem = m;
    const text = `${JSON.stringify(m)}\n`;
    if (text === this.#written) return;
    // written whole or not at all (a crash mid-write leaves the previous file)
    const tmp = `${this.#file}.tmp`;
    try {
      writeFileSync(tmp, text, { mode: 0o600 });
      renameSync(tmp, this.#file);
      this.#written = text;
    } catch {
      /* a read-only data dir: remembered in memory only (the next read tries again) */
    }
  }
}

/** A HGETALL's flat answer as a record. */
function pairs(flat: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return out;
}

function without(r: Readonly<Record<string, string>>, id: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r)) if (k !== id) out[k] = v;
  return out;
}

/** The memory file's content; nothing remembered when it is not one. */
export function parseMemory(text: string): RememberedLedgers {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return NOTHING;
  }
  if (typeof v !== 'object' || v === null) return NOTHING;
  const r = v as Record<string, unknown>;
  if (typeof r.generation !== 'string' || typeof r.ledgers !== 'object' || r.ledgers === null) return NOTHING;
  return {
    ...(typeof r.fleet === 'string' ? { fleet: r.fleet } : {}),
    generation: r.generation,
    ledgers: strings(r.ledgers),
    pnl: strings(r.pnl),
    ...(typeof r.dayPnl === 'object' && r.dayPnl !== null ? { dayPnl: strings(r.dayPnl) } : {}),
  };
}

function strings(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof v !== 'object' || v === null) return out;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (typeof x === 'string') out[k] = x;
  return out;
}
