/**
 * The security log of the bot's in-process paper exchange, inside the bot's own log (trial finding
 * 2): the exchange logs under `component: "exchange"`, so its security lines must not add a second
 * `component` key (a JSON line with a key twice), nor say "security" twice in the pretty view; and
 * an ordinary cancel race (a cancel of an order already cancelled or matched) is no warning, while
 * a real security event (a bad signature) still is.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/ops/logger.ts';
import { startVenue, yes, type TestVenue } from '../integration/support/setup.ts';
import type { Trader } from '../integration/support/trader.ts';

let v: TestVenue;
let trader: Trader;
let logText = '';

/** The keys that occur twice in one object of a JSON text (read from the raw text: JSON.parse keeps the last). */
function repeatedKeys(json: string): string[] {
  const out: string[] = [];
  const stack: Array<Set<string> | null> = [];
  let i = 0;
  const readString = (): string => {
    let s = '';
    i++; // the opening quote
    while (json[i] !== '"') {
      if (json[i] === '\\') s += json[i++];
      s += json[i++];
    }
    i++;
    return s;
  };
  while (i < json.length) {
    const c = json[i]!;
    if (c === '{') {
      stack.push(new Set());
      i++;
    } else if (c === '[') {
      stack.push(null);
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
    } else if (c === '"') {
      const s = readString();
      let j = i;
      while (json[j] === ' ') j++;
      const keys = stack[stack.length - 1];
      if (json[j] === ':' && keys) {
        if (keys.has(s)) out.push(s);
        keys.add(s);
      }
    } else i++;
  }
  return out;
}

const lines = () =>
  logText
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((raw) => ({ raw, o: JSON.parse(raw) as Record<string, unknown> }));

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logText += String(chunk);
      done();
    },
  });
  // as the bot makes it (src/cli/run.ts), at debug so the routine events are seen too
  const log = createLogger({ format: 'json', level: 'debug', destination: sink });
  v = await startVenue({ logger: log.child({ component: 'exchange' }) });
  trader = await v.trader();
});
afterAll(async () => v?.close());

describe('the in-process exchange security log in the bot log (trial finding 2)', () => {
  it('finds a repeated key in raw JSON text', () => {
    expect(repeatedKeys('{"a":1,"b":{"a":2},"c":[{"a":1},{"a":1}],"a":3}')).toEqual(['a']);
    expect(repeatedKeys('{"component":"exchange","component":"security","x":"a\\"b"}')).toEqual(['component']);
    expect(repeatedKeys('{"s":"{\\"a\\":1,\\"a\\":2}"}')).toEqual([]);
  });

  it('a cancel race is logged at debug, a bad signature at warn; no line holds a key twice', async () => {
    const placed = await trader.place(yes(v.m1), 'BUY', '0.20', '10');
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    expect((await trader.l2('DELETE', '/orders', [placed.id])).status).toBe(200);
    // the race: the same order cancelled again (by the batch route and the single one)
    const again = await trader.l2('DELETE', '/orders', [placed.id]);
    expect(again.status).toBe(200);
    expect(Object.keys(again.body.not_canceled)).toEqual([placed.id]);
    expect((await trader.l2('DELETE', '/order', { orderID: placed.id })).status).toBe(200);
    // a real security event: a request signed with a wrong passphrase
    const creds = trader.creds!;
    const bad = await trader.raw('GET', '/balances', {
      headers: {
        POLY_API_KEY: creds.apiKey,
        POLY_ADDRESS: trader.address,
        POLY_PASSPHRASE: 'not-the-passphrase-0123456789',
        POLY_SIGNATURE: 'AAAA',
        POLY_TIMESTAMP: String(Math.floor(Date.now() / 1000)),
      },
    });
    expect(bad.status).toBe(401);

    const all = lines();
    for (const l of all) expect(repeatedKeys(l.raw), l.raw).toEqual([]);
    const security = all.filter((l) => l.o.log === 'security');
    // the exchange's own component stays; the message is the kind (no "security: security: ...")
    for (const l of security) {
      expect(l.o.component).toBe('exchange');
      expect(l.o.msg).toBe((l.o.security as { kind: string }).kind);
    }
    const races = security.filter((l) => l.o.msg === 'order_refused');
    expect(races.length).toBe(2);
    for (const l of races) expect(l.o.level).toBe(20); // debug
    const warned = security.filter((l) => (l.o.level as number) >= 40);
    expect(warned.map((l) => l.o.msg)).toEqual(['auth_failed']);
    // counted all the same
    expect(v.running.security.counts()).toMatchObject({ order_refused: 2, auth_failed: 1 });
  });
});

describe('a business refusal of the in-process exchange is no warning (user trial 2, finding 7)', () => {
  it('an order refused for balance (INVALID_ORDER_NOT_ENOUGH_BALANCE) is logged at debug, counted all the same', async () => {
    const from = logText.length;
    const before = v.running.security.counts().order_refused;
    // a sell of tokens the account does not hold: the sell-balance race the bot tolerates
    const r = await trader.place(yes(v.m1), 'SELL', '0.80', '10');
    expect(JSON.stringify(r.body)).toContain('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    const refused = logText
      .slice(from)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((raw) => JSON.parse(raw) as Record<string, unknown>)
      .filter((o) => o.log === 'security' && o.msg === 'order_refused');
    expect(refused.length).toBe(1);
    expect((refused[0]!.security as { reason: string }).reason).toBe('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    expect(refused[0]!.level).toBe(20); // debug, not warn
    expect(v.running.security.counts().order_refused).toBe(before + 1);
  });
});
