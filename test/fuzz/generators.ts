/**
 * fast-check generators of the fuzzer's inputs (issue 16). Every HTTP route the app registered
 * (collected with an onRoute hook, so a route added later is fuzzed too) gets requests built from
 * a VALID request of that route, then mutated:
 *  - path parameters: valid ids, slugs and addresses, or nasty strings (encoded or raw);
 *  - query strings: the API's keys with valid or nasty values, unknown keys, repeated keys, `[]`
 *    keys, `__proto__` and `constructor`, huge and unicode values;
 *  - bodies: the route's valid body (a freshly SIGNED order for the order routes, so that the
 *    checks after the signature are reached) with structural mutations (type confusion, missing
 *    and extra fields, deep nesting, huge, negative and exponent numbers, NaN strings,
 *    prototype-pollution keys, oversized arrays) and text mutations (truncation, stray bytes,
 *    duplicate keys, BOM), random JSON, random text, wrong content types, bodies over the limit;
 *  - headers: valid L2 headers computed over exactly what is sent (most authenticated inputs), or
 *    L2 headers with one thing wrong, bearer tokens, L1 headers (valid or not), the admin token,
 *    overlong and random identity headers.
 * WebSocket inputs: the channels' valid messages mutated the same way, random text, pings, binary,
 * invalid UTF-8, oversized frames, fragments, control frames and raw malformed frame bytes.
 */
import fc from 'fast-check';
import secp256k1 from 'secp256k1';
import { orderHasher, type SignedOrderStruct } from '../../src/api/signing/order.ts';
import { ZERO_BYTES32 } from '../../src/api/signing/order-common.ts';
import { orderHasherV2, orderToWireV2, type SignedOrderStructV2 } from '../../src/api/signing/order-v2.ts';
import { AMOUNT_SCALE, LOT_MICRO } from '../../src/core/units.ts';
import {
  l2HeadersFor,
  type FuzzInput,
  type FuzzWorld,
  type HttpInput,
  type RouteRef,
  type WsInput,
} from './harness.ts';
import type { ClientFrame } from './ws-wire.ts';

const ZERO = '0x0000000000000000000000000000000000000000';

/**
 * encodeURIComponent that does not throw: a lone surrogate becomes its 3-byte (CESU-8) form, bytes
 * no UTF-8 decoder accepts, which is what a hostile client may send.
 */
export function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    let out = '';
    for (const ch of s) {
      const c = ch.charCodeAt(0);
      if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff)
        out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
          .map((b) => '%' + b.toString(16).toUpperCase())
          .join('');
      else out += encodeURIComponent(ch);
    }
    return out;
  }
}

// ---- nasty values ---------------------------------------------------------------------------------

/** Strings that break parsers: numbers in every spelling, keywords, encodings, control characters. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '0',
  '-1',
  '-0',
  '1e3',
  '1E-7',
  '1e309',
  '-1e309',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x1f',
  '0b11',
  '0o17',
  '１２３',
  '٣',
  '9007199254740993',
  '123456789012345678901234567890123456789012345678901234567890123456789012345678901',
  '115792089237316195423570985008687907853269984665640564039457584007913129639936',
  '0.5',
  '.5',
  '5.',
  '+5',
  ' 5',
  '5 ',
  '05',
  '1,000',
  '1_000',
  'null',
  'undefined',
  'true',
  'false',
  '[]',
  '{}',
  '[object Object]',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '\u0000',
  'a\u0000b',
  '\r\n',
  '\t',
  '\ud800',
  '\udfff\ud800',
  '\u202e',
  '\ufeff',
  '😀',
  'é',
  'ß',
  'İ',
  '../../etc/passwd',
  '%00',
  '%',
  '%zz',
  '%E0%A4%A',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '$' + '{7*7}',
  '{{7*7}}',
  'MA==',
  'LTE=',
  'LTE',
  'Kw==',
  '!!!',
  'BUY',
  'buy',
  'SELL',
  'GTC',
  'FOK',
  'market',
  'user',
  '0x',
  '0x' + '0'.repeat(40),
  '0x' + 'g'.repeat(40),
  '0x' + 'f'.repeat(64),
  '0x' + 'F'.repeat(130),
];

/** Raw JSON texts put in place of a value (not expressible as a JS value, or not by JSON.stringify). */
const RAW_JSON: readonly string[] = [
  '1e999',
  '-1e999',
  '123456789012345678901234567890',
  '1E2',
  '0.1e1',
  '-0',
  '1e-400',
  '9007199254740993',
  '0.0000001',
  '-1',
  '0',
  '1.5',
  '-5e-324',
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"__proto__":[]}',
  '[{"__proto__":{"polluted":"yes"}}]',
];

const nastyString = fc.constantFrom(...NASTY_STRINGS);
const longString = fc
  .tuple(fc.constantFrom('a', '9', '\u00e9', '😀', '%', '\u0000', ','), fc.constantFrom(101, 129, 1000, 5000, 20_000))
  .map(([c, n]) => c.repeat(n));
const anyText = fc.oneof(
  { arbitrary: fc.string({ maxLength: 30 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 2 },
  { arbitrary: nastyString, weight: 4 },
  { arbitrary: longString, weight: 1 },
);

// ---- structural JSON mutations --------------------------------------------------------------------

const MUT_OPS = [
  'special',
  'raw',
  'delete',
  'addKey',
  'protoKey',
  'wrapArray',
  'toString',
  'toNumber',
  'dup',
  'deep',
  'string',
  'case',
] as const;
type MutOp = (typeof MUT_OPS)[number];

export interface Mutation {
  op: MutOp;
  at: number;
  n: number;
  s: string;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom(...MUT_OPS),
  at: fc.nat(1000),
  n: fc.nat(1000),
  s: anyText,
});

const SPECIAL_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0.0001,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  1e21,
  [],
  {},
  [null],
  [[]],
  '',
  ' ',
  'NaN',
  '-1',
  '1e3',
  '0x10',
  '1e-7',
  'Infinity',
  '115792089237316195423570985008687907853269984665640564039457584007913129639936',
];
const EXTRA_KEYS = ['extra', '', ' ', 'toString', 'valueOf', 'hasOwnProperty', 'order', 'owner', 'type', 'amount'];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
const DEPTHS = [10, 100, 1000, 5000, 10, 100, 1000, 100_000];
const DUPS = [10, 100, 501, 10, 100, 1001, 16, 5000];

/** Placeholder of a raw JSON text inside a value (replaced after JSON.stringify). */
const rawMark = (i: number) => `\u0001RAW${i}\u0001`;
const RAW_RE = /"\\u0001RAW(\d+)\\u0001"/g;

interface Slot {
  parent: Record<string, unknown> | unknown[] | undefined;
  key: string | number;
  value: unknown;
}

function slots(root: unknown): Slot[] {
  const out: Slot[] = [{ parent: undefined, key: 0, value: root }];
  const walk = (v: unknown, depth: number) => {
    if (depth > 6 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v))
      v.forEach((x, i) => {
        out.push({ parent: v, key: i, value: x });
        walk(x, depth + 1);
      });
    else
      for (const [k, x] of Object.entries(v)) {
        out.push({ parent: v as Record<string, unknown>, key: k, value: x });
        walk(x, depth + 1);
      }
  };
  walk(root, 0);
  return out;
}

/** Applies `muts` to `root` (a fresh value, mutated in place); returns the new root and raw texts used. */
export function mutateJson(root: unknown, muts: readonly Mutation[], raws: string[]): unknown {
  let r = root;
  for (const m of muts) {
    const all = slots(r);
    const slot = all[m.at % all.length]!;
    const set = (v: unknown) => {
      if (slot.parent === undefined) r = v;
      else if (Array.isArray(slot.parent)) slot.parent[slot.key as number] = v;
      else
        Object.defineProperty(slot.parent, slot.key, {
          value: v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    };
    const raw = (text: string) => {
      raws.push(text);
      return rawMark(raws.length - 1);
    };
    const v = slot.value;
    switch (m.op) {
      case 'special':
        set(structuredCloneSafe(SPECIAL_VALUES[m.n % SPECIAL_VALUES.length]));
        break;
      case 'raw':
        set(raw(RAW_JSON[m.n % RAW_JSON.length]!));
        break;
      case 'delete':
        if (slot.parent === undefined) r = undefined;
        else if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
        else delete slot.parent[slot.key as string];
        break;
      case 'addKey':
      case 'protoKey': {
        if (v === null || typeof v !== 'object' || Array.isArray(v)) {
          set(m.s);
          break;
        }
        const key =
          m.op === 'protoKey'
            ? PROTO_KEYS[m.n % PROTO_KEYS.length]!
            : m.n % 3 === 0
              ? m.s
              : EXTRA_KEYS[m.n % EXTRA_KEYS.length]!;
        const val =
          m.op === 'protoKey' ? { polluted: 'yes', isAdmin: true } : SPECIAL_VALUES[m.n % SPECIAL_VALUES.length];
        Object.defineProperty(v, key, {
          value: structuredCloneSafe(val),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        break;
      }
      case 'wrapArray':
        set([v]);
        break;
      case 'toString':
        set(typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'));
        break;
      case 'toNumber':
        set(typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : m.n - 500);
        break;
      case 'dup':
        {
          // copies (not shared references: a later mutation changes one) of at most ~300 kB, in a
          // value of at most ~200 kB
          if ((JSON.stringify(r) ?? '').length > 200_000) break;
          const first = Array.isArray(v) ? v[0] : v;
          const size = (JSON.stringify(first) ?? 'null').length + 1;
          const want = DUPS[m.n % DUPS.length]!;
          const n = Math.min(want, Math.max(2, Math.floor((want === 5000 ? 300_000 : 60_000) / size)));
          if (Array.isArray(v) && v.length > 0) while (v.length < n) v.push(structuredCloneSafe(first));
          else set(Array.from({ length: n }, () => structuredCloneSafe(v ?? null)));
        }
        break;
      case 'deep': {
        const d = DEPTHS[m.n % DEPTHS.length]!;
        set(raw(m.n % 2 === 0 ? '['.repeat(d) + ']'.repeat(d) : '{"a":'.repeat(d) + '1' + '}'.repeat(d)));
        break;
      }
      case 'string':
        set(m.s);
        break;
      case 'case':
        set(typeof v === 'string' ? (m.n % 2 === 0 ? v.toLowerCase() : v.toUpperCase() + ' ') : v);
        break;
    }
  }
  return r;
}

function structuredCloneSafe<T>(v: T): T {
  return v === null || typeof v !== 'object' ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** JSON text of a mutated value, raw texts put back in place. */
export function serialize(v: unknown, raws: readonly string[]): string {
  const s = JSON.stringify(v);
  if (s === undefined) return '';
  if (raws.length === 0) return s;
  // raw texts copied by a 'dup' are put back while the text stays under ~2 MB
  let total = s.length;
  return s.replace(RAW_RE, (_, i: string) => {
    const r = raws[Number(i)] ?? 'null';
    if (total + r.length > 400_000) return 'null';
    total += r.length;
    return r;
  });
}

const TEXT_OPS = ['truncate', 'insert', 'remove', 'bom', 'trail', 'dupkey', 'nan', 'lead'] as const;
interface TextMut {
  op: (typeof TEXT_OPS)[number];
  at: number;
  c: string;
}
const textMutArb: fc.Arbitrary<TextMut> = fc.record({
  op: fc.constantFrom(...TEXT_OPS),
  at: fc.nat(100_000),
  c: fc.constantFrom('"', '{', '}', '[', ']', ',', ':', '\\', '\u0000', '\ud800', ' ', '\n', 'ÿ', 'x', '1', 'e'),
});

function mutateText(s: string, muts: readonly TextMut[]): string {
  let t = s;
  for (const m of muts) {
    const p = t.length === 0 ? 0 : m.at % (t.length + 1);
    switch (m.op) {
      case 'truncate':
        t = t.slice(0, p);
        break;
      case 'insert':
        t = t.slice(0, p) + m.c + t.slice(p);
        break;
      case 'remove':
        t = t.slice(0, p) + t.slice(p + 1);
        break;
      case 'bom':
        t = '\ufeff' + t;
        break;
      case 'trail':
        t = t + m.c;
        break;
      case 'lead':
        t = m.c + t;
        break;
      case 'dupkey': {
        // a key repeated: JSON.parse keeps the last one
        const k = /"([^"\\]{1,40})":/.exec(t);
        const i = t.indexOf('{');
        if (k && i >= 0) t = t.slice(0, i + 1) + `"${k[1]}":${m.at % 2 === 0 ? 'null' : '"x"'},` + t.slice(i + 1);
        break;
      }
      case 'nan':
        t = t.replace(/-?\d+(\.\d+)?/, m.at % 2 === 0 ? 'NaN' : 'Infinity');
        break;
    }
  }
  return t;
}

const JSON_VALUE = fc.jsonValue({ maxDepth: 2 });

/** A body text: the template mutated (mostly), or random JSON or text. */
function bodyText(template: fc.Arbitrary<unknown>, cleanWeight = 3): fc.Arbitrary<string | undefined> {
  const mutated = fc
    .tuple(
      template,
      fc.oneof(
        { arbitrary: fc.constant([] as Mutation[]), weight: cleanWeight },
        { arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 3 }), weight: 6 },
      ),
      fc.oneof(
        { arbitrary: fc.constant([] as TextMut[]), weight: 9 },
        { arbitrary: fc.array(textMutArb, { minLength: 1, maxLength: 2 }), weight: 1 },
      ),
    )
    .map(([v, muts, tmuts]) => {
      const raws: string[] = [];
      const m = mutateJson(v, muts, raws);
      return mutateText(m === undefined ? '' : serialize(m, raws), tmuts);
    });
  return fc.oneof(
    { arbitrary: mutated, weight: 85 },
    { arbitrary: JSON_VALUE.map((v) => JSON.stringify(v) ?? 'null'), weight: 5 },
    { arbitrary: anyText, weight: 5 },
    { arbitrary: fc.constant(undefined), weight: 4 },
    // over the body limit (256 KiB)
    { arbitrary: fc.constantFrom('"' + 'x'.repeat(300_000) + '"', '[' + '1,'.repeat(140_000) + '1]'), weight: 1 },
  );
}

// ---- values by kind -------------------------------------------------------------------------------

export type ValueKind =
  | 'token'
  | 'tokens'
  | 'cid'
  | 'cids'
  | 'sacrificial'
  | 'orderId'
  | 'tradeId'
  | 'txId'
  | 'address'
  | 'apiKey'
  | 'eventRef'
  | 'marketRef'
  | 'marketSlug'
  | 'tagRef'
  | 'articleRef'
  | 'commentId'
  | 'seriesSlug'
  | 'int'
  | 'limit'
  | 'offset'
  | 'cursor'
  | 'side'
  | 'bool'
  | 'interval'
  | 'search'
  | 'assetType'
  | 'seconds'
  | 'role'
  | 'entityType'
  | 'activityType'
  | 'date'
  | 'decimal'
  | 'faultId'
  | 'any';

/** A value of a kind, chosen by `n` among the valid ones (dynamic kinds read the exchange now). */
function valueFor(w: FuzzWorld, kind: ValueKind, n: number, trader: number): string {
  const pick = (xs: readonly string[]) => (xs.length === 0 ? '' : xs[n % xs.length]!);
  const p = w.pools;
  switch (kind) {
    case 'token':
      return n % 3 === 0 ? pick(p['token']!) : pick(p['coreToken']!);
    case 'tokens':
      return [pick(p['coreToken']!), pick(p['token']!.slice(n % 7))].join(',');
    case 'cid':
      return n % 5 === 0
        ? pick(p['cid']!).toUpperCase().replace('0X', '0x')
        : n % 2
          ? pick(p['coreCid']!)
          : pick(p['cid']!);
    case 'cids':
      return [pick(p['coreCid']!), pick(p['cid']!)].join(',');
    case 'sacrificial':
      return pick(p['sacrificial']!);
    case 'orderId': {
      const live = w.liveOrders(trader);
      if (n % 4 !== 3 && live.length > 0) return pick(live);
      const other = w.liveOrders((trader + 1) % w.traders.length);
      if (n % 2 === 0 && other.length > 0) return pick(other);
      return pick(w.knownOrders());
    }
    case 'tradeId':
      return pick(w.tradeIds()) || 'no-trade';
    case 'txId':
      return pick(w.relayerTxIds()) || '0xdeadbeef';
    case 'address':
      return n % 4 === 3 ? pick(p['profile']!) : n % 7 === 6 ? pick(p['house']!) : pick(p['trader']!);
    case 'apiKey':
      return pick(p['apiKey']!);
    case 'eventRef':
      return n % 2 ? pick(p['eventSlug']!) : pick(p['eventId']!);
    case 'marketRef':
      return n % 2 ? pick(p['marketSlug']!) : pick(p['cid']!);
    case 'marketSlug':
      return pick(p['marketSlug']!);
    case 'tagRef':
      return n % 3 === 0 ? pick(p['tagId']!) : n % 3 === 1 ? pick(p['tagSlug']!) : pick(p['tagLabel']!);
    case 'articleRef':
      return n % 2 ? pick(p['articleSlug']!) : pick(p['articleId']!);
    case 'commentId':
      return pick(p['commentId']!);
    case 'seriesSlug':
      return pick(p['seriesSlug']!);
    case 'int':
      return String([0, 1, 2, 5, 10, 60, 100, 1440, 43_200, 99_999][n % 10]);
    case 'limit':
      return String([1, 2, 5, 10, 50, 100, 500, 501, 1000, 1001][n % 10]);
    case 'offset':
      return String([0, 1, 2, 10, 45, 100, 1000, 999_999_999][n % 8]);
    case 'cursor':
      return ['MA==', 'LTE=', 'MQ==', 'MTA=', 'NDU=', Buffer.from(String(n)).toString('base64')][n % 6]!;
    case 'side':
      return ['BUY', 'SELL', 'buy', 'sell'][n % 4]!;
    case 'bool':
      return ['true', 'false', '1', '0'][n % 4]!;
    case 'interval':
      return ['max', '1m', '1h', '6h', '1d', '1w', 'all'][n % 7]!;
    case 'search':
      return ['a', 'will', 'bitcoin', 'crypto', 'election', 'x'.repeat(100), 'x'.repeat(101)][n % 7]!;
    case 'assetType':
      return ['COLLATERAL', 'CONDITIONAL', 'collateral'][n % 3]!;
    case 'seconds':
      return String([0, w.nowSec - 86_400, w.nowSec, w.nowSec + 3600, 999_999_999_999][n % 5]);
    case 'role':
      return ['MAKER', 'TAKER', 'maker'][n % 3]!;
    case 'entityType':
      return ['Event', 'Market', 'event', 'MARKET'][n % 4]!;
    case 'activityType':
      return ['TRADE', 'SPLIT', 'MERGE', 'REDEEM', 'CONVERSION', 'REWARD', 'TRADE,SPLIT'][n % 7]!;
    case 'decimal':
      return ['0', '1', '0.5', '10.25', '100', '1000000'][n % 6]!;
    case 'faultId':
      return ['f1', 'rule-1', '1'][n % 3]!;
    case 'date':
      return [new Date(w.nowSec * 1000).toISOString().slice(0, 10), '2026-01-01', '2026-02-30', '01-01-2026'][n % 4]!;
    case 'any':
      return pick([...p['coreToken']!, ...p['coreCid']!, ...p['eventSlug']!.slice(0, 3), ...p['trader']!]);
  }
}

/** A value of a kind: valid mostly, nasty or random otherwise. */
const valueArbCache = new Map<ValueKind, fc.Arbitrary<ValuePlan>>();
function valueArb(kind: ValueKind): fc.Arbitrary<ValuePlan> {
  let a = valueArbCache.get(kind);
  if (a === undefined) valueArbCache.set(kind, (a = valueArbOf(kind)));
  return a;
}
function valueArbOf(kind: ValueKind): fc.Arbitrary<ValuePlan> {
  return fc.oneof(
    { arbitrary: fc.record({ k: fc.constant('valid' as const), kind: fc.constant(kind), n: fc.nat(1000) }), weight: 7 },
    { arbitrary: fc.record({ k: fc.constant('nasty' as const), s: anyText }), weight: 3 },
  );
}
type ValuePlan = { k: 'valid'; kind: ValueKind; n: number } | { k: 'nasty'; s: string };
const planValue = (w: FuzzWorld, p: ValuePlan, trader: number) =>
  p.k === 'valid' ? valueFor(w, p.kind, p.n, trader) : p.s;

// ---- routes ---------------------------------------------------------------------------------------

type AuthKind = 'public' | 'l2' | 'l1' | 'admin' | 'any';

interface RouteSpec {
  auth: AuthKind;
  weight: number;
  params: Record<string, ValueKind>;
  body?: (w: FuzzWorld) => fc.Arbitrary<unknown>;
}

const QUERY_KEYS: Record<string, Array<[string, ValueKind]>> = {
  '/clob': [
    ['token_id', 'token'],
    ['token_ids', 'tokens'],
    ['condition_id', 'cid'],
    ['market', 'cid'],
    ['asset_id', 'token'],
    ['id', 'orderId'],
    ['orderID', 'orderId'],
    ['side', 'side'],
    ['limit', 'limit'],
    ['offset', 'offset'],
    ['next_cursor', 'cursor'],
    ['before', 'seconds'],
    ['after', 'seconds'],
    ['maker_address', 'address'],
    ['asset_type', 'assetType'],
    ['order_id', 'orderId'],
    ['order_ids', 'any'],
    ['date', 'date'],
    ['signature_type', 'int'],
    ['page_size', 'limit'],
    ['order_by', 'any'],
    ['position', 'any'],
    ['no_competition', 'bool'],
    ['q', 'search'],
  ],
  '/gamma': [
    ['limit', 'limit'],
    ['offset', 'offset'],
    ['next_cursor', 'cursor'],
    ['slug', 'eventRef'],
    ['tag', 'tagRef'],
    ['tag_id', 'tagRef'],
    ['tag_slug', 'tagRef'],
    ['active', 'bool'],
    ['closed', 'bool'],
    ['archived', 'bool'],
    ['order', 'any'],
    ['ascending', 'bool'],
    ['condition_ids', 'cids'],
    ['clob_token_ids', 'tokens'],
    ['id', 'eventRef'],
    ['q', 'search'],
    ['parent_entity_type', 'entityType'],
    ['parent_entity_id', 'eventRef'],
    ['parentEntityID', 'marketRef'],
    ['user', 'address'],
    ['category', 'tagRef'],
  ],
  '/data': [
    ['user', 'address'],
    ['market', 'cid'],
    ['asset', 'token'],
    ['asset_id', 'token'],
    ['token_id', 'token'],
    ['side', 'side'],
    ['role', 'role'],
    ['limit', 'limit'],
    ['offset', 'offset'],
    ['next_cursor', 'cursor'],
    ['interval', 'interval'],
    ['fidelity', 'int'],
    ['startTs', 'seconds'],
    ['endTs', 'seconds'],
    ['start', 'seconds'],
    ['end', 'seconds'],
    ['sizeThreshold', 'decimal'],
    ['history', 'bool'],
    ['takerOnly', 'bool'],
    ['type', 'activityType'],
    ['event_id', 'eventRef'],
    ['markSource', 'any'],
    ['tag', 'tagRef'],
  ],
  '/content': [
    ['tag', 'tagRef'],
    ['event_id', 'eventRef'],
    ['limit', 'limit'],
    ['offset', 'offset'],
    ['next_cursor', 'cursor'],
  ],
  '/relayer': [['id', 'txId']],
  '/admin': [['x', 'any']],
};

/** The L2 routes of the CLOB (the rest of it is public, but for the two L1 routes). */
const CLOB_L2 = new Set([
  'GET /auth/api-key',
  'DELETE /auth/api-key',
  'GET /notifications',
  'DELETE /notifications',
  'GET /auth/ban-status/closed-only',
  'GET /auth/api-keys',
  'POST /order',
  'POST /orders',
  'DELETE /order',
  'DELETE /orders',
  'DELETE /cancel-all',
  'DELETE /cancel-market-orders',
  'GET /data/order/:id',
  'GET /order',
  'GET /data/orders',
  'GET /orders',
  'GET /data/trades',
  'GET /trades',
  'GET /balances',
  'GET /positions',
  'GET /balance-allowance',
  'GET /balance-allowance/update',
  'POST /v1/heartbeats',
  'POST /heartbeats',
  'GET /order-scoring',
  'POST /orders-scoring',
  'GET /orders-scoring',
  'GET /rewards/user',
  'GET /rewards/user/total',
  'GET /rewards/user/percentages',
  'GET /rewards/user/markets',
]);
const CLOB_L1 = new Set(['POST /auth/api-key', 'GET /auth/derive-api-key']);

const PARAM_KINDS: Record<string, ValueKind> = {
  'GET /clob/markets/:condition_id': 'cid',
  'GET /clob/data/order/:id': 'orderId',
  'GET /gamma/events/:slug': 'eventRef',
  'GET /gamma/events/slug/:slug': 'eventRef',
  'GET /gamma/markets/:id': 'marketRef',
  'GET /gamma/markets/slug/:slug': 'marketSlug',
  'GET /gamma/profiles/:address': 'address',
  'GET /gamma/tags/:id': 'tagRef',
  'GET /content/articles/:id': 'articleRef',
  'GET /data/builders/:api_key': 'any',
  'GET /data/builders/:api_key/volume': 'any',
  'DELETE /admin/faults/:id': 'faultId',
};
const PARAM_BY_NAME: Record<string, ValueKind> = {
  address: 'address',
  cid: 'sacrificial',
  condition_id: 'cid',
  id: 'any',
  slug: 'eventRef',
  api_key: 'apiKey',
};

function specOf(r: RouteRef): RouteSpec {
  const api = API_OF(r.url);
  const rel = r.url.slice(api.length) || '/';
  const key = `${r.method} ${rel}`;
  const full = `${r.method} ${r.url}`;
  let auth: AuthKind = 'any';
  if (api === '/clob') auth = CLOB_L2.has(key) ? 'l2' : CLOB_L1.has(key) ? 'l1' : 'public';
  else if (api === '/gamma' || api === '/data' || api === '/content')
    auth = full === 'POST /gamma/comments' ? 'l2' : 'public';
  else if (api === '/relayer') auth = rel === '/submit' ? 'l2' : 'public';
  else if (api === '/admin') auth = 'admin';
  const params: Record<string, ValueKind> = {};
  for (const m of r.url.matchAll(/:([A-Za-z_]+)/g)) params[m[1]!] = PARAM_KINDS[full] ?? PARAM_BY_NAME[m[1]!] ?? 'any';
  const body = BODIES[full];
  let weight = 10;
  if (r.method === 'HEAD') weight = 2;
  if (body !== undefined) weight = 20;
  if (full === 'POST /clob/order') weight = 90;
  if (full === 'POST /clob/orders') weight = 30;
  if (full === 'DELETE /clob/cancel-all') weight = 8;
  if (api === '/admin') weight = Math.min(weight, 6);
  return { auth, weight, params, ...(body !== undefined ? { body } : {}) };
}

const API_OF = (url: string): string => {
  for (const p of ['/clob', '/gamma', '/data', '/content', '/relayer', '/admin'])
    if (url === p || url.startsWith(p + '/')) return p;
  return '';
};

// ---- bodies ---------------------------------------------------------------------------------------

const tokenList = (w: FuzzWorld) =>
  fc
    .array(fc.record({ n: fc.nat(1000), side: fc.option(fc.constantFrom('BUY', 'SELL'), { nil: undefined }) }), {
      minLength: 1,
      maxLength: 4,
    })
    .map((xs) =>
      xs.map((x) => ({ token_id: valueFor(w, 'token', x.n, 0), ...(x.side !== undefined ? { side: x.side } : {}) })),
    );

interface OrderPlan {
  /** The order's protocol: the exchange speaks V2 (a V1 order is refused order_version_mismatch). */
  version: 1 | 2;
  trader: number;
  signer: 'self' | 'other';
  maker: 'self' | 'proxy' | 'safe' | 'other' | 'random';
  sigType: 0 | 1 | 2;
  market: number;
  outcome: 0 | 1;
  side: 0 | 1;
  price: number; // in ticks
  lots: number;
  amounts: 'limit' | 'raw' | 'zero' | 'huge';
  rawMaker: bigint;
  rawTaker: bigint;
  expiration: 'zero' | 'past' | 'future' | 'near' | 'huge';
  fee: 'zero' | 'bad' | 'max';
  taker: 'zero' | 'other';
  token: 'core' | 'unknown';
  domain: 'right' | 'wrong';
  salt: number;
  sig: 'ok' | 'flip' | 'highs' | 'v' | 'short' | 'zero';
  orderType: string;
  postOnly: boolean | undefined | string;
  owner: 'self' | 'other' | 'garbage';
  builder: string | undefined;
}

/** An order plan with every choice valid: such an order verifies and is admitted (balance allowing). */
const cleanOrderPlan = (w: FuzzWorld): fc.Arbitrary<OrderPlan> =>
  fc.record({
    version: fc.constant(2 as const),
    trader: fc.nat(w.traders.length - 1),
    signer: fc.constant<OrderPlan['signer']>('self'),
    maker: fc.constant<OrderPlan['maker']>('self'),
    sigType: fc.constant(0 as const),
    market: fc.nat(w.core.length - 1),
    outcome: fc.constantFrom(0 as const, 1 as const),
    side: fc.constantFrom(0 as const, 1 as const),
    price: fc.integer({ min: 30, max: 70 }),
    lots: fc.integer({ min: 500, max: 5000 }),
    amounts: fc.constant<OrderPlan['amounts']>('limit'),
    rawMaker: fc.constant(0n),
    rawTaker: fc.constant(0n),
    expiration: fc.constant<OrderPlan['expiration']>('zero'),
    fee: fc.constant<OrderPlan['fee']>('zero'),
    taker: fc.constant<OrderPlan['taker']>('zero'),
    token: fc.constant<OrderPlan['token']>('core'),
    domain: fc.constant<OrderPlan['domain']>('right'),
    salt: fc.nat(),
    sig: fc.constant<OrderPlan['sig']>('ok'),
    orderType: fc.constantFrom('GTC', 'GTC', 'GTC', 'FAK', 'FOK'),
    postOnly: fc.constantFrom(undefined, false, true),
    owner: fc.constant<OrderPlan['owner']>('self'),
    builder: fc.constantFrom(undefined, 'builder-1'),
  });

/** An order plan: clean (admitted) or with some choices spoiled (refused after the signature, or by it). */
const orderPlan = (w: FuzzWorld): fc.Arbitrary<OrderPlan> =>
  fc.oneof({ arbitrary: cleanOrderPlan(w), weight: 4 }, { arbitrary: messyOrderPlan(w), weight: 6 });

const messyOrderPlan = (w: FuzzWorld): fc.Arbitrary<OrderPlan> =>
  fc.record({
    version: fc.oneof(
      { arbitrary: fc.constant(2 as const), weight: 9 },
      { arbitrary: fc.constant(1 as const), weight: 1 },
    ),
    trader: fc.nat(w.traders.length - 1),
    signer: fc.constantFrom<OrderPlan['signer']>(
      ...(['self', 'self', 'self', 'self', 'self', 'self', 'self', 'self', 'self', 'other'] as const),
    ),
    maker: fc.oneof(
      { arbitrary: fc.constant<OrderPlan['maker']>('self'), weight: 16 },
      { arbitrary: fc.constantFrom<OrderPlan['maker']>('proxy', 'safe', 'other', 'random'), weight: 4 },
    ),
    sigType: fc.oneof(
      { arbitrary: fc.constant(0 as const), weight: 8 },
      { arbitrary: fc.constantFrom(1 as const, 2 as const), weight: 2 },
    ),
    market: fc.nat(w.core.length - 1),
    outcome: fc.constantFrom(0 as const, 1 as const),
    side: fc.constantFrom(0 as const, 1 as const),
    price: fc.oneof(
      { arbitrary: fc.integer({ min: 30, max: 70 }), weight: 8 },
      { arbitrary: fc.integer({ min: 0, max: 101 }), weight: 2 },
    ),
    lots: fc.oneof(
      { arbitrary: fc.integer({ min: 500, max: 5000 }), weight: 8 },
      { arbitrary: fc.constantFrom(0, 1, 99, 499, 10_000_000, 50_000_001), weight: 2 },
    ),
    amounts: fc.oneof(
      { arbitrary: fc.constant<OrderPlan['amounts']>('limit'), weight: 17 },
      { arbitrary: fc.constantFrom<OrderPlan['amounts']>('raw', 'zero', 'huge'), weight: 3 },
    ),
    rawMaker: fc.bigInt({ min: 0n, max: 2n ** 70n }),
    rawTaker: fc.bigInt({ min: 0n, max: 2n ** 70n }),
    expiration: fc.oneof(
      { arbitrary: fc.constant<OrderPlan['expiration']>('zero'), weight: 8 },
      { arbitrary: fc.constantFrom<OrderPlan['expiration']>('past', 'future', 'near', 'huge'), weight: 2 },
    ),
    fee: fc.oneof(
      { arbitrary: fc.constant<OrderPlan['fee']>('zero'), weight: 9 },
      { arbitrary: fc.constantFrom<OrderPlan['fee']>('bad', 'max'), weight: 1 },
    ),
    taker: fc.oneof(
      { arbitrary: fc.constant<OrderPlan['taker']>('zero'), weight: 19 },
      { arbitrary: fc.constant<OrderPlan['taker']>('other'), weight: 1 },
    ),
    token: fc.oneof(
      { arbitrary: fc.constant<OrderPlan['token']>('core'), weight: 19 },
      { arbitrary: fc.constant<OrderPlan['token']>('unknown'), weight: 1 },
    ),
    domain: fc.oneof(
      { arbitrary: fc.constant<OrderPlan['domain']>('right'), weight: 19 },
      { arbitrary: fc.constant<OrderPlan['domain']>('wrong'), weight: 1 },
    ),
    salt: fc.nat(),
    sig: fc.oneof(
      { arbitrary: fc.constant<OrderPlan['sig']>('ok'), weight: 18 },
      { arbitrary: fc.constantFrom<OrderPlan['sig']>('flip', 'highs', 'v', 'short', 'zero'), weight: 2 },
    ),
    orderType: fc.oneof(
      { arbitrary: fc.constantFrom('GTC', 'GTC', 'GTC', 'GTD', 'FOK', 'FAK'), weight: 19 },
      { arbitrary: fc.constantFrom('gtc', 'IOC', '', 'GTC '), weight: 1 },
    ),
    postOnly: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 6 },
      { arbitrary: fc.boolean(), weight: 3 },
      { arbitrary: fc.constant('true'), weight: 1 },
    ),
    owner: fc.oneof(
      { arbitrary: fc.constant<OrderPlan['owner']>('self'), weight: 18 },
      { arbitrary: fc.constantFrom<OrderPlan['owner']>('other', 'garbage'), weight: 2 },
    ),
    builder: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 8 },
      { arbitrary: fc.constantFrom('builder-1', 'b'.repeat(101), ''), weight: 2 },
    ),
  });

const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** A signed order body (POST /order) of a plan: signed with the plan's wallet, so it verifies unless the plan spoils it. */
export function orderBody(w: FuzzWorld, p: OrderPlan): Record<string, unknown> {
  const t = w.traders[p.trader]!;
  const signer = p.signer === 'self' ? t : w.traders[(p.trader + 1) % w.traders.length]!;
  const m = w.core[p.market]!;
  const tokenId = p.token === 'core' ? m.tokens[p.outcome] : '12345678901234567890';
  const makerAddr =
    p.maker === 'self'
      ? t.checksum
      : p.maker === 'proxy'
        ? t.proxy
        : p.maker === 'safe'
          ? t.safe
          : p.maker === 'other'
            ? w.traders[(p.trader + 1) % w.traders.length]!.checksum
            : '0x' + (p.salt % 2 ** 31).toString(16).padStart(40, '7');
  const sigType = p.maker === 'proxy' ? 1 : p.maker === 'safe' ? 2 : p.sigType;
  const pricePips = Math.max(0, Math.min(10_000, p.price * 100));
  const shares = BigInt(p.lots) * BigInt(LOT_MICRO);
  const value = (shares * BigInt(pricePips)) / 10_000n;
  let makerAmount: bigint;
  let takerAmount: bigint;
  if (p.amounts === 'limit') {
    makerAmount = p.side === 0 ? value : shares;
    takerAmount = p.side === 0 ? shares : value;
  } else if (p.amounts === 'raw') {
    makerAmount = p.rawMaker;
    takerAmount = p.rawTaker;
  } else if (p.amounts === 'zero') {
    makerAmount = 0n;
    takerAmount = shares;
  } else {
    makerAmount = 2n ** 255n + p.rawMaker;
    takerAmount = BigInt(1_000_000 * AMOUNT_SCALE);
  }
  const expiration =
    p.expiration === 'zero' && p.orderType === 'GTD' && p.salt % 4 !== 0
      ? BigInt(w.nowSec + 7200)
      : p.expiration === 'zero'
        ? 0n
        : p.expiration === 'past'
          ? BigInt(w.nowSec - 100)
          : p.expiration === 'future'
            ? BigInt(w.nowSec + 3600)
            : p.expiration === 'near'
              ? BigInt(w.nowSec + 30)
              : 2n ** 64n;
  const o: SignedOrderStruct = {
    salt: BigInt(p.salt),
    maker: makerAddr,
    signer: t.checksum,
    taker: p.taker === 'zero' ? ZERO : w.traders[(p.trader + 2) % w.traders.length]!.checksum,
    tokenId: BigInt(tokenId),
    makerAmount,
    takerAmount,
    expiration,
    nonce: 0n,
    feeRateBps: p.fee === 'zero' ? 0n : p.fee === 'bad' ? 10_001n : 10_000n,
    side: p.side,
    signatureType: sigType as 0 | 1 | 2,
  };
  const negRisk = p.domain === 'right' ? m.negRisk : !m.negRisk;
  const o2: SignedOrderStructV2 = {
    salt: o.salt,
    maker: o.maker,
    signer: o.signer,
    tokenId: o.tokenId,
    makerAmount: o.makerAmount,
    takerAmount: o.takerAmount,
    side: o.side,
    signatureType: o.signatureType,
    timestamp: BigInt(w.nowSec) * 1000n - BigInt(p.salt % 60_000),
    metadata: ZERO_BYTES32,
    builder: ZERO_BYTES32,
  };
  const digest = Buffer.from(
    (p.version === 2 ? orderHasherV2(137, negRisk).digest(o2) : orderHasher(137, negRisk).digest(o)).slice(2),
    'hex',
  );
  const sig = secp256k1.ecdsaSign(digest, signer.priv);
  let r = Buffer.from(sig.signature.subarray(0, 32)).toString('hex');
  let s = Buffer.from(sig.signature.subarray(32)).toString('hex');
  let v = (sig.recid + 27).toString(16);
  if (p.sig === 'flip') r = (r[0] === 'f' ? '0' : 'f') + r.slice(1);
  else if (p.sig === 'highs') {
    s = (N - BigInt('0x' + s)).toString(16).padStart(64, '0');
    v = v === '1b' ? '1c' : '1b';
  } else if (p.sig === 'v') v = '1d';
  else if (p.sig === 'zero') r = '0'.repeat(64);
  let signature = `0x${r}${s}${v}`;
  if (p.sig === 'short') signature = signature.slice(0, 100);
  void HALF_N;
  // V2: the public client's wire (no taker, nonce or feeRateBps; a spoiled plan adds V1's fields back)
  const orderV2 = (): Record<string, unknown> => ({
    ...orderToWireV2(o2, signature, o.expiration),
    ...(p.taker !== 'zero' ? { taker: o.taker } : {}),
    ...(p.fee === 'bad' ? { feeRateBps: o.feeRateBps.toString(), nonce: '0' } : {}),
  });
  return {
    order:
      p.version === 2
        ? orderV2()
        : {
            salt: p.salt,
            maker: o.maker,
            signer: o.signer,
            taker: o.taker,
            tokenId: o.tokenId.toString(),
            makerAmount: o.makerAmount.toString(),
            takerAmount: o.takerAmount.toString(),
            side: p.side === 0 ? 'BUY' : 'SELL',
            expiration: o.expiration.toString(),
            nonce: '0',
            feeRateBps: o.feeRateBps.toString(),
            signatureType: sigType,
            signature,
          },
    owner:
      p.owner === 'self'
        ? t.creds.apiKey
        : p.owner === 'other'
          ? w.traders[(p.trader + 1) % w.traders.length]!.creds.apiKey
          : 'owner-' + p.salt,
    orderType: p.orderType,
    ...(p.postOnly !== undefined ? { postOnly: p.postOnly } : {}),
    ...(p.builder !== undefined ? { builder: p.builder } : {}),
  };
}

/** Bodies of an order for the trader who signs the request (`x-fuzz-trader` picks the same one). */
const orderBodyArb = (w: FuzzWorld) => orderPlan(w).map((p) => ({ __trader: p.trader, ...orderBody(w, p) }));

const BODIES: Record<string, (w: FuzzWorld) => fc.Arbitrary<unknown>> = {
  'POST /clob/books': tokenList,
  'POST /clob/midpoints': tokenList,
  'POST /clob/prices': tokenList,
  'POST /clob/spreads': tokenList,
  'POST /clob/last-trades-prices': tokenList,
  'POST /clob/order': orderBodyArb,
  'POST /clob/orders': (w) =>
    fc
      .tuple(fc.nat(w.traders.length - 1), fc.array(orderPlan(w), { minLength: 1, maxLength: 4 }))
      .map(([tr, plans]) => ({ __trader: tr, __list: plans.map((p) => orderBody(w, { ...p, trader: tr })) })),
  'DELETE /clob/order': (w) =>
    fc
      .record({ tr: fc.nat(w.traders.length - 1), n: fc.nat(1000) })
      .map(({ tr, n }) => ({ __trader: tr, orderID: valueFor(w, 'orderId', n, tr) })),
  'DELETE /clob/orders': (w) =>
    fc
      .record({ tr: fc.nat(w.traders.length - 1), ns: fc.array(fc.nat(1000), { maxLength: 4 }) })
      .map(({ tr, ns }) => ({ __trader: tr, __list: ns.map((n) => valueFor(w, 'orderId', n, tr)) })),
  'POST /clob/orders-scoring': (w) =>
    fc
      .record({ tr: fc.nat(w.traders.length - 1), ns: fc.array(fc.nat(1000), { maxLength: 4 }) })
      .map(({ tr, ns }) => ({ __trader: tr, __list: ns.map((n) => valueFor(w, 'orderId', n, tr)) })),
  'DELETE /clob/cancel-market-orders': (w) =>
    fc
      .record({ a: fc.nat(1000), b: fc.nat(3) })
      .map(({ a, b }) =>
        b === 0
          ? {}
          : b === 1
            ? { market: valueFor(w, 'cid', a, 0) }
            : b === 2
              ? { asset_id: valueFor(w, 'token', a, 0) }
              : null,
      ),
  'POST /clob/heartbeats': () =>
    fc.option(fc.record({ heartbeat_id: fc.option(fc.string({ maxLength: 40 }), { nil: null }) }), { nil: null }),
  'POST /clob/v1/heartbeats': () =>
    fc.option(fc.record({ heartbeat_id: fc.option(fc.string({ maxLength: 40 }), { nil: null }) }), { nil: null }),
  'POST /gamma/comments': (w) =>
    fc
      .record({
        n: fc.nat(1000),
        ev: fc.boolean(),
        body: fc.oneof(fc.string({ minLength: 1, maxLength: 60 }), fc.constant('x'.repeat(2001))),
        reply: fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: fc.nat(1000), weight: 1 }),
      })
      .map(({ n, ev, body, reply }) => ({
        body,
        parentEntityType: ev ? 'Event' : 'Market',
        parentEntityID: ev ? valueFor(w, 'eventRef', n * 2, 0) : valueFor(w, 'cid', n, 0),
        ...(reply !== undefined ? { replyTo: valueFor(w, 'commentId', reply, 0) } : {}),
      })),
  'POST /relayer/submit': (w) =>
    fc
      .record({
        type: fc.constantFrom('SPLIT', 'MERGE', 'REDEEM', 'CONVERT'),
        n: fc.nat(1000),
        amount: fc.constantFrom('1', '0.5', '10', '0.000001', '1000000000', '0', '1.1234567', '-1', undefined),
        many: fc.boolean(),
      })
      .map(({ type, n, amount, many }) => ({
        type,
        ...(type === 'CONVERT' && many
          ? { conditionIds: [valueFor(w, 'cid', n, 0), valueFor(w, 'cid', n + 1, 0)] }
          : { conditionId: valueFor(w, 'cid', n, 0) }),
        ...(amount !== undefined ? { amount } : {}),
      })),
  'POST /admin/balances': (w) =>
    fc
      .record({ n: fc.nat(1000), c: fc.constantFrom('0', '100', '1e3', '-5', '1000000', undefined), t: fc.boolean() })
      .map(({ n, c, t }) => ({
        address: n % 5 === 0 ? w.traders[0]!.address : '0x' + (n + 1).toString(16).padStart(40, 'c'),
        ...(c !== undefined ? { collateral: c } : {}),
        ...(t ? { tokens: { [valueFor(w, 'token', n, 0)]: '100' } } : {}),
      })),
  'POST /admin/rewards': (w) =>
    fc
      .record({
        n: fc.nat(1000),
        clear: fc.boolean(),
        spread: fc.constantFrom(3, 4.5, '3.5', 0, 51, 0.001),
        size: fc.constantFrom('20', 50, '0', '1.5'),
        rate: fc.constantFrom('10', 1440, '0', '0.000001'),
      })
      .map(({ n, clear, spread, size, rate }) => ({
        condition_id: valueFor(w, 'cid', n, 0),
        rewards: clear ? null : { max_spread: spread, min_size: size, daily_rate: rate },
      })),
  'POST /admin/funders': (w) =>
    fc.nat(1000).map((n) => ({
      signer: w.traders[n % w.traders.length]!.address,
      funder: '0x' + (n + 7).toString(16).padStart(40, 'd'),
    })),
  'POST /admin/markets/:cid/tick-size': () =>
    fc.record({ tick_size: fc.constantFrom('0.1', '0.01', '0.001', '0.0001', '0.05', '1') }),
  'POST /admin/markets/:cid/resolve': (w) => fc.nat(1000).map((n) => ({ winning_token: valueFor(w, 'token', n, 0) })),
  'PUT /admin/faults': () => fc.array(faultRule(), { maxLength: 3 }),
  'POST /admin/faults': () => faultRule(),
};

function faultRule(): fc.Arbitrary<unknown> {
  return fc.record(
    {
      id: fc.constantFrom('f1', 'rule-1', 'x'.repeat(51)),
      route: fc.constantFrom('GET /clob/book', '/clob/*', '*', '[', 'x'.repeat(201)),
      status: fc.constantFrom(425, 429, 500, 503, 404),
      latencyMs: fc.constantFrom(0, 1, 600_001, -1),
      probability: fc.constantFrom(0, 0.5, 1, 2),
      stream: fc.constantFrom('market', 'user', 'rtds', 'nope'),
      freeze: fc.boolean(),
      drop: fc.boolean(),
      dropAfterMs: fc.constantFrom(0, 1000),
      untilMs: fc.constantFrom(0, 1),
    },
    { requiredKeys: [] },
  );
}

// ---- query strings --------------------------------------------------------------------------------

type QPart =
  | { k: 'valid'; key: number; v: ValuePlan; enc: boolean }
  | { k: 'weird'; key: string; v: string; enc: boolean }
  | { k: 'bare'; s: string };

const WEIRD_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'limit[]',
  'token_id[]',
  'a[b]',
  '',
  ' ',
  'LIMIT',
  '%00',
  'toString',
];

const qPartCache = new Map<Array<[string, ValueKind]>, fc.Arbitrary<QPart>>();
const qPartArb = (keys: Array<[string, ValueKind]>): fc.Arbitrary<QPart> => {
  let a = qPartCache.get(keys);
  if (a !== undefined) return a;
  a = fc.oneof(
    {
      arbitrary: fc.oneof(
        ...keys.map((k, i) =>
          fc.record({ k: fc.constant('valid' as const), key: fc.constant(i), v: valueArb(k[1]), enc: fc.boolean() }),
        ),
      ),
      weight: 8,
    },
    {
      arbitrary: fc.record({
        k: fc.constant('weird' as const),
        key: fc.oneof(fc.constantFrom(...WEIRD_KEYS), fc.string({ maxLength: 8 })),
        v: anyText,
        enc: fc.boolean(),
      }),
      weight: 2,
    },
    {
      arbitrary: fc.record({
        k: fc.constant('bare' as const),
        s: fc.constantFrom('&', '&&', '=', '==', '?', 'a', '%', '#x', 'a=b=c', '+'),
      }),
      weight: 1,
    },
  );
  qPartCache.set(keys, a);
  return a;
};

function buildQuery(w: FuzzWorld, keys: Array<[string, ValueKind]>, parts: QPart[], trader: number): string {
  const out: string[] = [];
  for (const p of parts) {
    if (p.k === 'bare') out.push(p.s);
    else {
      const key = p.k === 'valid' ? keys[p.key]![0] : p.key;
      const v = p.k === 'valid' ? planValue(w, p.v, trader) : p.v;
      out.push(p.enc ? `${enc(key)}=${enc(v)}` : `${key}=${rawQueryValue(v)}`);
    }
  }
  return out.length === 0 ? '' : '?' + out.join('&');
}

/** A value as a careless client sends it: not encoded, but without characters no URL may hold. */
function rawQueryValue(v: string): string {
  // eslint-free: keep printable ASCII as is (%, +, =, [, ] included), escape the rest
  let s = '';
  for (const ch of v) s += /[\x21-\x7e]/.test(ch) && ch !== '#' && ch !== '&' ? ch : enc(ch).replace(/%25/g, '%');
  return s;
}

// ---- headers --------------------------------------------------------------------------------------

type L2Mut =
  | 'none'
  | 'sig'
  | 'skew'
  | 'tsGarbage'
  | 'pass'
  | 'addr'
  | 'addrCase'
  | 'keyUnknown'
  | 'keyLong'
  | 'missing'
  | 'withQuery'
  | 'otherBody'
  | 'otherMethod'
  | 'longPass'
  | 'longAddr';

type AuthPlan =
  | { k: 'none' }
  | { k: 'l2'; mut: L2Mut; n: number }
  | { k: 'bearer'; mut: 'none' | 'garbage' | 'long' | 'case'; n: number }
  | {
      k: 'l1';
      who: 'trader' | 'newcomer';
      nonce: number;
      mut: 'none' | 'sig' | 'nonce' | 'ts' | 'addr' | 'missing';
      n: number;
    }
  | { k: 'admin'; mut: 'none' | 'wrong' | 'empty' | 'long' }
  | { k: 'junk'; headers: Array<[string, string]> };

const L2_MUTS: readonly L2Mut[] = [
  'sig',
  'skew',
  'tsGarbage',
  'pass',
  'addr',
  'addrCase',
  'keyUnknown',
  'keyLong',
  'missing',
  'withQuery',
  'otherBody',
  'otherMethod',
  'longPass',
  'longAddr',
];
const JUNK_HEADER_NAMES = [
  'POLY_API_KEY',
  'POLY_ADDRESS',
  'POLY_SIGNATURE',
  'POLY_TIMESTAMP',
  'POLY_PASSPHRASE',
  'POLY_NONCE',
  'authorization',
  'x-admin-token',
  'x-forwarded-for',
  'content-length',
  'transfer-encoding',
  'x-junk',
];

function authArb(kind: AuthKind): fc.Arbitrary<AuthPlan> {
  const none = fc.constant<AuthPlan>({ k: 'none' });
  const l2ok = fc.record({ k: fc.constant('l2' as const), mut: fc.constant<L2Mut>('none'), n: fc.nat(1000) });
  const l2bad = fc.record({ k: fc.constant('l2' as const), mut: fc.constantFrom(...L2_MUTS), n: fc.nat(1000) });
  const bearer = fc.record({
    k: fc.constant('bearer' as const),
    mut: fc.constantFrom('none' as const, 'garbage' as const, 'long' as const, 'case' as const),
    n: fc.nat(1000),
  });
  const l1 = fc.record({
    k: fc.constant('l1' as const),
    who: fc.constantFrom('trader' as const, 'newcomer' as const),
    nonce: fc.nat(2),
    mut: fc.oneof(
      { arbitrary: fc.constant('none' as const), weight: 5 },
      {
        arbitrary: fc.constantFrom(
          'sig' as const,
          'nonce' as const,
          'ts' as const,
          'addr' as const,
          'missing' as const,
        ),
        weight: 5,
      },
    ),
    n: fc.nat(1000),
  });
  const admin = fc.record({
    k: fc.constant('admin' as const),
    mut: fc.oneof(
      { arbitrary: fc.constant('none' as const), weight: 6 },
      { arbitrary: fc.constantFrom('wrong' as const, 'empty' as const, 'long' as const), weight: 4 },
    ),
  });
  const junk = fc.record({
    k: fc.constant('junk' as const),
    headers: fc.array(
      fc.tuple(
        fc.constantFrom(...JUNK_HEADER_NAMES),
        fc.oneof(anyText, fc.constantFrom('Bearer ', 'Bearer ' + 'k'.repeat(200), '-1', '99999999999999999999')),
      ),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
  });
  switch (kind) {
    case 'public':
      return fc.oneof(
        { arbitrary: none, weight: 14 },
        { arbitrary: l2ok, weight: 2 },
        { arbitrary: junk, weight: 3 },
        { arbitrary: bearer, weight: 1 },
      );
    case 'l2':
      return fc.oneof(
        { arbitrary: l2ok, weight: 36 },
        { arbitrary: l2bad, weight: 8 },
        { arbitrary: bearer, weight: 3 },
        { arbitrary: none, weight: 2 },
        { arbitrary: junk, weight: 3 },
      );
    case 'l1':
      return fc.oneof(
        { arbitrary: l1, weight: 14 },
        { arbitrary: l2ok, weight: 2 },
        { arbitrary: none, weight: 2 },
        { arbitrary: junk, weight: 2 },
      );
    case 'admin':
      return fc.oneof(
        { arbitrary: admin, weight: 14 },
        { arbitrary: none, weight: 3 },
        { arbitrary: l2ok, weight: 1 },
        { arbitrary: junk, weight: 2 },
      );
    case 'any':
      return fc.oneof(none, l2ok, l2bad, bearer, l1, admin, junk);
  }
}

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  ';;;',
  '',
  '\u00e9',
];

// ---- HTTP inputs ----------------------------------------------------------------------------------

interface HttpPlan {
  method: string | undefined; // undefined: the route's
  params: ValuePlan[];
  paramEnc: boolean;
  query: QPart[];
  body: string | undefined;
  ct: number;
  auth: AuthPlan;
  urlMut: 'none' | 'slash' | 'double' | 'upper' | 'dots' | 'suffix' | 'encodedSlash';
  trader: number;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

function routeArb(w: FuzzWorld, r: RouteRef, via: () => 'inject' | 'loopback'): fc.Arbitrary<HttpInput> {
  const spec = specOf(r);
  const api = API_OF(r.url);
  const keys = QUERY_KEYS[api] ?? Object.values(QUERY_KEYS).flat();
  const paramNames = Object.keys(spec.params);
  const template = spec.body?.(w);
  const hasBody = template !== undefined;
  const plan: fc.Arbitrary<HttpPlan> = fc.record({
    method: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 30 },
      { arbitrary: fc.constantFrom(...METHODS), weight: 1 },
    ),
    params: fc.tuple(...paramNames.map((p) => valueArb(spec.params[p]!))),
    paramEnc: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
    query: fc.oneof(
      { arbitrary: fc.constant([] as QPart[]), weight: hasBody ? 6 : 2 },
      { arbitrary: fc.array(qPartArb(keys), { minLength: 1, maxLength: 5 }), weight: 4 },
    ),
    body: hasBody
      ? bodyText(template, r.url.startsWith('/clob/order') ? 9 : 3)
      : fc.oneof({ arbitrary: fc.constant(undefined), weight: 12 }, { arbitrary: bodyText(JSON_VALUE), weight: 1 }),
    ct: fc.oneof(
      { arbitrary: fc.constant(0), weight: 12 },
      { arbitrary: fc.nat(CONTENT_TYPES.length - 1), weight: 2 },
      { arbitrary: fc.constant(-1), weight: 1 },
    ),
    auth: authArb(spec.auth),
    urlMut: fc.oneof(
      { arbitrary: fc.constant('none' as const), weight: 40 },
      {
        arbitrary: fc.constantFrom(
          'slash' as const,
          'double' as const,
          'upper' as const,
          'dots' as const,
          'suffix' as const,
          'encodedSlash' as const,
        ),
        weight: 1,
      },
    ),
    trader: fc.nat(w.traders.length - 1),
  });
  return plan.map((p) => materialize(w, r, keys, p, via()));
}

function materialize(
  w: FuzzWorld,
  r: RouteRef,
  keys: Array<[string, ValueKind]>,
  p: HttpPlan,
  via: 'inject' | 'loopback',
): HttpInput {
  const method = p.method ?? r.method;
  // the body may name the trader that must sign (its orders are signed by that wallet)
  let trader = p.trader;
  let bodyStr = p.body;
  if (bodyStr?.includes('"__trader"')) {
    const m = /"__trader":(\d+),?/.exec(bodyStr);
    if (m) trader = Number(m[1]) % w.traders.length;
    bodyStr = bodyStr.replace(/"__trader":\d+,?/, '');
    // lists travel as {"__list": [...]} in the template so they can carry the trader
    const l = /^\{"__list":([\s\S]*)\}$/.exec(bodyStr);
    if (l) bodyStr = l[1]!;
  }
  // path
  let i = 0;
  let path = r.url.replace(/:([A-Za-z_]+)/g, () => {
    const v = planValue(w, p.params[i++]!, trader);
    return p.paramEnc ? enc(v) : rawQueryValue(v).replace(/[?]/g, '%3F');
  });
  switch (p.urlMut) {
    case 'slash':
      path += '/';
      break;
    case 'double':
      path = path.replace('/', '//');
      break;
    case 'upper':
      path = path.toUpperCase();
      break;
    case 'dots':
      path = path + '/../' + path.split('/').pop();
      break;
    case 'suffix':
      path = path + '/x';
      break;
    case 'encodedSlash':
      path = path.replace(/\/([^/]*)$/, '%2F$1');
      break;
  }
  const query = buildQuery(w, keys, p.query, trader);
  const url = path + query;
  const headers: Record<string, string> = {};
  if (bodyStr !== undefined && p.ct !== -1) headers['content-type'] = CONTENT_TYPES[p.ct]!;
  // what the server signs: the path relative to the API's base URL, without the query string
  const api = API_OF(path.split('?')[0]!) || API_OF(r.url);
  const signedPath = path.startsWith(api) ? path.slice(api.length) || '/' : path;
  const sBody = bodyStr === undefined || bodyStr === '' ? undefined : bodyStr;
  const t = w.traders[trader]!;
  const a = p.auth;
  switch (a.k) {
    case 'none':
      break;
    case 'l2': {
      let h = l2HeadersFor(
        t,
        w.nowSec,
        method,
        a.mut === 'withQuery' ? signedPath + query : signedPath,
        a.mut === 'otherBody' ? (sBody ?? '') + ' ' : sBody,
      );
      if (a.mut === 'otherMethod') h = l2HeadersFor(t, w.nowSec, method === 'GET' ? 'POST' : 'GET', signedPath, sBody);
      if (a.mut === 'sig') h.POLY_SIGNATURE = h.POLY_SIGNATURE!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
      if (a.mut === 'skew') h = l2HeadersFor(t, w.nowSec + (a.n % 2 ? 301 : -100_000), method, signedPath, sBody);
      if (a.mut === 'tsGarbage') h.POLY_TIMESTAMP = NASTY_STRINGS[a.n % NASTY_STRINGS.length]!;
      if (a.mut === 'pass') h.POLY_PASSPHRASE = w.traders[(trader + 1) % w.traders.length]!.creds.passphrase;
      if (a.mut === 'addr') h.POLY_ADDRESS = w.traders[(trader + 1) % w.traders.length]!.checksum;
      if (a.mut === 'addrCase') h.POLY_ADDRESS = h.POLY_ADDRESS!.toUpperCase().replace('0X', '0x');
      if (a.mut === 'keyUnknown') h.POLY_API_KEY = '00000000-0000-4000-8000-' + String(a.n).padStart(12, '0');
      if (a.mut === 'keyLong') h.POLY_API_KEY = 'k'.repeat(129 + (a.n % 10_000));
      if (a.mut === 'longPass') h.POLY_PASSPHRASE = 'p'.repeat(129);
      if (a.mut === 'longAddr') h.POLY_ADDRESS = '0x' + 'a'.repeat(200);
      if (a.mut === 'missing')
        delete (h as Record<string, string>)[
          ['POLY_ADDRESS', 'POLY_SIGNATURE', 'POLY_TIMESTAMP', 'POLY_PASSPHRASE'][a.n % 4]!
        ];
      Object.assign(headers, h);
      if (a.mut === 'none') headers['x-fuzz-signed'] = '1';
      break;
    }
    case 'bearer':
      headers['authorization'] =
        a.mut === 'none'
          ? `Bearer ${t.creds.apiKey}`
          : a.mut === 'case'
            ? `bearer   ${t.creds.apiKey.toUpperCase()}`
            : a.mut === 'long'
              ? 'Bearer ' + 'x'.repeat(129 + (a.n % 5000))
              : `Bearer ${NASTY_STRINGS[a.n % NASTY_STRINGS.length]}`;
      break;
    case 'l1': {
      const set = a.who === 'trader' ? t.l1 : w.newcomer.l1;
      const h = { ...set[a.nonce]! };
      if (a.mut === 'sig') h['POLY_SIGNATURE'] = h['POLY_SIGNATURE']!.slice(0, -4) + 'abcd';
      if (a.mut === 'nonce') h['POLY_NONCE'] = NASTY_STRINGS[a.n % NASTY_STRINGS.length]! || '7';
      if (a.mut === 'ts') h['POLY_TIMESTAMP'] = String(w.nowSec + 1);
      if (a.mut === 'addr') h['POLY_ADDRESS'] = w.traders[(trader + 1) % w.traders.length]!.checksum;
      if (a.mut === 'missing') delete h[['POLY_ADDRESS', 'POLY_SIGNATURE', 'POLY_TIMESTAMP', 'POLY_NONCE'][a.n % 4]!];
      Object.assign(headers, h);
      break;
    }
    case 'admin':
      headers['x-admin-token'] =
        a.mut === 'none'
          ? w.adminToken
          : a.mut === 'wrong'
            ? w.adminToken + 'x'
            : a.mut === 'empty'
              ? ''
              : 'a'.repeat(10_000);
      break;
    case 'junk':
      for (const [k, v] of a.headers) if (k !== 'content-length' && k !== 'transfer-encoding') headers[k] = v;
      break;
  }
  // header values must be latin1 without CR/LF to be sendable at all
  for (const [k, v] of Object.entries(headers))
    headers[k] = v.replace(/[\r\n\u0000]/g, '').replace(/[^\x00-\xff]/g, '?');
  return {
    kind: 'http',
    via,
    route: `${r.method} ${r.url}`,
    method,
    url,
    headers,
    ...(bodyStr !== undefined ? { body: bodyStr } : {}),
  };
}

/** HTTP inputs over every route, weighted (the order routes most). */
export function httpInputArb(w: FuzzWorld, loopbackShare: number): fc.Arbitrary<HttpInput> {
  // the transport is drawn with fast-check too, so a seed replays the same requests the same way
  return fc.noBias(fc.integer({ min: 0, max: 9999 })).chain((x) => {
    const via = x < loopbackShare * 10_000 ? 'loopback' : 'inject';
    return routesArb(w, via);
  });
}

const routesCache = new WeakMap<FuzzWorld, Map<string, fc.Arbitrary<HttpInput>>>();
function routesArb(w: FuzzWorld, via: 'inject' | 'loopback'): fc.Arbitrary<HttpInput> {
  let m = routesCache.get(w);
  if (m === undefined) routesCache.set(w, (m = new Map()));
  let a = m.get(via);
  if (a === undefined) {
    const seen = new Set<string>();
    const routes = w.routes.filter((r) => {
      const k = `${r.method} ${r.url}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    a = fc.oneof(
      { depthSize: 'small', withCrossShrink: false },
      ...routes.map((r) => ({ arbitrary: routeArb(w, r, () => via), weight: specOf(r).weight })),
      // paths no route serves
      { arbitrary: unknownPathArb(w, via), weight: 10 },
    );
    m.set(via, a);
  }
  return a;
}

function unknownPathArb(w: FuzzWorld, via: 'inject' | 'loopback'): fc.Arbitrary<HttpInput> {
  return fc
    .record({
      method: fc.constantFrom(...METHODS),
      prefix: fc.constantFrom('/x', '/clob', '/gamma', '/data', '/content', '/relayer', '/admin', '/ws', '/rtds'),
      rest: fc.oneof(
        fc.constantFrom(
          '',
          '/',
          '/nope',
          '/%',
          '/%zz',
          '/..%2f..%2fetc',
          '/a/b/c/d/e',
          '//',
          '/' + 'x'.repeat(3000),
          '/\u00e9',
        ),
        fc.string({ maxLength: 20 }).map((s) => '/' + enc(s)),
      ),
      auth: authArb('any'),
      trader: fc.nat(w.traders.length - 1),
    })
    .map(({ method, prefix, rest, auth, trader }) => ({
      ...materialize(
        w,
        { method, url: prefix + rest },
        [],
        {
          method,
          params: [],
          paramEnc: true,
          query: [],
          body: undefined,
          ct: 0,
          auth,
          urlMut: 'none',
          trader,
        },
        via,
      ),
      route: `${method} (no such route)`,
    }));
}

// ---- WebSocket inputs -----------------------------------------------------------------------------

const PING_TEXTS = ['PING', 'ping', ' PING ', 'PING\n', 'Ping', 'PONG', '{"type":"ping"}', '{"type":"PING"}', ''];

function textFrame(template: fc.Arbitrary<unknown>): fc.Arbitrary<ClientFrame> {
  return fc.oneof(
    {
      arbitrary: fc
        .tuple(
          bodyText(template),
          fc.oneof({ arbitrary: fc.constant(1), weight: 9 }, { arbitrary: fc.integer({ min: 2, max: 4 }), weight: 1 }),
        )
        .map(
          ([text, fragments]): ClientFrame => ({
            t: 'text',
            text: text ?? '',
            ...(fragments > 1 ? { fragments } : {}),
          }),
        ),
      weight: 80,
    },
    { arbitrary: fc.constantFrom(...PING_TEXTS).map((text): ClientFrame => ({ t: 'text', text })), weight: 8 },
    { arbitrary: anyText.map((text): ClientFrame => ({ t: 'text', text })), weight: 6 },
    {
      arbitrary: fc.array(fc.nat(255), { maxLength: 20 }).map((bytes): ClientFrame => ({ t: 'binary', bytes })),
      weight: 1,
    },
    { arbitrary: fc.string({ maxLength: 10 }).map((prefix): ClientFrame => ({ t: 'badutf8', prefix })), weight: 1 },
    { arbitrary: fc.constantFrom(65_536, 70_000).map((size): ClientFrame => ({ t: 'big', size })), weight: 1 },
    { arbitrary: fc.string({ maxLength: 20 }).map((payload): ClientFrame => ({ t: 'ping', payload })), weight: 1 },
    {
      arbitrary: fc
        .record({
          code: fc.constantFrom(1000, 1001, 1005, 1006, 1011, 3000, 4999, 999, 65535),
          reason: fc.string({ maxLength: 20 }),
        })
        .map((x): ClientFrame => ({ t: 'close', ...x })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(
          [0x81, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f], // unmasked text
          [0x83, 0x80, 0, 0, 0, 0], // reserved opcode
          [0xc1, 0x80, 0, 0, 0, 0], // RSV1 without an extension
          [0x80, 0x80, 0, 0, 0, 0], // continuation with nothing to continue
          [0x89, 0xfe, 0x00, 0x80, 0, 0, 0, 0], // ping longer than 125
          [0x09, 0x80, 0, 0, 0, 0], // fragmented ping
          [0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0], // 2^64-1 bytes
          [0x81, 0xff, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0], // 2^53 bytes
          [0x01, 0x81, 0, 0, 0, 0, 0x7b, 0x81, 0x81, 0, 0, 0, 0, 0x7d], // text frame inside a fragmented text message
          [0x88, 0x81, 0, 0, 0, 0, 0x03], // close with a 1-byte payload
        )
        .map((bytes): ClientFrame => ({ t: 'raw', bytes: [...bytes] })),
      weight: 2,
    },
  );
}

function marketMsg(w: FuzzWorld, first: boolean): fc.Arbitrary<unknown> {
  return fc
    .record({
      ns: fc.array(fc.nat(1000), { minLength: 0, maxLength: 4 }),
      op: fc.constantFrom('subscribe', 'unsubscribe', 'SUBSCRIBE'),
      custom: fc.option(fc.boolean(), { nil: undefined }),
      dump: fc.option(fc.boolean(), { nil: undefined }),
      level: fc.option(fc.constantFrom(1, 2, 3), { nil: undefined }),
    })
    .map(({ ns, op, custom, dump, level }) => ({
      assets_ids: ns.map((n) => valueFor(w, 'token', n, 0)),
      ...(first ? { type: 'market' } : { operation: op }),
      ...(custom !== undefined ? { custom_feature_enabled: custom } : {}),
      ...(dump !== undefined ? { initial_dump: dump } : {}),
      ...(level !== undefined ? { level } : {}),
    }));
}

function userMsg(w: FuzzWorld, first: boolean): fc.Arbitrary<unknown> {
  return fc
    .record({
      tr: fc.nat(w.traders.length - 1),
      ns: fc.array(fc.nat(1000), { maxLength: 3 }),
      op: fc.constantFrom('subscribe', 'unsubscribe'),
      bad: fc.oneof({ arbitrary: fc.constant(0), weight: 8 }, { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 2 }),
    })
    .map(({ tr, ns, op, bad }) => {
      const c = w.traders[tr]!.creds;
      const auth =
        bad === 0
          ? { apiKey: c.apiKey, secret: c.secret, passphrase: c.passphrase }
          : bad === 1
            ? { apiKey: c.apiKey, secret: c.secret + 'x', passphrase: c.passphrase }
            : bad === 2
              ? { key: c.apiKey, secret: c.secret, passphrase: c.passphrase }
              : bad === 3
                ? {
                    apiKey: w.traders[(tr + 1) % w.traders.length]!.creds.apiKey,
                    secret: c.secret,
                    passphrase: c.passphrase,
                  }
                : { apiKey: 'k'.repeat(200), secret: '', passphrase: '' };
      return {
        markets: ns.map((n) => valueFor(w, 'cid', n, 0)),
        ...(first ? { type: 'user', auth } : { operation: op }),
      };
    });
}

function rtdsMsg(): fc.Arbitrary<unknown> {
  const sub = fc.oneof(
    fc.record({
      topic: fc.constant('crypto_prices'),
      type: fc.constantFrom('update', '*'),
      filters: fc.oneof(
        fc.constantFrom('btcusdt', 'btcusdt,ethusdt', '["btcusdt","solusdt"]', '', 'BTC/USD', '["x"', 'a'.repeat(31)),
        fc.constant(['btcusdt', 'ethusdt']),
        fc.constant(undefined),
      ),
    }),
    fc.record({
      topic: fc.constant('comments'),
      type: fc.constantFrom('comment_created', '*'),
      filters: fc.oneof(
        fc.constant({ parentEntityID: 100, parentEntityType: 'Event' }),
        fc.constant('{"parentEntityID":"1","parentEntityType":"Market"}'),
        fc.constant('{bad'),
        fc.constant(undefined),
      ),
    }),
  );
  return fc.record({
    action: fc.constantFrom('subscribe', 'unsubscribe'),
    subscriptions: fc.array(sub, { minLength: 1, maxLength: 3 }),
  });
}

interface WsPlan {
  path: string;
  fresh: boolean;
  handshake: WsInput['handshake'];
  frames: ClientFrame[];
}

function channelArb(w: FuzzWorld, path: string): fc.Arbitrary<WsPlan> {
  const first = (p: string): fc.Arbitrary<unknown> => {
    if (p.startsWith('/ws/market')) return marketMsg(w, true);
    if (p.startsWith('/ws/user')) return userMsg(w, true);
    if (p === '/rtds' || p === '/' || p === '/rtds/') return rtdsMsg();
    return fc.oneof(marketMsg(w, true), userMsg(w, true));
  };
  const later = (p: string): fc.Arbitrary<unknown> => {
    if (p.startsWith('/ws/market')) return marketMsg(w, false);
    if (p.startsWith('/ws/user')) return userMsg(w, false);
    if (p === '/rtds' || p === '/' || p === '/rtds/') return rtdsMsg();
    return fc.oneof(marketMsg(w, false), userMsg(w, false));
  };
  const isUser = path.startsWith('/ws/user') || path === '/ws';
  return fc
    .record({
      fresh: fc.oneof(
        { arbitrary: fc.constant(true), weight: isUser ? 4 : 1 },
        { arbitrary: fc.constant(false), weight: isUser ? 6 : 9 },
      ),
      handshake: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 200 },
        { arbitrary: fc.constantFrom('method' as const, 'key' as const, 'version' as const), weight: 1 },
      ),
      firstFrame: textFrame(first(path)),
      more: fc.array(textFrame(later(path)), { maxLength: 2 }),
    })
    .map(({ fresh, handshake, firstFrame, more }) => ({ path, fresh, handshake, frames: [firstFrame, ...more] }));
}

export function wsInputArb(w: FuzzWorld, realShare: number, hasReal: boolean): fc.Arbitrary<WsInput> {
  const paths = fc.oneof(
    { arbitrary: fc.constantFrom('/ws/market', '/ws/user', '/ws', '/rtds', '/'), weight: 95 },
    {
      arbitrary: fc.constantFrom(
        '/ws/market/',
        '/ws/nope',
        '/WS/market',
        '/ws/market?x=1',
        '/rtds/',
        '//ws',
        '/ws/user/..',
        '/%',
        '/ws/market#x',
      ),
      weight: 5,
    },
  );
  const byPath = new Map<string, fc.Arbitrary<WsPlan>>();
  const planOf = (p: string) => {
    let a = byPath.get(p);
    if (a === undefined) byPath.set(p, (a = channelArb(w, p)));
    return a;
  };
  return fc.tuple(paths.chain(planOf), fc.noBias(fc.integer({ min: 0, max: 9999 }))).map(([p, x]): WsInput => {
    // a real client cannot send a malformed handshake or a fragment in the URL
    const real = hasReal && x < realShare * 10_000 && p.handshake === undefined && !p.path.includes('#');
    // raw malformed frames and huge frames stay on the fake socket (the ws client will not send them as such)
    return {
      kind: 'ws',
      via: real ? 'real' : 'fake',
      path: p.path,
      fresh: p.fresh,
      ...(p.handshake !== undefined ? { handshake: p.handshake } : {}),
      frames: p.frames,
    };
  });
}

// ---- everything -----------------------------------------------------------------------------------

export interface MixOptions {
  /** Share of the inputs that are WebSocket frames (default 0.3). */
  wsShare?: number;
  /** Share of the HTTP inputs sent over a real loopback socket (default 0.02). */
  loopbackShare?: number;
  /** Share of the WebSocket inputs sent over a real loopback socket (default 0.01). */
  realWsShare?: number;
  /** Whether loopback transports exist. */
  loopback: boolean;
}

export function fuzzInputArb(w: FuzzWorld, o: MixOptions): fc.Arbitrary<FuzzInput> {
  const ws = Math.round((o.wsShare ?? 0.3) * 100);
  return fc.oneof(
    { withCrossShrink: false },
    { arbitrary: httpInputArb(w, o.loopback ? (o.loopbackShare ?? 0.02) : 0), weight: 100 - ws },
    { arbitrary: wsInputArb(w, o.realWsShare ?? 0.01, o.loopback), weight: ws },
  );
}
