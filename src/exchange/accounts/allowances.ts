/**
 * The collateral allowances an account granted to the exchange contracts, as the paper exchange
 * reports them (GET /balance-allowance) and checks them (a BUY spends collateral through the
 * exchange contract of its market). Every account's allowance is unlimited (max uint256) unless an
 * operator set one (POST /admin/allowances): so `mmkit doctor`'s allowance check, and a bot's
 * refused orders, can be tested against a wallet that never approved a contract.
 *
 * Operator state for tests and demos: not journaled (a restart restores unlimited allowances).
 */

/** max uint256: what an `approve(spender, MaxUint256)` leaves, and every account's default here. */
export const UNLIMITED_ALLOWANCE = '115792089237316195423570985008687907853269984665640564039457584007913129639935';

export class Allowances {
  /** account (lower case) -> spender (lower case, or '*' for every spender) -> allowance (raw integer string). */
  readonly #set = new Map<string, Map<string, string>>();

  /**
   * Set an account's allowance for one spender, or for every spender when `spender` is undefined
   * (which replaces the per-spender ones).
   * @throws RangeError when `allowance` is not a non-negative integer string (at most 78 digits)
   */
  set(account: string, spender: string | undefined, allowance: string): void {
    if (!/^\d{1,78}$/.test(allowance)) throw new RangeError('allowance must be a non-negative integer (raw units)');
    const a = account.toLowerCase();
    let m = this.#set.get(a);
    if (m === undefined || spender === undefined) this.#set.set(a, (m = new Map()));
    m.set(spender === undefined ? '*' : spender.toLowerCase(), BigInt(allowance).toString());
  }

  /** The allowance of `account` for `spender` (raw integer string). */
  of(account: string, spender: string): string {
    const m = this.#set.get(account.toLowerCase());
    if (m === undefined) return UNLIMITED_ALLOWANCE;
    return m.get(spender.toLowerCase()) ?? m.get('*') ?? UNLIMITED_ALLOWANCE;
  }

  /** True when `account` allows `spender` nothing. */
  isZero(account: string, spender: string): boolean {
    return this.of(account, spender) === '0';
  }

  /** Back to unlimited allowances for every account. */
  clear(): void {
    this.#set.clear();
  }
}
