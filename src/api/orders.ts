/**
 * Price and size to a signed order, fast.
 *
 * `OrderBuilder` turns a limit order (price × size) or a market order (worst price × amount) into
 * the venue's EIP-712 signed order: the amounts and rounding of venue-conventions "Units and
 * amounts" (computed by `limitOrderAmounts` / `marketOrderAmounts` of core/units.ts, the public
 * client's arithmetic, tested against it), the verifying contract of normal or neg-risk markets,
 * the order id (the EIP-712 digest, computed locally before anything is sent: the idempotency key
 * of a POST) and the signature (native libsecp256k1 when available, ethers otherwise; see
 * signing/fast-crypto.ts).
 *
 * Two protocols (option `protocol`): 2, the CTF Exchange V2 order of the public service since
 * 2026-04-28 (signing/order-v2.ts: signed `timestamp`, `metadata`, `builder`; no taker, nonce or
 * fee; the builder's default), and 1, the V1 order (signing/order.ts) that the paper exchange
 * speaks today. A builder signs one protocol; its type says which (`OrderBuilder<1>` builds
 * `BuiltOrderV1`, `OrderBuilder<2>` `BuiltOrderV2`, `OrderBuilder<OrderProtocol>` either).
 *
 * Inputs are exact: a price is a decimal string ("0.56") or an integer number of pips (5600); a
 * size or amount is a decimal string ("21.04") or an integer number of micro-units (21_040_000).
 * A non-integer JS number is refused: no float ever holds money here.
 *
 * `toPostBody` wraps a built order into the body of `POST /order` (an array of those is the body of
 * `POST /orders`). Re-sending the same body after an ambiguous failure is safe: the venue answers a
 * duplicate with INVALID_ORDER_DUPLICATED, never a second order. Never rebuild (re-salt) an order
 * whose POST outcome is unknown.
 *
 * Pure apart from the clock (for `ttlSec`, and V2's signed timestamp: the injected one, or the wall
 * clock when none is given) and the salt source.
 */
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { computeAddress, getAddress, getBytes } from 'ethers';
import type { Clock } from '../core/clock.ts';
import { ValidationError } from '../core/errors.ts';
import { isAddress, isUintString, ZERO_ADDRESS } from '../core/ids.ts';
import {
  formatAmount,
  formatPrice,
  isTickSize,
  isValidPrice,
  LOT_MICRO,
  limitOrderAmounts,
  marketOrderAmounts,
  MAX_ORDER_MICRO,
  parseAmount,
  parsePrice,
  tickPips,
  type Micro,
  type Pips,
  type RawAmounts,
  type Side,
  type TickSize,
} from '../core/units.ts';
import { signDigest } from './signing/fast-crypto.ts';
import { orderHasher, signedWire, type KeyHolder, type SignedOrderStruct, type WireOrder } from './signing/order.ts';
import {
  type AnyWireOrder,
  isBytes32,
  type OrderHasherV2,
  orderHasherV2,
  signedWireV2,
  signOrderWithKeyV2,
  type SignedOrderStructV2,
  type WireOrderV2,
  ZERO_BYTES32,
} from './signing/order-v2.ts';

/**
 * EOA 0 (maker = signer = the wallet), POLY_PROXY 1, POLY_GNOSIS_SAFE 2 (maker = funder, signer =
 * the wallet), POLY_1271 3 (V2 only: a deposit wallet, maker = signer = funder, the wallet's key
 * signs the ERC-7739 envelope).
 */
export type SignatureType = 0 | 1 | 2 | 3;
/** The exchange protocol of an order: 1 (CTF Exchange V1) or 2 (CTF Exchange V2). */
export type OrderProtocol = 1 | 2;
/** The protocol an OrderBuilder signs when its options do not say: 2, the public service's. */
export const DEFAULT_ORDER_PROTOCOL = 2 as const;
/** Order types of `POST /order`. */
export type OrderType = 'GTC' | 'GTD' | 'FOK' | 'FAK';

/** The venue's GTD security threshold: a GTD order lives until `expiration - 60 s`. */
export const GTD_SECURITY_THRESHOLD_SEC = 60;

/** Largest salt: it travels as a JSON number, so it must be a safe integer. */
export const MAX_SALT = Number.MAX_SAFE_INTEGER;

/** A price: a decimal string ("0.56") or integer pips (5600). */
export type PriceInput = string | Pips | number;
/** A size or amount: a decimal string ("21.04") or integer micro-units (21_040_000). */
export type AmountInput = string | Micro | number | bigint;

/** Options of an OrderBuilder. */
export interface OrderBuilderOptions<P extends OrderProtocol = OrderProtocol> {
  /** The key that signs: an ethers `Wallet` (or anything with a `signingKey`), or a 0x-hex private key. */
  wallet: KeyHolder | string;
  /** EIP-712 chain id (137 on Polygon; the paper exchange's default). */
  chainId: number;
  /**
   * The exchange protocol to sign: 2 (default, DEFAULT_ORDER_PROTOCOL) or 1. Pass what the venue
   * speaks (the live venue passes its own setting).
   */
  protocol?: P;
  /** EOA 0 (default), POLY_PROXY 1, POLY_GNOSIS_SAFE 2, POLY_1271 3 (protocol 2 only). */
  signatureType?: SignatureType;
  /**
   * The maker (funder) address. Required for signature types 1 and 2 (the proxy or Safe holding the
   * funds) and 3 (the deposit wallet, which is then the signer too); for type 0 it may be omitted
   * and must otherwise equal the wallet's address.
   */
  funder?: string;
  /**
   * Verifying contracts; default the venue's CTF Exchange and Neg-risk CTF Exchange of the protocol
   * (V1: CTF_EXCHANGE, NEG_RISK_CTF_EXCHANGE; V2: CTF_EXCHANGE_V2, NEG_RISK_CTF_EXCHANGE_V2).
   */
  exchangeAddress?: string;
  negRiskExchangeAddress?: string;
  /**
   * V2: the builder code signed in every order (bytes32, 0x + 64 hex; default zero: none). An
   * order's `builderCode` overrides it. V1 orders have no such field: ignored with protocol 1.
   */
  builderCode?: string;
  /** V2: the `metadata` signed in every order (bytes32; default zero). Ignored with protocol 1. */
  metadata?: string;
  /** Clock for `ttlSec` (GTD expirations relative to now) and V2's signed `timestamp` (default: the wall clock). */
  clock?: Clock;
  /**
   * Salt source: a positive safe integer, unique per order. Default: a random 53-bit start drawn
   * from node:crypto, plus a counter.
   */
  salt?: () => number;
}

/** Fields shared by limit and market orders. */
interface CommonOrderInput {
  /** The outcome token (uint256 decimal string or bigint). */
  tokenId: string | bigint;
  side: Side;
  /** The market's tick size. */
  tick: TickSize;
  /** True for neg-risk markets: signed for the Neg-risk CTF Exchange. */
  negRisk: boolean;
  /**
   * V1: fee rate in basis points (default 0). Not part of a V2 order (the operator applies the
   * market's fee schedule at match time): ignored with protocol 2.
   */
  feeRateBps?: number | bigint;
  /** V1: on-chain cancel nonce (default 0). V2 orders have no nonce: ignored with protocol 2. */
  nonce?: number | bigint;
  /** V2: this order's builder code (bytes32), instead of the builder's `builderCode`. Ignored with protocol 1. */
  builderCode?: string;
  /** V2: this order's metadata (bytes32), instead of the builder's `metadata`. Ignored with protocol 1. */
  metadata?: string;
  /**
   * V2: the signed timestamp, unix milliseconds (default: the clock's now). For replays and test
   * vectors. Ignored with protocol 1.
   */
  timestampMs?: number | bigint;
}

/** A limit order: `size` shares at `price`. */
export interface LimitOrderInput extends CommonOrderInput {
  /** Limit price, on the tick, in [tick, 1 - tick]. */
  price: PriceInput;
  /** Shares; rounded down to 0.01 share, as the public client does. */
  size: AmountInput;
  /** GTD expiration, unix seconds (default 0: none). Mutually exclusive with `ttlSec`. */
  expiration?: number | bigint;
  /**
   * GTD lifetime in seconds from the clock's now: expiration = now + 60 s (the venue's security
   * threshold) + ttlSec. Needs the `clock` option.
   */
  ttlSec?: number;
}

/** A market order (FOK/FAK): spend `amount` collateral (BUY) or sell `amount` shares (SELL), at `price` or better. */
export interface MarketOrderInput extends CommonOrderInput {
  /** Worst acceptable price, on the tick, in [tick, 1 - tick]. */
  price: PriceInput;
  /** BUY: collateral to spend; SELL: shares to sell. Rounded down to 2 decimals. */
  amount: AmountInput;
}

/** What signed orders of both protocols have. */
interface BuiltOrderBase {
  /** 0x-prefixed signature: 65 bytes (r ‖ s ‖ v, low-s), or V2's POLY_1271 envelope. */
  readonly signature: string;
  /** The order id: the EIP-712 digest (0x-prefixed lower-case hex). */
  readonly id: string;
  /** Whether it was signed for the neg-risk exchange. */
  readonly negRisk: boolean;
  /** `limit` (GTC/GTD/FOK/FAK) or `market` (FOK/FAK only: its amounts are a spend, not a price × size). */
  readonly kind: 'limit' | 'market';
  /** GTD expiration, unix seconds (0: none). Signed in V1, only sent in V2. */
  readonly expiration: bigint;
}

/** A signed V1 order, ready to post. */
export interface BuiltOrderV1 extends BuiltOrderBase {
  readonly protocol: 1;
  /** The EIP-712 struct that was signed. */
  readonly struct: SignedOrderStruct;
  /** The `order` object of the POST /order body (frozen; its JSON is computed once, see `wireJson`). */
  readonly wire: WireOrder;
}

/** A signed V2 order, ready to post. */
export interface BuiltOrderV2 extends BuiltOrderBase {
  readonly protocol: 2;
  /** The EIP-712 struct that was signed. */
  readonly struct: SignedOrderStructV2;
  /** The `order` object of the POST /order body (frozen; its JSON is computed once, see `wireJson`). */
  readonly wire: WireOrderV2;
}

/** A signed order of either protocol, ready to post (`protocol` tells which). */
export type BuiltOrder = BuiltOrderV1 | BuiltOrderV2;
/** The signed order an `OrderBuilder<P>` builds. */
export type BuiltOrderOf<P extends OrderProtocol> = P extends 1 ? BuiltOrderV1 : BuiltOrderV2;

/** Options of `toPostBody`. */
export interface PostBodyOptions {
  /** The API key that owns the order. */
  owner: string;
  /** Default GTC for limit orders, FOK for market orders. */
  orderType?: OrderType;
  /** Only with GTC/GTD: refuse to cross the book. Default false. */
  postOnly?: boolean;
  /** Optional builder attribution key (paper exchange: data API builder statistics). */
  builder?: string;
}

/** The body of `POST /order` (and one element of `POST /orders`). */
export interface PostOrderBody {
  order: AnyWireOrder;
  owner: string;
  orderType: OrderType;
  postOnly: boolean;
  builder?: string;
}

const ORDER_TYPES: readonly OrderType[] = ['GTC', 'GTD', 'FOK', 'FAK'];
const MAX_UINT256 = (1n << 256n) - 1n;

/**
 * Builds and signs orders for one wallet, in one protocol (`protocol`, default 2). About 15-20 k
 * orders/s on one core with the native backend (build + digest + sign; `npm run bench`), V2 at
 * least as fast as V1.
 *
 * The type parameter is the protocol: `new OrderBuilder({ ..., protocol: 1 })` is an
 * `OrderBuilder<1>` whose orders are `BuiltOrderV1`; without `protocol`, an `OrderBuilder<2>`; a
 * builder of either protocol is an `OrderBuilder<OrderProtocol>`.
 */
export class OrderBuilder<P extends OrderProtocol = typeof DEFAULT_ORDER_PROTOCOL> {
  /** The protocol this builder signs. */
  readonly protocol: P;
  /** The EOA whose key signs (checksummed). For POLY_1271 the order's `signer` is the deposit wallet (`maker`). */
  readonly signer: string;
  /** The maker (funder) address (checksummed): the signer for EOA orders. */
  readonly maker: string;
  readonly chainId: number;
  readonly signatureType: SignatureType;
  readonly #key: Uint8Array;
  readonly #clock: Clock | undefined;
  readonly #salt: () => number;
  readonly #exchange: string | undefined;
  readonly #negRiskExchange: string | undefined;
  /** V2: hashers of the normal and the neg-risk exchange (built once). */
  readonly #hasherV2: OrderHasherV2 | undefined;
  readonly #negRiskHasherV2: OrderHasherV2 | undefined;
  readonly #builderCode: string;
  readonly #metadata: string;

  /** @throws ValidationError on a bad key, chain id, protocol, signature type, funder, builder code or metadata. */
  constructor(o: OrderBuilderOptions<P>) {
    let privHex: string;
    if (typeof o.wallet === 'string') privHex = o.wallet;
    else if (o.wallet?.signingKey) privHex = o.wallet.signingKey.privateKey;
    else throw new ValidationError('wallet: expected a private key or an object with a signingKey');
    if (!/^(0x)?[0-9a-fA-F]{64}$/.test(privHex))
      throw new ValidationError('wallet: the private key must be 32 bytes of hex');
    this.#key = getBytes(privHex.startsWith('0x') ? privHex : `0x${privHex}`);
    try {
      this.signer = computeAddress(`0x${Buffer.from(this.#key).toString('hex')}`);
    } catch (err) {
      throw new ValidationError('wallet: not a valid secp256k1 private key', { cause: err });
    }
    if (!Number.isSafeInteger(o.chainId) || o.chainId <= 0)
      throw new ValidationError(`chainId: not a positive integer: ${String(o.chainId)}`);
    this.chainId = o.chainId;
    const protocol = o.protocol ?? DEFAULT_ORDER_PROTOCOL;
    if (protocol !== 1 && protocol !== 2)
      throw new ValidationError(`protocol: must be 1 or 2, got ${String(protocol)}`);
    this.protocol = protocol as P;
    const st = o.signatureType ?? 0;
    if (st !== 0 && st !== 1 && st !== 2 && st !== 3)
      throw new ValidationError(`signatureType: must be 0, 1, 2 or 3, got ${String(st)}`);
    if (st === 3 && protocol === 1)
      throw new ValidationError('signatureType: POLY_1271 (3, deposit wallets) exists in protocol 2 only');
    this.signatureType = st;
    if (o.funder !== undefined && !isAddress(o.funder))
      throw new ValidationError('funder: not an address (0x + 40 hex)');
    const funder = o.funder === undefined ? undefined : getAddress(o.funder.toLowerCase());
    if (st === 0) {
      if (funder !== undefined && funder !== this.signer) {
        throw new ValidationError(
          'funder: for EOA orders (signatureType 0) the maker is the wallet itself; use signatureType 1 or 2 for a proxy',
        );
      }
      this.maker = this.signer;
    } else {
      if (funder === undefined)
        throw new ValidationError(
          `funder: required with signatureType ${st} (the ${st === 3 ? 'deposit wallet' : 'proxy wallet'} holding the funds)`,
        );
      this.maker = funder;
    }
    this.#builderCode = checkBytes32(o.builderCode ?? ZERO_BYTES32, 'builderCode');
    this.#metadata = checkBytes32(o.metadata ?? ZERO_BYTES32, 'metadata');
    for (const [name, a] of [
      ['exchangeAddress', o.exchangeAddress],
      ['negRiskExchangeAddress', o.negRiskExchangeAddress],
    ] as const) {
      if (a !== undefined && !isAddress(a)) throw new ValidationError(`${name}: not an address`);
    }
    this.#exchange = o.exchangeAddress;
    this.#negRiskExchange = o.negRiskExchangeAddress;
    this.#clock = o.clock;
    this.#salt = o.salt ?? defaultSaltSource();
    // Build the digest contexts now, not on the first order.
    if (protocol === 2) {
      this.#hasherV2 = orderHasherV2(this.chainId, false, this.#exchange);
      this.#negRiskHasherV2 = orderHasherV2(this.chainId, true, this.#negRiskExchange);
    } else {
      orderHasher(this.chainId, false, this.#exchange);
      orderHasher(this.chainId, true, this.#negRiskExchange);
    }
  }

  /**
   * A signed limit order: BUY takerAmount = shares, makerAmount = shares × price; SELL the reverse.
   * Example: BUY, tick 0.01, "0.56" × "21.04" → makerAmount 11782400, takerAmount 21040000.
   * @throws ValidationError when the price is off the tick or outside [tick, 1 - tick], the size is
   *   not positive after rounding down to 0.01, an input is malformed or a float, or a field is out of range.
   */
  buildLimit(input: LimitOrderInput): BuiltOrderOf<P> {
    const tick = checkTick(input.tick);
    const side = checkSide(input.side);
    const price = toPips(input.price, tick, 'price');
    const size = toMicro(input.size, 'size');
    const shares = size - (size % LOT_MICRO);
    if (shares <= 0) throw new ValidationError(`size: must be at least 0.01 share, got ${formatAmount(size)}`);
    if (shares > MAX_ORDER_MICRO) throw new ValidationError(`size: at most ${formatAmount(MAX_ORDER_MICRO)} shares`);
    const amounts = limitOrderAmounts(side, tick, formatPrice(price), formatAmount(shares));
    let expiration: bigint;
    if (input.ttlSec !== undefined) {
      if (input.expiration !== undefined) throw new ValidationError('expiration and ttlSec are mutually exclusive');
      if (!Number.isSafeInteger(input.ttlSec) || input.ttlSec <= 0)
        throw new ValidationError('ttlSec: must be a positive integer of seconds');
      if (this.#clock === undefined) throw new ValidationError('ttlSec needs the OrderBuilder clock option');
      expiration = BigInt(Math.floor(this.#clock.now() / 1000) + GTD_SECURITY_THRESHOLD_SEC + input.ttlSec);
    } else {
      expiration = toUint(input.expiration ?? 0, 'expiration');
    }
    return this.#sign(input, side, amounts, expiration, 'limit');
  }

  /**
   * A signed market order (to post as FOK or FAK): BUY spends `amount` collateral, takerAmount =
   * amount / price; SELL sells `amount` shares, takerAmount = amount × price (venue rounding).
   * Example: BUY, tick 0.01, "0.56", "100" → makerAmount 100000000, takerAmount 178571400.
   * @throws ValidationError when the price is off the tick or outside [tick, 1 - tick], the amount
   *   is not positive after rounding down to 0.01, an input is malformed or a float.
   */
  buildMarket(input: MarketOrderInput): BuiltOrderOf<P> {
    const tick = checkTick(input.tick);
    const side = checkSide(input.side);
    const price = toPips(input.price, tick, 'price');
    const amount = toMicro(input.amount, 'amount');
    const lots = amount - (amount % LOT_MICRO);
    if (lots <= 0) throw new ValidationError(`amount: must be at least 0.01, got ${formatAmount(amount)}`);
    if (lots > MAX_ORDER_MICRO) throw new ValidationError(`amount: at most ${formatAmount(MAX_ORDER_MICRO)}`);
    const amounts = marketOrderAmounts(side, tick, formatPrice(price), formatAmount(lots));
    if (amounts.takerAmount <= 0n) throw new ValidationError('amount: too small to receive anything at this price');
    return this.#sign(input, side, amounts, 0n, 'market');
  }

  #sign(
    input: CommonOrderInput,
    side: Side,
    amounts: RawAmounts,
    expiration: bigint,
    kind: 'limit' | 'market',
  ): BuiltOrderOf<P> {
    const negRisk = input.negRisk;
    if (typeof negRisk !== 'boolean') throw new ValidationError('negRisk: expected a boolean');
    const salt = this.#salt();
    if (!Number.isSafeInteger(salt) || salt <= 0)
      throw new ValidationError(`salt: the salt source must return a positive safe integer, got ${String(salt)}`);
    if (this.protocol === 2) return this.#signV2(input, side, amounts, expiration, kind, salt) as BuiltOrderOf<P>;
    const struct: SignedOrderStruct = {
      salt: BigInt(salt),
      maker: this.maker,
      signer: this.signer,
      taker: ZERO_ADDRESS,
      tokenId: toTokenId(input.tokenId),
      makerAmount: amounts.makerAmount,
      takerAmount: amounts.takerAmount,
      expiration,
      nonce: toUint(input.nonce ?? 0, 'nonce'),
      feeRateBps: toFeeRate(input.feeRateBps ?? 0),
      side: side === 'BUY' ? 0 : 1,
      // the constructor refuses POLY_1271 (3) with protocol 1
      signatureType: this.signatureType as 0 | 1 | 2,
    };
    const id = orderHasher(this.chainId, negRisk, negRisk ? this.#negRiskExchange : this.#exchange).digest(struct);
    const signature = signDigest(this.#key, Buffer.from(id.slice(2), 'hex'));
    const built: BuiltOrderV1 = {
      protocol: 1,
      struct,
      signature,
      id,
      wire: signedWire(struct, signature),
      negRisk,
      kind,
      expiration,
    };
    return built as BuiltOrderOf<P>;
  }

  #signV2(
    input: CommonOrderInput,
    side: Side,
    amounts: RawAmounts,
    expiration: bigint,
    kind: 'limit' | 'market',
    salt: number,
  ): BuiltOrderV2 {
    const negRisk = input.negRisk;
    const ts = input.timestampMs ?? (this.#clock !== undefined ? this.#clock.now() : Date.now());
    const struct: SignedOrderStructV2 = {
      salt: BigInt(salt),
      maker: this.maker,
      // POLY_1271: the deposit wallet signs (ERC-1271); its owner's key makes the envelope
      signer: this.signatureType === 3 ? this.maker : this.signer,
      tokenId: toTokenId(input.tokenId),
      makerAmount: amounts.makerAmount,
      takerAmount: amounts.takerAmount,
      side: side === 'BUY' ? 0 : 1,
      signatureType: this.signatureType,
      timestamp: toTimestamp(ts),
      metadata: input.metadata === undefined ? this.#metadata : checkBytes32(input.metadata, 'metadata'),
      builder: input.builderCode === undefined ? this.#builderCode : checkBytes32(input.builderCode, 'builderCode'),
    };
    const { digest, signature } = signOrderWithKeyV2(
      this.#key,
      negRisk ? this.#negRiskHasherV2! : this.#hasherV2!,
      struct,
    );
    return {
      protocol: 2,
      struct,
      signature,
      id: digest,
      wire: signedWireV2(struct, signature, expiration),
      negRisk,
      kind,
      expiration,
    };
  }
}

/**
 * The body of `POST /order` for a built order. An array of these (at most 15) is the body of
 * `POST /orders`.
 * @throws ValidationError when postOnly is combined with FOK/FAK, a market order is not FOK/FAK, a
 *   GTD order has no expiration, a non-GTD order has one, or the owner is empty.
 */
export function toPostBody(order: BuiltOrder, opts: PostBodyOptions): PostOrderBody {
  const orderType = opts.orderType ?? (order.kind === 'market' ? 'FOK' : 'GTC');
  if (!ORDER_TYPES.includes(orderType))
    throw new ValidationError(`orderType: must be one of ${ORDER_TYPES.join(', ')}`);
  if (order.kind === 'market' && orderType !== 'FOK' && orderType !== 'FAK')
    throw new ValidationError('market orders are FOK or FAK');
  if (typeof opts.owner !== 'string' || opts.owner.length === 0)
    throw new ValidationError('owner: the API key is required');
  const postOnly = opts.postOnly ?? false;
  if (postOnly && orderType !== 'GTC' && orderType !== 'GTD')
    throw new ValidationError('postOnly: only with GTC or GTD orders');
  const exp = order.expiration;
  if (orderType === 'GTD' && exp === 0n)
    throw new ValidationError('GTD orders need an expiration (build with expiration or ttlSec)');
  if (orderType !== 'GTD' && exp !== 0n)
    throw new ValidationError(`${orderType} orders must have expiration 0 (post it as GTD)`);
  const body: PostOrderBody = { order: order.wire, owner: opts.owner, orderType, postOnly };
  if (opts.builder !== undefined) body.builder = opts.builder;
  return body;
}

/**
 * The default salt source: a random start in [1, 2^53 - 1] from node:crypto, then +1 per order
 * (wrapping), so salts are unique per builder for 2^53 orders and unpredictable across builders.
 */
export function defaultSaltSource(): () => number {
  const b = randomBytes(8);
  // 53 random bits
  let next = (b.readUInt32BE(0) & 0x1fffff) * 2 ** 32 + b.readUInt32BE(4);
  return () => {
    next = next >= MAX_SALT ? 1 : next + 1;
    return next;
  };
}

// ---- input parsing ------------------------------------------------------------------------------

function checkTick(t: unknown): TickSize {
  if (!isTickSize(t)) throw new ValidationError(`tick: must be one of 0.1, 0.01, 0.001, 0.0001, got ${String(t)}`);
  return t;
}

function checkSide(s: unknown): Side {
  if (s !== 'BUY' && s !== 'SELL') throw new ValidationError(`side: must be BUY or SELL, got ${String(s)}`);
  return s;
}

/** A price input to pips, checked on the tick and in [tick, 1 - tick]. */
function toPips(p: PriceInput, tick: TickSize, what: string): Pips {
  let pips: number;
  if (typeof p === 'string') {
    try {
      pips = parsePrice(p, 'exact');
    } catch {
      throw new ValidationError(`${what}: ${JSON.stringify(p).slice(0, 24)} is not on the ${tick} tick`);
    }
  } else if (typeof p === 'number') {
    if (!Number.isSafeInteger(p))
      throw new ValidationError(`${what}: a number must be integer pips (1 pip = 0.0001); pass decimals as strings`);
    pips = p;
  } else {
    throw new ValidationError(`${what}: expected a decimal string or integer pips`);
  }
  const t = tickPips(tick);
  if (!isValidPrice(pips, t)) {
    throw new ValidationError(
      `${what}: ${formatPrice(pips)} must be a multiple of ${tick} in [${tick}, ${formatPrice(10_000 - t)}]`,
    );
  }
  return pips as Pips;
}

/** A size/amount input to micro-units (decimal strings: digits past the 6th are dropped). */
function toMicro(a: AmountInput, what: string): Micro {
  if (typeof a === 'string') {
    try {
      return parseAmount(a, 'down');
    } catch {
      throw new ValidationError(`${what}: not a non-negative decimal: ${JSON.stringify(a).slice(0, 24)}`);
    }
  }
  if (typeof a === 'bigint') {
    if (a < 0n || a > BigInt(Number.MAX_SAFE_INTEGER)) throw new ValidationError(`${what}: out of range`);
    return Number(a) as Micro;
  }
  if (typeof a === 'number') {
    if (!Number.isSafeInteger(a) || a < 0) {
      throw new ValidationError(
        `${what}: a number must be non-negative integer micro-units (1e-6); pass decimals as strings`,
      );
    }
    return a as Micro;
  }
  throw new ValidationError(`${what}: expected a decimal string or integer micro-units`);
}

function toUint(v: number | bigint, what: string): bigint {
  if (typeof v === 'bigint') {
    if (v < 0n || v > MAX_UINT256) throw new ValidationError(`${what}: not a uint256`);
    return v;
  }
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new ValidationError(`${what}: must be a non-negative integer`);
  return BigInt(v);
}

function toFeeRate(v: number | bigint): bigint {
  const f = toUint(v, 'feeRateBps');
  if (f > 10_000n) throw new ValidationError('feeRateBps: at most 10000');
  return f;
}

function checkBytes32(v: unknown, what: string): string {
  if (!isBytes32(v)) throw new ValidationError(`${what}: expected a bytes32 (0x + 64 hex)`);
  return v.toLowerCase();
}

/** A V2 timestamp in unix milliseconds (a clock's now may have a fraction: floored). */
function toTimestamp(ms: number | bigint): bigint {
  if (typeof ms === 'bigint') {
    if (ms < 0n || ms > MAX_UINT256) throw new ValidationError('timestampMs: not a uint256');
    return ms;
  }
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    throw new ValidationError('timestampMs: must be a non-negative number of milliseconds');
  return BigInt(Math.floor(ms));
}

function toTokenId(t: string | bigint): bigint {
  if (typeof t === 'bigint') {
    if (t < 0n || t > MAX_UINT256) throw new ValidationError('tokenId: not a uint256');
    return t;
  }
  if (!isUintString(t)) throw new ValidationError('tokenId: expected a uint256 decimal string');
  const v = BigInt(t);
  if (v > MAX_UINT256) throw new ValidationError('tokenId: not a uint256');
  return v;
}
