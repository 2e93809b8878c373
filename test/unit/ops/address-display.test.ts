import fc from 'fast-check';
import { getAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import { displayAddress } from '../../../src/ops/address-display.ts';

describe('displayAddress (EIP-55 without ethers)', () => {
  it("checksums every address as ethers' getAddress does, whatever case it is given in", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.boolean(), (bytes, upper) => {
        const hex = Buffer.from(bytes).toString('hex');
        const given = `0x${upper ? hex.toUpperCase() : hex}`;
        expect(displayAddress(given)).toBe(getAddress(`0x${hex}`));
      }),
      { numRuns: 500 },
    );
  });

  it('gives the vectors of EIP-55 itself', () => {
    for (const a of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ])
      expect(displayAddress(a.toLowerCase())).toBe(a);
  });

  it('returns what is not an address as it is', () => {
    for (const s of ['', '0x', '0x123', 'not an address', `0x${'g'.repeat(40)}`]) expect(displayAddress(s)).toBe(s);
  });
});
