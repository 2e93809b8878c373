/**
 * The balance and allowance checks (GET /balance-allowance?asset_type=COLLATERAL): the collateral
 * the account holds, and what it allowed each exchange contract to spend. Without an allowance to
 * a market's exchange contract, every BUY there is refused ("not enough balance / allowance"): the
 * standard and the neg-risk exchange each need one.
 */
import { fail, pass, warn, type Check } from './check.ts';
import { collateralName, type ExchangeContracts } from './contracts.ts';

/** Allowances at or above 2^128 (an approve(max) minus what was spent) read as unlimited. */
const UNLIMITED_ALLOWANCE_THRESHOLD = 2n ** 128n;

/** The venue's answer, as the API client parses it. */
export interface BalanceAllowanceFacts {
  /** Collateral, micro-units. */
  readonly balance: number;
  readonly allowance?: string | undefined;
  readonly allowances?: Readonly<Record<string, string>> | undefined;
  /** Whose they are when not the signer's ("the funder 0x…"): said in the details. */
  readonly account?: string | undefined;
}

/** A raw 6-decimal amount for people: "unlimited" for an approve(max), else a decimal. */
export function formatAllowance(raw: string): string {
  const v = BigInt(raw);
  if (v >= UNLIMITED_ALLOWANCE_THRESHOLD) return 'unlimited';
  const whole = v / 1_000_000n;
  const frac = (v % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return frac === '' ? whole.toString() : `${whole}.${frac}`;
}

/** One check per exchange contract (id `allowance.exchange`, `allowance.negRiskExchange`) and the balance (`balance`). */
export function allowanceChecks(b: BalanceAllowanceFacts, contracts: ExchangeContracts): Check[] {
  const out: Check[] = [];
  const bal = formatAllowance(String(b.balance));
  const of = b.account !== undefined ? ` (${b.account})` : '';
  out.push(
    b.balance > 0
      ? // (V2's collateral is pUSD, V1's USDC.e: trial 15 F8, "USDC" read as another token)
        pass('balance', 'collateral balance', `${bal} ${collateralName(contracts)}${of}`)
      : warn(
          'balance',
          'collateral balance',
          `the account${of} holds no collateral: it can only sell what it holds`,
          'deposit collateral to the trading address (the funder with venue.funder), then `mmkit doctor` again',
        ),
  );
  const lower = new Map(Object.entries(b.allowances ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  for (const [key, name] of [
    ['exchange', 'CTF exchange'],
    ['negRiskExchange', 'neg-risk CTF exchange'],
  ] as const) {
    const address = contracts[key];
    const id = `allowance.${key}`;
    const title = `allowance to the ${name}`;
    const raw = lower.get(address.toLowerCase()) ?? b.allowance;
    if (raw === undefined || !/^\d+$/.test(raw)) {
      out.push(
        warn(
          id,
          title,
          `the venue did not report an allowance for ${address}`,
          'check the approval on a block explorer, or approve the contract from the venue web app once',
        ),
      );
      continue;
    }
    if (BigInt(raw) === 0n)
      out.push(
        fail(
          id,
          title,
          `no allowance: ${address} may not spend the account's${of} collateral (every BUY on its markets is refused)`,
          `approve ${address} to spend the collateral (the venue web app does it on the first deposit; or approve() on the collateral token), then GET /balance-allowance/update`,
        ),
      );
    else out.push(pass(id, title, `${formatAllowance(raw)} for ${address}${of}`));
  }
  return out;
}
