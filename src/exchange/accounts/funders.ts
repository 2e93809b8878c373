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
 *
 * {@link TradingAccounts} holds those registrations next to the derived funders and answers, for
 * the exchange, which accounts an API key's address trades for (`mayTradeFor`, `accountsOf`):
 * that rule is about accounts, not about the exchange's command log, which only journals the
 * registrations (the `funder` command).
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

/**
 * Who trades for whom: each signer's registered funders (POST /admin/funders) and its derived proxy
 * wallet and Safe. Order traffic never links accounts: only an operator's registration does.
 */
export class TradingAccounts {
  /**
   * Signer address -> funder (maker) accounts an operator registered to it (POST /admin/funders).
   * Besides these, a signer trades only for itself and its derived proxy wallet and Safe
   * (see the module comment); order traffic never links accounts.
   */
  private readonly funders = new Map<string, Set<string>>();
  private readonly derived = new DerivedFunders();

  /** Registers `funder` to `signer` (both lower case); whether it was new. */
  register(signer: string, funder: string): boolean {
    let set = this.funders.get(signer);
    if (set === undefined) this.funders.set(signer, (set = new Set()));
    const added = !set.has(funder);
    set.add(funder);
    return added;
  }

  /**
   * Whether `signer` may place an order of `signatureType` funded by `maker`. For POLY_1271 (3),
   * `signer` is the deposit wallet's owner (the key that signed the ERC-7739 envelope) and `maker`
   * the wallet: who owns a deposit wallet is on-chain state the paper exchange cannot read, so only
   * a wallet an operator registered to its owner (POST /admin/funders) qualifies.
   */
  mayTradeFor(signer: string, maker: string, signatureType: number): boolean {
    const s = signer.toLowerCase();
    const m = maker.toLowerCase();
    if (signatureType === 0) return m === s;
    if (signatureType === 3) return this.funders.get(s)?.has(m) ?? false;
    if (signatureType !== 1 && signatureType !== 2) return false;
    const d = this.derived.of(s);
    if (m === (signatureType === 1 ? d.proxy : d.safe)) return true;
    return this.funders.get(s)?.has(m) ?? false;
  }

  /**
   * The accounts an API key's address trades for: itself, its derived proxy wallet and Safe, and
   * the funders registered to it. Never an account that order traffic named.
   */
  accountsOf(address: string): string[] {
    const d = this.derived.of(address);
    const f = this.funders.get(address);
    const out = [address, d.proxy, d.safe];
    if (f !== undefined) for (const a of f) if (!out.includes(a)) out.push(a);
    return out;
  }
}
