/**
 * Who signed and who funds an order (V1 and V2), before it reaches the book: the checks of
 * `PaperExchange.place` on the signer, the maker (funder) and the signature.
 */
import { recoverSigner } from '../api/signing/order.ts';
import { recoverOrderV2, type OrderHasherV2 } from '../api/signing/order-v2.ts';
import { AuthError } from '../core/errors.ts';
import type { ApiKeyRecord } from './accounts/keys.ts';
import { refusal, unknownToken, type PlaceRequestV1, type PlaceRequestV2, type Refusal } from './exchange-types.ts';

/** What the checks read of the exchange. */
export interface SignerContext {
  /** May `signer` trade for `maker` with this signature type (accounts/funders.ts)? */
  mayTradeFor(signer: string, maker: string, signatureType: number): boolean;
  /** The V2 order hasher of a token's market (its neg-risk flag picks the exchange contract). */
  hasherV2(tokenId: bigint): OrderHasherV2;
}

/**
 * Who signed and who funds a V1 order: the signer is the API key's address, the maker the signer
 * (EOA), its derived proxy wallet or Safe, or a registered funder (accounts/funders.ts); the
 * market exists; the signature recovers the signer; the order is public. Null when all hold.
 */
export function checkSignerV1(
  ctx: SignerContext,
  key: ApiKeyRecord,
  req: PlaceRequestV1,
  marketFound: boolean,
  orderID: string,
): Refusal | null {
  const o = req.order;
  if (o.signer.toLowerCase() !== key.address)
    return refusal('INVALID_ORDER_OWNER', 'the order signer address has to be the address of the API KEY');
  if (o.signatureType === 0 && o.maker.toLowerCase() !== o.signer.toLowerCase())
    return refusal('INVALID_ORDER_OWNER', 'for EOA orders (signatureType 0) maker must equal signer');
  if (!ctx.mayTradeFor(key.address, o.maker, o.signatureType))
    return refusal(
      'INVALID_ORDER_OWNER',
      o.signatureType === 1 || o.signatureType === 2
        ? `the maker (funder) is not the signer's ${o.signatureType === 1 ? 'proxy wallet' : 'Safe'} nor a funder registered to it`
        : 'invalid signatureType (0 EOA, 1 POLY_PROXY, 2 POLY_GNOSIS_SAFE)',
    );
  if (!marketFound) return unknownToken(o.tokenId);
  let signer: string;
  try {
    signer = recoverSigner(orderID, req.signature);
  } catch {
    return refusal('INVALID_SIGNATURE', 'invalid order signature');
  }
  if (signer.toLowerCase() !== o.signer.toLowerCase())
    return refusal(
      'INVALID_SIGNATURE',
      'invalid order signature: it does not recover the order signer (wrong key, chain or exchange contract?)',
    );
  if (o.taker.toLowerCase() !== '0x0000000000000000000000000000000000000000')
    return refusal('INVALID_ORDER_ERROR', 'only public orders (taker = zero address) are supported');
  return null;
}

/**
 * Who signed and who funds a V2 order, against the V2 exchange contract of its market:
 *  - EOA (0): signer = the API key's address = maker; POLY_PROXY (1) and POLY_GNOSIS_SAFE (2):
 *    signer = the API key's address, maker its derived proxy wallet / Safe or a registered funder
 *    (the V1 rules); the 65-byte signature must recover the signer;
 *  - POLY_1271 (3, deposit wallets): signer = maker = the wallet; the ERC-7739 envelope must be
 *    this order's in this exchange's domain (`recoverOrderV2`), and the key that signed it (the
 *    wallet's owner) the API key's address; the wallet must be registered to that owner
 *    (POST /admin/funders): the wallet's owner is on-chain state the paper exchange cannot read.
 * Null when all hold.
 */
export function checkSignerV2(
  ctx: SignerContext,
  key: ApiKeyRecord,
  req: PlaceRequestV2,
  marketFound: boolean,
): Refusal | null {
  const o = req.order;
  const st = o.signatureType;
  const signer = o.signer.toLowerCase();
  const maker = o.maker.toLowerCase();
  if (st === 3) {
    if (signer !== maker)
      return refusal(
        'INVALID_ORDER_OWNER',
        'for POLY_1271 orders (signatureType 3) signer must equal maker: the deposit wallet',
      );
  } else {
    if (signer !== key.address)
      return refusal('INVALID_ORDER_OWNER', 'the order signer address has to be the address of the API KEY');
    if (st === 0 && maker !== signer)
      return refusal('INVALID_ORDER_OWNER', 'for EOA orders (signatureType 0) maker must equal signer');
    if (!ctx.mayTradeFor(key.address, maker, st))
      return refusal(
        'INVALID_ORDER_OWNER',
        `the maker (funder) is not the signer's ${st === 1 ? 'proxy wallet' : 'Safe'} nor a funder registered to it`,
      );
  }
  if (!marketFound) return unknownToken(o.tokenId);
  let recovered: string;
  try {
    recovered = recoverOrderV2(ctx.hasherV2(o.tokenId), o, req.signature).recovered;
  } catch (e) {
    // the envelope's own reason (another domain, another order) is ours to give; anything else is not
    return refusal(
      'INVALID_SIGNATURE',
      st === 3 && e instanceof AuthError ? `invalid order signature: ${e.message}` : 'invalid order signature',
    );
  }
  if (st !== 3) {
    if (recovered !== signer)
      return refusal(
        'INVALID_SIGNATURE',
        'invalid order signature: it does not recover the order signer (wrong key, chain, exchange contract or protocol version?)',
      );
    return null;
  }
  if (recovered !== key.address)
    return refusal(
      'INVALID_ORDER_OWNER',
      "the deposit wallet's owner who signed the order (ERC-7739) has to be the address of the API KEY",
    );
  if (!ctx.mayTradeFor(key.address, maker, 3))
    return refusal(
      'INVALID_ORDER_OWNER',
      "the deposit wallet (maker) is not registered to its owner: the paper exchange cannot read a deposit wallet's owner on chain; an operator registers it (POST /admin/funders {signer: owner, funder: wallet})",
    );
  return null;
}
