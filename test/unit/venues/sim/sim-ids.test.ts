/**
 * seqOf (src/venues/sim/sim-ids.ts), which reads an id digit by digit, against the plain version:
 * parse the tail, make the id of that number again and compare the strings.
 */
import { describe, expect, it } from 'vitest';
import { DroppedIds, hexId, seqOf } from '../../../../src/venues/sim/sim-ids.ts';

/** The plain version (the simulated venue's before seqOf read digits). */
function plainSeqOf(id: string, seed: number): number | undefined {
  if (id.length !== 66) return undefined;
  const n = Number.parseInt(id.slice(50), 16);
  return Number.isSafeInteger(n) && n > 0 && n < 2 ** 31 && hexId(seed, 1, n) === id ? n : undefined;
}

describe('seqOf', () => {
  it('answers as making the id again and comparing, for ours, other namespaces and seeds, and damaged ids', () => {
    const ids: string[] = ['', '0x', 'x'.repeat(66), `0x${'0'.repeat(64)}`, `0X${hexId(7, 1, 5).slice(2)}`];
    for (const seed of [0, 7, -3, 123456789])
      for (const n of [1, 2, 15, 16, 255, 4096, 65_535, 1_000_003, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 1]) {
        const id = hexId(seed, 1, n);
        ids.push(id, hexId(seed, 2, n), id.toUpperCase(), `0x${id.slice(2).toUpperCase()}`);
        // one digit changed anywhere (hash, high word, low word), or a non-hex one
        for (const at of [2, 9, 10, 33, 49, 50, 57, 58, 65]) {
          const c = id[at] === 'a' ? 'b' : 'a';
          ids.push(id.slice(0, at) + c + id.slice(at + 1), `${id.slice(0, at)}g${id.slice(at + 1)}`);
        }
        ids.push(`${id.slice(0, 58)}0000000g`, `${id.slice(0, 50)}000000000000000${id[65]}`);
      }
    for (const id of ids)
      for (const seed of [0, 7, -3, 123456789]) expect(seqOf(id, seed), `${id} ${seed}`).toBe(plainSeqOf(id, seed));
    expect(seqOf(hexId(7, 1, 42), 7)).toBe(42);
  });

  it('keeps DroppedIds exact: a dropped id is known, others are not', () => {
    const d = new DroppedIds(7);
    d.add(hexId(7, 1, 3));
    d.add(hexId(8, 1, 4)); // not ours: ignored
    expect(d.has(hexId(7, 1, 3))).toBe(true);
    expect(d.has(hexId(7, 1, 4))).toBe(false);
    expect(d.has(hexId(8, 1, 3))).toBe(false);
  });
});
