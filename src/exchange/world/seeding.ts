/**
 * Deterministic derivation of the world's randomness from the seed. Every stream of random numbers
 * the world uses (a market's hidden probability walk, a crypto price walk, a generator section) is
 * its own `Rng`, seeded from (seed, key): so one part of the world does not shift when another part
 * draws more numbers, and a restart recomputes the same values from the same keys.
 */
import { keccak256, toUtf8Bytes } from 'ethers';
import { Rng } from '../../core/random.ts';

/** 32-bit hash of a string (FNV-1a, then a murmur3 finaliser for avalanche). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A fresh generator for the stream `key` of world `seed`. */
export function rngFor(seed: number, key: string): Rng {
  return new Rng(hash32(`${seed}|${key}`));
}

/** A uniform number in [0, 1) fixed by (seed, key). */
export function uniformFor(seed: number, key: string): number {
  return rngFor(seed, key).next();
}

/** A lower-case 20-byte address derived from a label (the last 20 bytes of its keccak hash). */
export function addressFor(label: string): string {
  return `0x${keccak256(toUtf8Bytes(label)).slice(-40)}`.toLowerCase();
}

/** Fisher-Yates shuffle of a copy, driven by `rng`. */
export function shuffled<T>(rng: Rng, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    const t = out[i] as T;
    out[i] = out[j] as T;
    out[j] = t;
  }
  return out;
}
