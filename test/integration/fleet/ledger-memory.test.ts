/**
 * The other members' ledgers remembered across a Redis restarted empty (src/fleet/ledger-memory.ts;
 * trial 14 F8), on a real Redis: a member not running when Redis lost everything still counts in
 * the live members' sums, its ledger and its PnL figure (its record is put back from their memory, file included), never over a
 * record published since, and a record an operator removed (HDEL) stays removed. FLUSHALL stands
 * for the empty restart: the keys are what the fleet sees either way.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../../src/core/clock.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { type LedgerToken, LedgerPublisher, readOtherLedgers } from '../../../src/fleet/fleet-ledger.ts';
import { writeMemberDayPnl, writeMemberPnl } from '../../../src/fleet/fleet-loss.ts';
import { LEDGER_MEMORY_FILE, LedgerMemory } from '../../../src/fleet/ledger-memory.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { useTestRedis } from '../../support/redis-suite.ts';

const keys = fleetKeys('0x00000000000000000000000000000000000000e6');
const clock = new LiveClock();
const r = useTestRedis();
const dirs: string[] = [];
const dataDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'mmkit-ledger-memory-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A publisher of ledger `id` (its member named so in lower case) publishing `ledgers[id]` as it is then. */
const publisherOf =
  (redis: Redis, ledgers: Record<string, Record<string, LedgerToken>>) =>
  (id: string): LedgerPublisher =>
    new LedgerPublisher({
      redis,
      keys,
      member: id.toLowerCase(),
      ledgerId: id,
      clock,
      collect: () => ledgers[id]!,
      everyMs: 60_000,
    });

describe('fleet ledger memory', () => {
  it('puts back the records of members not running after Redis lost them, never over a fresher one', async () => {
    const redis = await connectFleetRedis(r.url);
    const ledgers: Record<string, Record<string, LedgerToken>> = {
      La: { t1: { market: 'm1', size: 10_000_000, unsettled: 0, fills: 1 } },
      Lb: { t1: { market: 'm1', size: 20_000_000, unsettled: 0, fills: 2 } },
      Lc: { t2: { market: 'm2', size: 50_000_000, unsettled: 0, fills: 3 } },
    };
    const pub = publisherOf(redis, ledgers);
    const a = pub('La');
    const b = pub('Lb');
    const c = pub('Lc');
    await a.start();
    await b.start();
    await c.start();
    // the PnL figures the fleet's loss limit sums (c lost 40)
    await writeMemberPnl(redis, keys, 'La', 1_000_000);
    await writeMemberPnl(redis, keys, 'Lb', 2_000_000);
    await writeMemberPnl(redis, keys, 'Lc', -40_000_000);
    // and the PnL of the day the daily loss limit sums (c lost 7 today)
    await writeMemberDayPnl(redis, keys, 'Lc', '2026-11-29', -7_000_000);
    const dirA = dataDir();
    const memA = new LedgerMemory(dirA);
    const first = await readOtherLedgers(redis, keys, 'La', memA);
    expect(first.restored).toBe(0);
    expect(first.members).toEqual(['lb', 'lc']);
    expect(memA.remembered.generation).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(memA.remembered.ledgers).sort()).toEqual(['Lb', 'Lc']);
    expect(memA.remembered.pnl).toEqual({ Lb: '2000000', Lc: '-40000000' });
    expect(memA.remembered.dayPnl).toEqual({ Lc: '2026-11-29:-7000000' });

    // c stops (kill -9: its record stays), then Redis restarts empty; a and b run on
    await c.stop();
    await redis.flushall();
    await b.publish();
    await writeMemberPnl(redis, keys, 'Lb', 3_000_000); // b's loss watch, within a second
    // without the memory the audit's sum misses c's 50 shares: it would book them as a's own
    expect((await readOtherLedgers(redis, keys, 'La')).tokens.get('t2')).toBeUndefined();
    // a restarted too (a new process): its memory is its data dir's file
    const memA2 = new LedgerMemory(dirA);
    expect(memA2.remembered.generation).toBe(memA.remembered.generation);
    const after = await readOtherLedgers(redis, keys, 'La', memA2);
    expect(after.restored).toBe(1); // c's (b's own fresh record is not replaced)
    expect(after.members).toEqual(['lb', 'lc']);
    expect(after.tokens.get('t2')?.size).toBe(50_000_000);
    expect(after.tokens.get('t1')?.size).toBe(20_000_000);
    // c's loss counts in the loss limit's sum again; b's figure written since the loss is kept
    expect(await writeMemberPnl(redis, keys, 'La', 1_000_000)).toBe(1_000_000 + 3_000_000 - 40_000_000);
    // and its loss of the day in the daily limit's sum
    expect(await writeMemberDayPnl(redis, keys, 'La', '2026-11-29', -1_000_000)).toBe(-8_000_000);
    // the record is back for every member (b's audit, `mmkit fleet status`), and a new generation is set
    expect((await readOtherLedgers(redis, keys, 'Lb')).tokens.get('t2')?.size).toBe(50_000_000);
    const gen2 = await redis.get(keys.generation);
    expect(gen2).not.toBe(memA.remembered.generation);
    expect(memA2.remembered.generation).toBe(gen2);
    // read again in the same generation: nothing put back
    expect((await readOtherLedgers(redis, keys, 'La', memA2)).restored).toBe(0);
    // the file holds no record of a's own ledger (it publishes its own)
    expect(Object.keys(JSON.parse(readFileSync(join(dirA, LEDGER_MEMORY_FILE), 'utf8')).ledgers).sort()).toEqual([
      'Lb',
      'Lc',
    ]);

    // Redis lost again, and c ran again (published afresh, with a changed ledger) before a read:
    // its fresh record is kept, the remembered one is not put over it
    await redis.flushall();
    ledgers.Lc = { t2: { market: 'm2', size: 30_000_000, unsettled: 0, fills: 4 } };
    const c2 = pub('Lc');
    await c2.start();
    const fresh = await readOtherLedgers(redis, keys, 'La', memA2);
    expect(fresh.restored).toBe(1); // b's (not published since the loss)
    expect(fresh.tokens.get('t2')?.size).toBe(30_000_000);
    await c2.stop();

    // an operator removes c's record (HDEL, README "Scaling out"): not put back, then forgotten
    await redis.hdel(keys.ledgers, 'Lc');
    const removed = await readOtherLedgers(redis, keys, 'La', memA2);
    expect(removed.restored).toBe(0);
    expect(removed.tokens.get('t2')).toBeUndefined();
    expect(Object.keys(memA2.remembered.ledgers)).toEqual(['Lb']);
    await redis.flushall();
    const later = await readOtherLedgers(redis, keys, 'La', memA2);
    expect(later.restored).toBe(1); // b's only
    expect(later.tokens.get('t2')).toBeUndefined();

    // a data dir that traded another account's fleet: what it remembers of that fleet is not put in this one
    const other = fleetKeys('0x00000000000000000000000000000000000000e7');
    await redis.hset(other.ledgers, 'Lq', JSON.stringify({ member: 'q', at: 1, tokens: {} }));
    expect((await readOtherLedgers(redis, other, 'Lz', memA2)).members).toEqual(['q']);
    expect(memA2.remembered.fleet).toBe(other.prefix);
    await redis.flushall();
    await readOtherLedgers(redis, keys, 'La', memA2); // remembers this fleet, puts nothing of e7's back
    expect(await redis.hlen(keys.ledgers)).toBe(0);
    // a member with nothing remembered (a fresh data dir) puts nothing back
    await redis.flushall();
    const fresher = await readOtherLedgers(redis, keys, 'Lx', new LedgerMemory(dataDir()));
    expect(fresher.restored).toBe(0);
    expect(fresher.members).toEqual([]);

    await a.stop();
    await b.stop();
    redis.disconnect();
  }, 30_000);

  it("tells when the fleet's Redis lost its records since they were read (a takeover's previous holder is then unknown: trial 22 F1)", async () => {
    const redis = await connectFleetRedis(r.url);
    await redis.flushall();
    const dir = dataDir();
    const mem = new LedgerMemory(dir);
    // nothing remembered (a fresh data dir): nothing to compare, not lost
    expect(await mem.lostRecords(redis, keys)).toBe(false);
    await readOtherLedgers(redis, keys, 'La', mem); // sets and remembers the generation
    expect(await mem.lostRecords(redis, keys)).toBe(false);
    // Redis restarted empty: no generation at all
    await redis.flushall();
    expect(await mem.lostRecords(redis, keys)).toBe(true);
    // another member read first and set a new generation: still lost for this one
    await readOtherLedgers(redis, keys, 'Lb', new LedgerMemory(dataDir()));
    expect(await mem.lostRecords(redis, keys)).toBe(true);
    // this member's own read after the loss remembers the new generation, and still knows it came from a loss
    await readOtherLedgers(redis, keys, 'La', mem);
    expect(mem.remembered.generation).toBe(await redis.get(keys.generation));
    expect(await mem.lostRecords(redis, keys)).toBe(true);
    // a restart of the member on the same data dir remembers the new generation: nothing lost since
    expect(await new LedgerMemory(dir).lostRecords(redis, keys)).toBe(false);
    // the memory of another account's fleet says nothing of this one
    const other = fleetKeys('0x00000000000000000000000000000000000000e8');
    expect(await new LedgerMemory(dir).lostRecords(redis, other)).toBe(false);
    redis.disconnect();
  }, 30_000);

  it('marks the records it put back until their own member publishes again: the audits book nothing meanwhile (trial 22 F3)', async () => {
    const redis = await connectFleetRedis(r.url);
    await redis.flushall();
    const tokens: Record<string, Record<string, LedgerToken>> = {
      La: { t1: { market: 'm1', size: 3_000_000, unsettled: 0, fills: 1 } },
      Lc: { t2: { market: 'm2', size: 15_000_000, unsettled: 0, fills: 4 } },
    };
    const pub = publisherOf(redis, tokens);
    const a = pub('La');
    await a.start();
    await pub('Lc').publish();
    const memA = new LedgerMemory(dataDir());
    const first = await readOtherLedgers(redis, keys, 'La', memA); // remembers c's record
    expect(first.unconfirmed).toBeUndefined();
    // c sold its 15 and died; Redis lost everything; a (alive) publishes, then reads: c's record is back, unconfirmed
    await redis.flushall();
    await a.publish();
    const back = await readOtherLedgers(redis, keys, 'La', memA);
    expect(back.restored).toBe(1);
    expect(back.tokens.get('t2')?.size).toBe(15_000_000); // still counted (its holdings are not booked again)
    expect(back.unconfirmed).toEqual(['lc']);
    // the mark is in the record: another member's read sees it too, with a memory or without one
    const other = await readOtherLedgers(redis, keys, 'Lb', new LedgerMemory(dataDir()));
    expect(other.unconfirmed).toEqual(['lc']);
    expect((await readOtherLedgers(redis, keys, 'Lb')).unconfirmed).toEqual(['lc']);
    // a's memory now holds the marked record; a second loss puts it back marked once, and still counts it
    await redis.flushall();
    await a.publish();
    const twice = await readOtherLedgers(redis, keys, 'La', memA);
    expect(twice.restored).toBe(1);
    expect(twice.unconfirmed).toEqual(['lc']);
    expect(twice.tokens.get('t2')?.size).toBe(15_000_000);
    expect((await redis.hget(keys.ledgers, 'Lc'))?.startsWith('{"restored":true,"member"')).toBe(true);
    // c comes back and publishes its own figures: confirmed, for every reader
    tokens['Lc'] = { t2: { market: 'm2', size: 0, unsettled: 0, fills: 5 } };
    await pub('Lc').publish();
    const now = await readOtherLedgers(redis, keys, 'La', memA);
    expect(now.unconfirmed).toBeUndefined();
    expect(now.tokens.get('t2')?.size).toBe(0);
    expect(await redis.hget(keys.ledgers, 'Lc')).not.toContain('restored');
    await a.stop();
    redis.disconnect();
  }, 30_000);
});
