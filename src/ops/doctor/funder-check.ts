/**
 * Who holds the funds: venue.signatureType and venue.funder against the signer, as the venue
 * judges an order's maker (README "Who may fund an order"). With `eoa` the wallet itself makes the
 * orders and holds the funds; with `poly-proxy` / `gnosis-safe` the maker is the funder, which the
 * public service accepts only when it is the signer's proxy wallet / Safe: CREATE2 addresses derived
 * from the signer alone (src/exchange/accounts/funders.ts has the published derivation), so that is
 * checked here without the venue. A venue that also lets an operator register other funders to a
 * signer (the paper exchange, POST /admin/funders) is asked whether it counts the funder among the
 * key's accounts: GET /rewards/user/total?maker_address= answers 400 `Invalid maker_address` when it
 * does not. An order for a funder that fails here is refused INVALID_ORDER_OWNER, and five of those
 * trip the daemon's kill switch: the doctor says so first.
 *
 * `funderProblem` is the part that needs no venue: `config check`, `mmkit doctor` and `mmkit run`
 * (before its pre-flight checks) refuse the same contradictions with the same words.
 */
import type { HttpTransport } from '../../api/http/transport.ts';
import { ValidationError } from '../../core/errors.ts';
import { proxyWalletOf, safeOf } from '../../exchange/accounts/funders.ts';
import { z } from 'zod';
import { fail, pass, warn, type Check } from './check.ts';
import { isUnreachable, messageOf } from './errors.ts';

/** venue.signatureType as configured. */
export type SignatureTypeName = 'eoa' | 'poly-proxy' | 'gnosis-safe';

/** A funder problem: the configuration key and what is wrong ('' funder = not set). */
export interface FunderProblem {
  readonly key: 'venue.funder';
  readonly message: string;
  /** True when it certainly fails at the venue (the signer is known or the funder missing); false: a warning. */
  readonly certain: boolean;
}

/** The signer's derived maker for a proxy signature type, lower case. */
export function derivedFunderOf(signatureType: 'poly-proxy' | 'gnosis-safe', signer: string): string {
  return signatureType === 'poly-proxy' ? proxyWalletOf(signer) : safeOf(signer);
}

const walletName = (st: 'poly-proxy' | 'gnosis-safe') => (st === 'poly-proxy' ? 'proxy wallet' : 'Safe');

/**
 * What is contradictory in venue.signatureType / venue.funder, or undefined:
 *  - a proxy signature type without a funder (every order would be refused before it is sent);
 *  - a funder with `eoa`: the maker of an EOA order is its signer, so a funder other than the
 *    wallet is refused by the venue (INVALID_ORDER_OWNER). Without the signer's address (`config
 *    check` does not decrypt the keystore) it is a warning: the funder may be the wallet itself.
 */
export function funderProblem(
  signatureType: SignatureTypeName,
  funder: string,
  signer?: string,
): FunderProblem | undefined {
  if (signatureType !== 'eoa' && funder === '')
    return {
      key: 'venue.funder',
      message: `signature type ${signatureType} needs the funder address (the proxy or Safe holding the funds): set venue.funder or MMKIT_FUNDER${signer !== undefined ? ` (the signer's ${walletName(signatureType)} is ${derivedFunderOf(signatureType, signer)})` : ''}`,
      certain: true,
    };
  if (
    signatureType === 'eoa' &&
    funder !== '' &&
    (signer === undefined || funder.toLowerCase() !== signer.toLowerCase())
  )
    return {
      key: 'venue.funder',
      message: `${funder} is set with signature type eoa, where the wallet itself makes the orders and holds the funds${signer !== undefined ? ` (the wallet is ${signer})` : ''}: the venue refuses an EOA order whose maker is not its signer; clear venue.funder (MMKIT_FUNDER), or set venue.signatureType (MMKIT_SIGNATURE_TYPE) poly-proxy or gnosis-safe`,
      certain: signer !== undefined,
    };
  return undefined;
}

const ID = 'funder';
/** The title of the `funder` check. */
export const FUNDER_CHECK_TITLE = 'funder (the account holding the funds)';
const TITLE = FUNDER_CHECK_TITLE;

/** The `funder` check's fail when the configuration is contradictory (no venue needed), else undefined. */
export function funderProblemCheck(
  signatureType: SignatureTypeName,
  funder: string,
  signer: string | undefined,
): Check | undefined {
  const p = funderProblem(signatureType, funder, signer);
  if (p === undefined || !p.certain) return undefined;
  return fail(ID, TITLE, p.message, 'fix venue.funder / venue.signatureType (then `mmkit config check`)');
}

/**
 * The `funder` check: the configuration's contradictions (funderProblem), then whether the funder
 * is the signer's derived proxy wallet / Safe, else whether the venue counts it among the key's
 * accounts. `paper`: a paper exchange's answer is the whole truth (its registered funders).
 */
export async function funderCheck(
  transport: HttpTransport,
  o: { signatureType: SignatureTypeName; funder: string; signer: string; paper: boolean; today: string },
): Promise<Check> {
  const bad = funderProblemCheck(o.signatureType, o.funder, o.signer);
  if (bad !== undefined) return bad;
  if (o.signatureType === 'eoa') return pass(ID, TITLE, `signature type eoa: the wallet ${o.signer} holds the funds`);
  const derived = derivedFunderOf(o.signatureType, o.signer);
  const name = walletName(o.signatureType);
  if (o.funder.toLowerCase() === derived)
    return pass(ID, TITLE, `${o.funder} is the signer's ${name} (${o.signatureType})`);
  const not = `${o.funder} is not the signer's ${name} (${derived})`;
  const setIt = `set venue.funder (MMKIT_FUNDER) to the signer's ${name} ${derived}, or have the venue register ${o.funder} to the signer ${o.signer}`;
  try {
    await transport.request(
      {
        api: 'clob',
        method: 'GET',
        path: '/rewards/user/total',
        auth: 'l2',
        idempotent: true,
        query: { date: o.today, maker_address: o.funder },
      },
      z.unknown(),
    );
  } catch (e) {
    if (e instanceof ValidationError && /Invalid maker_address/i.test(e.message))
      return fail(
        ID,
        TITLE,
        `${not}, and the venue does not count it among the signer's accounts (GET /rewards/user/total: Invalid maker_address): every order would be refused INVALID_ORDER_OWNER`,
        setIt,
      );
    return warn(
      ID,
      TITLE,
      `${not}; whether the venue accepts orders for it cannot be checked (GET /rewards/user/total: ${messageOf(e)})`,
      isUnreachable(e) ? 'retry when the venue answers' : setIt,
    );
  }
  return o.paper
    ? pass(ID, TITLE, `${not}, but registered to it at the paper exchange`)
    : warn(
        ID,
        TITLE,
        `${not}: the public service accepts only that one; this venue counts ${o.funder} among the signer's accounts, but whether it accepts orders for it cannot be checked`,
        setIt,
      );
}
