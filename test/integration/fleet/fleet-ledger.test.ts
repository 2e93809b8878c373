/**
 * The fleet ledger on a real Redis (src/fleet/fleet-ledger.ts): members publish their ledgers
 * (at start, debounced on change, every period), a member reads the others' summed without its
 * own, a stopped member's record stays (its positions still exist in the wallet), and a publish
 * while Redis is down reports the error and never rejects.
 */
import { describe, expect, it } from 'vitest';
import { LiveClock } from '../../../src/core/clock.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { type LedgerToken, LedgerPublisher, readOtherLedgers } from '../../../src/fleet/fleet-ledger.ts';
import { connectFleetRedis } from '../../../src/fleet/redis.ts';
import { useTestRedis } from '../../support/redis-suite.ts';

const keys = fleetKeys('0x00000000000000000000000000000000000000e5');
const clock = new LiveClock();
const r = useTestRedis();

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

describe('fleet ledger', () => {
  it('publishes, sums the others without self, keeps a stopped member, survives Redis down', async () => {
    const redis = await connectFleetRedis(r.url);
    const ledgers: Record<string, Record<string, LedgerToken>> = {
      a: { t1: { market: 'm1', size: 5_000_000, unsettled: 1_000_000, fills: 2 } },
      b: {
        t1: { market: 'm1', size: -1_000_000, unsettled: 0, fills: 1 },
        t2: { market: 'm2', size: 3, unsettled: 0, fills: 1 },
      },
    };
    const pub = (m: string, o: { everyMs?: number; onError?: (e: Error) => void } = {}) =>
      new LedgerPublisher({ redis, keys, member: m, clock, collect: () => ledgers[m]!, debounceMs: 20, ...o });
    const a = pub('a', { everyMs: 60_000 });
    const b = pub('b');
    await a.start();
    await b.start();
    const seenByC = await readOtherLedgers(redis, keys, 'c');
    expect(seenByC.members).toEqual(['a', 'b']);
    expect(Object.fromEntries(seenByC.tokens)).toEqual({
      t1: { market: 'm1', size: 4_000_000, unsettled: 1_000_000, fills: 3 },
      t2: { market: 'm2', size: 3, unsettled: 0, fills: 1 },
    });
    const seenByA = await readOtherLedgers(redis, keys, 'a');
    expect(seenByA.members).toEqual(['b']);
    expect(seenByA.tokens.get('t1')?.size).toBe(-1_000_000);

    // a change is published after the debounce (a's period is a minute: only changed() can do it)
    ledgers.a = { t1: { market: 'm1', size: 7_000_000, unsettled: 0, fills: 3 } };
    a.changed();
    a.changed();
    await sleep(200);
    expect((await readOtherLedgers(redis, keys, 'b')).tokens.get('t1')?.size).toBe(7_000_000);
    expect(a.published).toBe(2);

    // a record that is not one (another version) is ignored
    await redis.hset(keys.ledgers, 'junk', '{"member":1}');
    expect((await readOtherLedgers(redis, keys, 'c')).members).toEqual(['a', 'b']);

    // a ledger id (a data directory's) is the record's field; the record names the member
    const x = new LedgerPublisher({ redis, keys, member: 'x-123', ledgerId: 'L1', clock, collect: () => ({}) });
    await x.start();
    expect(await redis.hexists(keys.ledgers, 'L1')).toBe(1);
    expect((await readOtherLedgers(redis, keys, 'c')).members).toEqual(['a', 'b', 'x-123']);
    expect((await readOtherLedgers(redis, keys, 'L1')).members).toEqual(['a', 'b']);
    await x.stop();
    await redis.hdel(keys.ledgers, 'L1');

    // stopped: the record stays
    await a.stop();
    await b.stop();
    expect((await readOtherLedgers(redis, keys, 'c')).members).toEqual(['a', 'b']);

    // Redis down: the publish reports the error and resolves; reading throws
    const errors: Error[] = [];
    const d = pub('d', { everyMs: 60_000, onError: (e) => errors.push(e) });
    await r.pause();
    try {
      await d.start();
      expect(errors).toHaveLength(1);
      await expect(readOtherLedgers(redis, keys, 'd')).rejects.toThrow();
    } finally {
      await r.resume();
    }
    await d.stop();
    redis.disconnect();
  }, 30_000);
});
