/**
 * Identifiers. Branded so an order id cannot be passed where a token id is expected.
 * Wire forms: order ids are 0x-prefixed 32-byte hex (the EIP-712 digest of the order); token ids are
 * uint256 decimal strings; condition ids are 0x-prefixed 32-byte hex; addresses are lower-cased here.
 */
import { randomUUID } from 'node:crypto';

declare const brand: unique symbol;
export type Brand<T, B extends string> = T & { readonly [brand]: B };

export type OrderId = Brand<string, 'OrderId'>;
export type TradeId = Brand<string, 'TradeId'>;
export type TokenId = Brand<string, 'TokenId'>;
export type ConditionId = Brand<string, 'ConditionId'>;
export type Address = Brand<string, 'Address'>;

const HEX32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UINT = /^[0-9]{1,78}$/;

export function isHex32(s: unknown): s is string {
  return typeof s === 'string' && HEX32.test(s);
}
export function isAddress(s: unknown): s is string {
  return typeof s === 'string' && ADDRESS.test(s);
}
export function isUintString(s: unknown): s is string {
  return typeof s === 'string' && UINT.test(s);
}
/** Normalise an address to lower case. The caller checks isAddress first. */
export function toAddress(s: string): Address {
  return s.toLowerCase() as Address;
}

/** Random RFC 4122 v4 UUID (API keys, trade ids of the live exchange). */
export function uuid(): string {
  return randomUUID();
}

/**
 * Deterministic UUID-shaped id from a prefix number and a counter: reproducible runs (seeded worlds,
 * property tests) get reproducible ids.
 */
export function sequentialUuid(namespace: number, n: number): string {
  const a = (namespace >>> 0).toString(16).padStart(8, '0');
  const tail = n.toString(16).padStart(12, '0').slice(-12);
  return `${a}-0000-4000-8000-${tail}`;
}

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as Address;
