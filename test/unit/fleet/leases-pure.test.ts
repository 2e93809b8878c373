/**
 * The pure parts of the fleet's leases and kill switch: key names, lease values, self-fencing,
 * kill records, and the market split (fair share, rendezvous order, plans).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.ts';
import { fleetKeys } from '../../../src/fleet/fleet-keys.ts';
import { parseKillRecord } from '../../../src/fleet/kill.ts';
import { parseLeaseValue, selfFenceUntil } from '../../../src/fleet/lease.ts';
import { fairShare, planShare, preferenceOrder, rendezvousOwner } from '../../../src/fleet/market-share.ts';

const ACCOUNT = '0xAbCdEf0123456789abcdef0123456789ABCDEF01';

describe('fleet keys', () => {
  it('share one hash tag per account (lower-cased) and refuse bad input', () => {
    const k = fleetKeys(ACCOUNT);
    expect(k.prefix).toBe('mmkit:{0xabcdef0123456789abcdef0123456789abcdef01}:');
    for (const key of [k.heartbeatLease, k.members, k.kill, k.killChannel, k.marketLease('0x12ab')])
      expect(key.startsWith(k.prefix)).toBe(true);
    expect(k.fence(k.heartbeatLease)).toBe(`${k.heartbeatLease}:fence`);
    expect(() => fleetKeys('0x123')).toThrow(ValidationError);
    expect(() => k.marketLease('a:b')).toThrow(ValidationError);
    expect(() => k.marketLease('')).toThrow(ValidationError);
  });
});

describe('lease values and self-fencing', () => {
  it('parse <member>:<fence> and nothing else', () => {
    expect(parseLeaseValue('m-1:42')).toEqual({ member: 'm-1', fence: 42 });
    expect(parseLeaseValue('m-1:0')).toBeNull();
    expect(parseLeaseValue('m-1')).toBeNull();
    expect(parseLeaseValue(':3')).toBeNull();
    expect(parseLeaseValue('a:x')).toBeNull();
  });
  it('trusts 0.8 of the ttl from when the renew was sent', () => {
    expect(selfFenceUntil(1000, 2500)).toBe(3000);
    expect(selfFenceUntil(0, 5000)).toBe(4000);
    expect(selfFenceUntil(0, 5000, 0.5)).toBe(2500);
  });
});

describe('kill records', () => {
  it('round-trip, and an unreadable one still means tripped', () => {
    expect(parseKillRecord(JSON.stringify({ reason: 'loss', by: 'a', at: 5 }))).toEqual({
      reason: 'loss',
      by: 'a',
      at: 5,
    });
    for (const bad of ['', 'x', '{}', '{"reason":1,"by":"a","at":1}', 'null'])
      expect(parseKillRecord(bad).reason).toMatch(/unreadable/);
  });
});

describe('the market split', () => {
  it('fair share is ceil(markets / live), 0 without markets', () => {
    expect(fairShare(7, 3)).toBe(3);
    expect(fairShare(6, 3)).toBe(2);
    expect(fairShare(7, 0)).toBe(7);
    expect(fairShare(0, 3)).toBe(0);
  });

  it('members that agree on who is alive, planning alone, cover every market once', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 6 }),
        fc.uniqueArray(fc.stringMatching(/^0x[0-9a-f]{1,8}$/), { minLength: 0, maxLength: 40 }),
        (members, markets) => {
          // each member claims its share from its candidates, in turn (as Redis serialises the claims)
          const held = new Map(members.map((m) => [m, new Set<string>()]));
          const taken = new Set<string>();
          for (let round = 0; round < 3; round++)
            for (const m of members) {
              const mine = held.get(m)!;
              const p = planShare(m, members, markets, mine);
              for (const x of p.release) {
                mine.delete(x);
                taken.delete(x);
              }
              for (const x of p.candidates) {
                if (mine.size >= p.share) break;
                if (taken.has(x)) continue;
                taken.add(x);
                mine.add(x);
              }
            }
          const all = [...held.values()].flatMap((s) => [...s]);
          expect(new Set(all).size).toBe(all.length);
          expect(all.length).toBe(markets.length);
          for (const s of held.values()) expect(s.size).toBeLessThanOrEqual(fairShare(markets.length, members.length));
        },
      ),
    );
  });

  it('prefers the markets a member owns by rendezvous, and a death moves only the dead one’s', () => {
    const members = ['a', 'b', 'c'];
    const markets = Array.from({ length: 30 }, (_, i) => `0x${i.toString(16)}`);
    const owner = new Map(markets.map((m) => [m, rendezvousOwner(m, members)]));
    const order = preferenceOrder('a', members, markets);
    const owned = markets.filter((m) => owner.get(m) === 'a');
    expect(order.slice(0, owned.length).sort()).toEqual(owned.sort());
    const after = new Map(markets.map((m) => [m, rendezvousOwner(m, ['a', 'b'])]));
    for (const m of markets) if (owner.get(m) !== 'c') expect(after.get(m)).toBe(owner.get(m));
  });

  it('a member above its share gives up its least preferred markets; at its share it claims nothing', () => {
    const markets = ['0x1', '0x2', '0x3', '0x4', '0x5', '0x6'];
    const p = planShare('a', ['a', 'b', 'c'], markets, new Set(markets));
    expect(p.share).toBe(2);
    expect(p.release).toHaveLength(4);
    const order = preferenceOrder('a', ['a', 'b', 'c'], markets);
    expect(p.release).toEqual(order.slice(2).reverse());
    const q = planShare('a', ['a', 'b', 'c'], markets, new Set(order.slice(0, 2)));
    expect(q).toEqual({ share: 2, candidates: [], release: [] });
  });
});
