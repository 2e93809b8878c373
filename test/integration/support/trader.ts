/**
 * A test trader: a real wallet that talks to the paper exchange over real HTTP, creating its API key
 * with an L1 signature, signing orders with EIP-712 and authenticating with L2 HMAC headers.
 */
import { Wallet } from 'ethers';
import { l1Headers } from '../../../src/api/signing/clob-auth.ts';
import { l2Headers } from '../../../src/api/signing/hmac.ts';
import { orderToWire, signOrder, type SignedOrderStruct } from '../../../src/api/signing/order.ts';
import {
  orderToWireV2,
  signOrderV2,
  ZERO_BYTES32,
  type SignedOrderStructV2,
} from '../../../src/api/signing/order-v2.ts';
import { limitOrderAmounts, marketOrderAmounts, type Side, type TickSize } from '../../../src/core/units.ts';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface OrderOpts {
  type?: 'GTC' | 'GTD' | 'FOK' | 'FAK';
  postOnly?: boolean;
  expiration?: number; // unix seconds
  feeRateBps?: number;
  negRisk?: boolean;
  tick?: TickSize;
  /** For FOK/FAK: size is collateral to spend (BUY) as the public client's market orders. */
  market?: boolean;
  salt?: number;
  /** Sign a V1 or a V2 order (default: the trader's `protocol`). V2 ignores `feeRateBps` (not signed). */
  protocol?: 1 | 2;
}

let saltSeq = 1;

export class Trader {
  readonly wallet: Wallet;
  creds: { apiKey: string; secret: string; passphrase: string } | undefined;
  /** The protocol `order` and `place` sign (an exchange speaking 2 refuses V1 orders, and the reverse). */
  protocol: 1 | 2 = 2;
  constructor(
    readonly clobUrl: string,
    privateKey?: string,
    readonly chainId = 137,
  ) {
    this.wallet = privateKey ? new Wallet(privateKey) : (Wallet.createRandom() as unknown as Wallet);
  }
  get address(): string {
    return this.wallet.address.toLowerCase();
  }

  async raw(
    method: string,
    path: string,
    opts: { body?: unknown; rawBody?: string; headers?: Record<string, string>; query?: string; base?: string } = {},
  ): Promise<HttpResult> {
    const bodyStr = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    const res = await fetch(`${opts.base ?? this.clobUrl}${path}${opts.query ? `?${opts.query}` : ''}`, {
      method,
      headers: { ...(bodyStr !== undefined ? { 'content-type': 'application/json' } : {}), ...(opts.headers ?? {}) },
      ...(bodyStr !== undefined ? { body: bodyStr } : {}),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* plain text */
    }
    return { status: res.status, body, headers: res.headers };
  }

  l1(nonce = 0): Record<string, string> {
    return { ...l1Headers(this.wallet, this.chainId, Math.floor(Date.now() / 1000), nonce) };
  }

  async createKey(nonce = 0): Promise<HttpResult> {
    const r = await this.raw('POST', '/auth/api-key', { headers: this.l1(nonce) });
    if (r.status === 200) this.creds = r.body;
    return r;
  }

  /** L2-authenticated request (the path signed is relative to the CLOB base URL). */
  async l2(method: string, path: string, body?: unknown, query?: string): Promise<HttpResult> {
    if (!this.creds) throw new Error('no API key');
    const bodyStr = body === undefined ? undefined : JSON.stringify(body);
    const headers = l2Headers(
      { key: this.creds.apiKey, secret: this.creds.secret, passphrase: this.creds.passphrase },
      this.wallet.address,
      method,
      path,
      bodyStr,
      Math.floor(Date.now() / 1000),
    );
    return this.raw(method, path, {
      ...(bodyStr !== undefined ? { rawBody: bodyStr } : {}),
      headers: { ...headers },
      ...(query ? { query } : {}),
    });
  }

  /** L2-authenticated request with an exact raw body (for malformed-input tests); `base` default the CLOB's. */
  async l2raw(method: string, path: string, rawBody: string, base?: string): Promise<HttpResult> {
    if (!this.creds) throw new Error('no API key');
    const headers = l2Headers(
      { key: this.creds.apiKey, secret: this.creds.secret, passphrase: this.creds.passphrase },
      this.wallet.address,
      method,
      path,
      rawBody,
      Math.floor(Date.now() / 1000),
    );
    return this.raw(method, path, { rawBody, headers: { ...headers }, ...(base !== undefined ? { base } : {}) });
  }

  /** The relayer's base URL (the paper exchange's layout: `/relayer` beside `/clob`). */
  get relayerUrl(): string {
    return this.clobUrl.replace(/\/clob$/, '/relayer');
  }

  /** POST {relayer_url}/submit, L2-authenticated (the path signed is relative to the relayer's base URL). */
  async submit(body: unknown): Promise<HttpResult> {
    return this.l2raw('POST', '/submit', JSON.stringify(body), this.relayerUrl);
  }

  /** A signed order body for POST /order (V1 or V2: `o.protocol`, default the trader's). */
  order(
    tokenId: string,
    side: Side,
    price: string,
    size: string,
    o: OrderOpts = {},
  ): { body: Record<string, unknown>; id: string; struct: SignedOrderStruct | SignedOrderStructV2 } {
    const tick = o.tick ?? '0.01';
    const amounts = o.market ? marketOrderAmounts(side, tick, price, size) : limitOrderAmounts(side, tick, price, size);
    if ((o.protocol ?? this.protocol) === 2) {
      const v2: SignedOrderStructV2 = {
        salt: BigInt(o.salt ?? Date.now() * 1000 + saltSeq++),
        maker: this.wallet.address,
        signer: this.wallet.address,
        tokenId: BigInt(tokenId),
        makerAmount: amounts.makerAmount,
        takerAmount: amounts.takerAmount,
        side: side === 'BUY' ? 0 : 1,
        signatureType: 0,
        timestamp: BigInt(Date.now()),
        metadata: ZERO_BYTES32,
        builder: ZERO_BYTES32,
      };
      const signed = signOrderV2(this.wallet, v2, this.chainId, o.negRisk ?? false);
      return {
        id: signed.digest,
        struct: v2,
        body: {
          order: orderToWireV2(v2, signed.signature, BigInt(o.expiration ?? 0)),
          owner: this.creds?.apiKey ?? '',
          orderType: o.type ?? 'GTC',
          ...(o.postOnly !== undefined ? { postOnly: o.postOnly } : {}),
        },
      };
    }
    const struct: SignedOrderStruct = {
      salt: BigInt(o.salt ?? Date.now() * 1000 + saltSeq++),
      maker: this.wallet.address,
      signer: this.wallet.address,
      taker: '0x0000000000000000000000000000000000000000',
      tokenId: BigInt(tokenId),
      makerAmount: amounts.makerAmount,
      takerAmount: amounts.takerAmount,
      expiration: BigInt(o.expiration ?? 0),
      nonce: 0n,
      feeRateBps: BigInt(o.feeRateBps ?? 0),
      side: side === 'BUY' ? 0 : 1,
      signatureType: 0,
    };
    const { digest, signature } = signOrder(this.wallet, struct, this.chainId, o.negRisk ?? false);
    return {
      id: digest,
      struct,
      body: {
        order: orderToWire(struct, signature),
        owner: this.creds?.apiKey ?? '',
        orderType: o.type ?? 'GTC',
        ...(o.postOnly !== undefined ? { postOnly: o.postOnly } : {}),
      },
    };
  }

  async place(
    tokenId: string,
    side: Side,
    price: string,
    size: string,
    o: OrderOpts = {},
  ): Promise<HttpResult & { id: string }> {
    const { body, id } = this.order(tokenId, side, price, size, o);
    const r = await this.l2('POST', '/order', body);
    return { ...r, id };
  }
}

export interface MarketInfo {
  condition_id: string;
  neg_risk: boolean;
  minimum_tick_size: number;
  minimum_order_size: number;
  tokens: Array<{ token_id: string; outcome: string }>;
}

export async function listMarkets(clobUrl: string): Promise<MarketInfo[]> {
  const out: MarketInfo[] = [];
  let cursor = 'MA==';
  while (cursor !== 'LTE=') {
    const res = await fetch(`${clobUrl}/markets?next_cursor=${encodeURIComponent(cursor)}&limit=100`);
    const page = (await res.json()) as { next_cursor: string; data: MarketInfo[] };
    out.push(...page.data);
    cursor = page.next_cursor;
  }
  return out;
}

export function tickOf(m: MarketInfo): TickSize {
  return String(m.minimum_tick_size) as TickSize;
}
