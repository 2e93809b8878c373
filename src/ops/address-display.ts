/**
 * How an address is shown to people (logs, /api/status, the status page, `mmkit status`): EIP-55
 * checksummed, the same everywhere. The core keeps addresses lower-cased (src/core/ids.ts) for comparing
 * and storing; only what is printed takes this form.
 *
 * EIP-55 by hand on the `keccak` package, loaded at the first call: importing ethers for it put ethers
 * on the path of every CLI command's registration (`mmkit --help` paid ~100 ms). A unit test holds it
 * to ethers' `getAddress`.
 */
import { createRequire } from 'node:module';
import type createKeccakHash from 'keccak';
import { isAddress } from '../core/ids.ts';

let keccak: typeof createKeccakHash | undefined;

/** The address EIP-55 checksummed; anything that is not a 20-byte hex address is returned as is. */
export function displayAddress(address: string): string {
  if (!isAddress(address)) return address;
  const hex = address.slice(2).toLowerCase();
  keccak ??= createRequire(import.meta.url)('keccak') as typeof createKeccakHash;
  const hash = keccak('keccak256').update(hex).digest();
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = hex[i]!;
    // the i-th nibble of the hash: 8 or more upper-cases a letter
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 0x0f;
    out += nibble >= 8 ? c.toUpperCase() : c;
  }
  return out;
}
