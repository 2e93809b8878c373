/**
 * Which maker (funder) addresses a signer may trade for with proxy orders (signatureType 1 and 2).
 *
 * On the public service a proxy order is funded by a wallet the signer controls on chain: its
 * Polymarket proxy wallet (POLY_PROXY, signatureType 1) or its Gnosis Safe (POLY_GNOSIS_SAFE,
 * signatureType 2). Both are CREATE2 addresses of a factory on Polygon, derived from the signer
 * alone, so the paper exchange can check them without a chain:
 *
 *   address = keccak256(0xff ++ factory ++ salt ++ initCodeHash)[12:]
 *
 * - proxy wallet: factory 0xaB45c5A4B0c941a2F231C04C3f49182e1A254052, init-code hash
 *   0xd21df8dc65880a8606f09fe0ce3df9b8869287ab0b058be05aa9e8af6330a00b,
 *   salt = keccak256(abi.encodePacked(signer)) (the 20 address bytes);
 * - Safe: factory 0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b, init-code hash
 *   0x2bce2127ff07fb632d16c8347c4ebf501f4841168bed00d9e6ef715ddb6fcecf,
 *   salt = keccak256(abi.encode(signer)) (the address left-padded to 32 bytes).
 *
 * Sources (public): Polymarket's builder-relayer-client (`deriveProxyWallet` / `deriveSafe` and its
 * constants), the same factory addresses in public Python and Rust clients' constants; the Safe
 * derivation reproduces a published pair (signer 0xBBc264c10F54A61607A31B53358a5A87d4B045be ->
 * Safe 0xEFae63145ffb73Ab047e578324bcA9BaABE5E1Ad), pinned in test/security/maker-authorization.
 * Any other funder must be registered to the signer by an operator (POST /admin/funders).
 */
import { AbiCoder, getCreate2Address, keccak256, solidityPacked } from 'ethers';

export const PROXY_WALLET_FACTORY = '0xaB45c5A4B0c941a2F231C04C3f49182e1A254052';
export const PROXY_INIT_CODE_HASH = '0xd21df8dc65880a8606f09fe0ce3df9b8869287ab0b058be05aa9e8af6330a00b';
export const SAFE_FACTORY = '0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b';
export const SAFE_INIT_CODE_HASH = '0x2bce2127ff07fb632d16c8347c4ebf501f4841168bed00d9e6ef715ddb6fcecf';

/** The signer's Polymarket proxy wallet (signatureType 1), lower case. */
export function proxyWalletOf(signer: string): string {
  const salt = keccak256(solidityPacked(['address'], [signer]));
  return getCreate2Address(PROXY_WALLET_FACTORY, salt, PROXY_INIT_CODE_HASH).toLowerCase();
}

/** The signer's Gnosis Safe (signatureType 2), lower case. */
export function safeOf(signer: string): string {
  const salt = keccak256(AbiCoder.defaultAbiCoder().encode(['address'], [signer]));
  return getCreate2Address(SAFE_FACTORY, salt, SAFE_INIT_CODE_HASH).toLowerCase();
}

/** The derived funders of a signer: both are computed once per signer (two keccaks each). */
export class DerivedFunders {
  private readonly cache = new Map<string, { proxy: string; safe: string }>();

  of(signer: string): { proxy: string; safe: string } {
    const key = signer.toLowerCase();
    let d = this.cache.get(key);
    if (d === undefined) {
      if (this.cache.size >= 100_000) this.cache.clear();
      d = { proxy: proxyWalletOf(key), safe: safeOf(key) };
      this.cache.set(key, d);
    }
    return d;
  }
}
