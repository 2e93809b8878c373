/**
 * The paper exchange's API key store: keys by (address, nonce), the nonce a number (review 49b F5: a
 * key journaled under "007" before the L1 nonce was made canonical is still nonce 7's), and the count
 * of keys per address that the creation cap reads.
 */
import { describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../../src/exchange/accounts/keys.ts';

const A = '0x00000000000000000000000000000000000000aa';

describe('ApiKeyStore', () => {
  it('finds a key by the number of its nonce, and counts the keys an address holds', () => {
    const s = new ApiKeyStore(Buffer.from('server-secret'));
    const legacy = s.create(A, '007', 1)!;
    expect(s.find(A, '7')).toBe(legacy);
    expect(s.find(A.toUpperCase().replace('0X', '0x'), '7')).toBe(legacy);
    expect(s.find(A, '8')).toBeUndefined();
    expect(s.countOf(A)).toBe(1);
    s.create(A, '8', 2);
    expect(s.countOf(A)).toBe(2);
    expect(s.delete(legacy.apiKey)).toBe(true);
    expect(s.countOf(A)).toBe(1);
    expect(s.find(A, '7')).toBeUndefined();
  });
});
