/**
 * A user of the real paper exchange through the bot's own client (src/api: transport, ClobClient),
 * with an API key created by L1 signature, and the V1 orders such a user signs (the exchanges these
 * tests start speak protocol 1). For raw HTTP against the exchange, see ./trader.ts.
 */
import { Wallet } from 'ethers';
import { createOrDeriveApiKey } from '../../../src/api/auth.ts';
import { ClobClient, type SignedOrderLike } from '../../../src/api/clob.ts';
import { createTransport, type HttpTransport, type TransportOptions } from '../../../src/api/http/transport.ts';
import { orderToWire, type SignedOrderStruct, signOrder } from '../../../src/api/signing/order.ts';
import { limitOrderAmounts, type Side, type TickSize } from '../../../src/core/units.ts';

let salt = 1;

/** A V1 limit order of `wallet` (its own maker and signer, EOA), signed for chain 137. */
export function signV1Order(
  wallet: Wallet,
  tokenId: string,
  side: Side,
  price: string,
  size: string,
  o: { tick?: TickSize; negRisk?: boolean } = {},
): SignedOrderLike {
  const a = limitOrderAmounts(side, o.tick ?? '0.01', price, size);
  const struct: SignedOrderStruct = {
    salt: BigInt(Date.now() * 1000 + salt++),
    maker: wallet.address,
    signer: wallet.address,
    taker: '0x0000000000000000000000000000000000000000',
    tokenId: BigInt(tokenId),
    makerAmount: a.makerAmount,
    takerAmount: a.takerAmount,
    expiration: 0n,
    nonce: 0n,
    feeRateBps: 0n,
    side: side === 'BUY' ? 0 : 1,
    signatureType: 0,
  };
  const { digest, signature } = signOrder(wallet, struct, 137, o.negRisk ?? false);
  return { id: digest, wire: orderToWire(struct, signature) };
}

export interface ClobUser {
  wallet: Wallet;
  t: HttpTransport;
  clob: ClobClient;
}

/**
 * A transport signing with `wallet` (default: a new random one) on `opts`, pushed to `open` (the
 * test closes them), with its API key created or derived; and a ClobClient on it.
 */
export async function clobUser(
  open: HttpTransport[],
  opts: TransportOptions,
  wallet: Wallet = new Wallet(Wallet.createRandom().privateKey),
): Promise<ClobUser> {
  const t = createTransport({ signer: wallet, ...opts });
  open.push(t);
  t.setCredentials(await createOrDeriveApiKey(t));
  return { wallet, t, clob: new ClobClient(t) };
}
