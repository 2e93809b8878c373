/**
 * The exchange contracts mmkit signs orders for (and the venue spends collateral through), per
 * protocol, and the check that the configured ones (venue.contracts.*) are those: a profile naming
 * other contracts than the orders are signed for means a stale profile or the wrong protocol.
 */
import { CTF_EXCHANGE, NEG_RISK_CTF_EXCHANGE } from '../../api/signing/order.ts';
import { CONTRACTS_V2, CTF_EXCHANGE_V2, NEG_RISK_CTF_EXCHANGE_V2, PUSD } from '../../api/signing/order-v2.ts';
import { fail, pass, type Check } from './check.ts';

export interface ExchangeContracts {
  readonly exchange: string;
  readonly negRiskExchange: string;
  /** The collateral token (V2: pUSD; V1: USDC.e, which mmkit does not name: undefined). */
  readonly collateral?: string;
}

/** USDC.e on Polygon, the V1 collateral (docs: Contracts). */
const USDC_E = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';

/** The name of the collateral of these contracts: pUSD (V2), USDC.e (V1 on Polygon), else USDC. */
export function collateralName(c: ExchangeContracts): string {
  if (c.collateral === undefined) return 'USDC';
  return c.collateral.toLowerCase() === USDC_E.toLowerCase() ? 'USDC.e' : 'pUSD';
}

/** The contracts mmkit signs orders for in `protocol` on `chainId`. */
export function signedContracts(protocol: 1 | 2, chainId: number): ExchangeContracts {
  if (protocol === 2) {
    const c = CONTRACTS_V2[chainId as 137 | 80002] as (typeof CONTRACTS_V2)[137] | undefined;
    return c ?? { exchange: CTF_EXCHANGE_V2, negRiskExchange: NEG_RISK_CTF_EXCHANGE_V2, collateral: PUSD };
  }
  return {
    exchange: CTF_EXCHANGE,
    negRiskExchange: NEG_RISK_CTF_EXCHANGE,
    ...(chainId === 137 ? { collateral: USDC_E } : {}),
  };
}

/** Configured contracts ('' = not set): each set one must be the signed one. */
export function contractsCheck(
  configured: { exchange: string; negRiskExchange: string; collateral: string },
  protocol: 1 | 2,
  chainId: number,
): Check {
  const signed = signedContracts(protocol, chainId);
  const wrong = (['exchange', 'negRiskExchange', 'collateral'] as const).filter(
    (k) => configured[k] !== '' && configured[k].toLowerCase() !== (signed[k] ?? '').toLowerCase(),
  );
  const title = 'exchange contracts';
  if (wrong.length > 0)
    return fail(
      'contracts',
      title,
      wrong
        .map(
          (k) =>
            `venue.contracts.${k} is ${configured[k]} but protocol ${protocol} on chain ${chainId} uses ${signed[k] ?? '(none known)'}`,
        )
        .join('; '),
      "correct venue.contracts.* from the venue's Contracts page, or check venue.protocol and bot.chainId",
    );
  return pass(
    'contracts',
    title,
    `protocol ${protocol} orders signed for ${signed.exchange} (neg-risk ${signed.negRiskExchange})${signed.collateral ? `, collateral ${signed.collateral}` : ''}`,
  );
}
