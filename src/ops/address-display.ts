/**
 * How an address is shown to people (logs, /api/status, the status page, `mmkit status`): EIP-55
 * checksummed, the same everywhere. The core keeps addresses lower-cased (src/core/ids.ts) for comparing
 * and storing; only what is printed takes this form.
 */
import { getAddress } from 'ethers';
import { isAddress } from '../core/ids.ts';

/** The address EIP-55 checksummed; anything that is not a 20-byte hex address is returned as is. */
export function displayAddress(address: string): string {
  return isAddress(address) ? getAddress(address.toLowerCase()) : address;
}
