/**
 * The frame scanner is an accelerator with no behaviour of its own: on every frame it either
 * declines (emits and counts nothing) or gives exactly what JSON.parse + MarketDecoder.decode give.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { reference as referenceAt, scannedBy } from './frame-scan-fixtures.ts';
import { FrameScanner } from '../../../../src/api/streams/frame-scan.ts';
import { parseLine } from '../../../../src/venues/sim/feed.ts';

const reference = (raw: string) => referenceAt(raw, 1234.5);
const scanned = (raw: string) => scannedBy(new FrameScanner(), raw, 1234.5);

/** Scanner and reference agree: the scanner may decline anything, but what it accepts the reference decodes to the same. */
function agree(raw: string): boolean {
  const s = scanned(raw);
  if (s === undefined) return false;
  const r = reference(raw);
  expect(r, `the scanner accepted a frame the reference refuses: ${raw.slice(0, 200)}`).toBeDefined();
  expect(s.events).toEqual(r!.events);
  expect(s.messages).toBe(r!.messages);
  expect(s.eventsCounted).toBe(r!.events.length);
  return true;
}

const fixtureFrames = (): string[] => {
  const text = gunzipSync(readFileSync(new URL('../../../fixtures/sample-feed.ndjson.gz', import.meta.url))).toString(
    'utf8',
  );
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const it = parseLine(line);
    if (it?.kind === 'frame' && it.ch === 'm') out.push(it.raw);
  }
  return out;
};

describe('frame scanner', () => {
  const frames = fixtureFrames();

  it('decodes the recorded sample feed exactly as JSON.parse + decode, declining only kinds it does not know', () => {
    expect(frames.length).toBeGreaterThan(10_000);
    let accepted = 0;
    for (const raw of frames) {
      if (agree(raw)) accepted++;
      else
        expect(
          reference(raw) === undefined || /new_market|tick_size_change|market_resolved/.test(raw),
          raw.slice(0, 200),
        ).toBe(true);
    }
    expect(accepted / frames.length).toBeGreaterThan(0.99);
  });

  it('any single-character edit of a real frame: declined, or the same as the reference', () => {
    const alphabet = [
      '"',
      '\\',
      ',',
      ':',
      '{',
      '}',
      '[',
      ']',
      '0',
      '5',
      '.',
      'e',
      '-',
      ' ',
      '\t',
      'a',
      'x',
      '\u0001',
      'é',
    ];
    fc.assert(
      fc.property(
        fc.nat(frames.length - 1),
        fc.nat(),
        fc.constantFrom('insert', 'delete', 'replace'),
        fc.constantFrom(...alphabet),
        (fi, pos, op, ch) => {
          const raw = frames[fi]!;
          const i = pos % raw.length;
          const edited =
            op === 'insert'
              ? raw.slice(0, i) + ch + raw.slice(i)
              : op === 'delete'
                ? raw.slice(0, i) + raw.slice(i + 1)
                : raw.slice(0, i) + ch + raw.slice(i + 1);
          agree(edited);
        },
      ),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('key order, unknown keys of any JSON type, missing optional fields and arrays of messages', () => {
    const book = {
      event_type: 'book',
      market: '0xm',
      asset_id: 'tok1',
      timestamp: '1700000000123',
      hash: 'abc',
      bids: [
        { price: '0.48', size: '10' },
        { price: '0.49', size: '5.5' },
      ],
      asks: [
        { price: '0.52', size: '1' },
        { price: '0.51', size: '2' },
      ],
    };
    const change = {
      event_type: 'price_change',
      market: '0xm',
      timestamp: '1700000000124',
      price_changes: [
        { asset_id: 'tok1', price: '0.5', size: '3', side: 'BUY', hash: 'h1', best_bid: '0.5', best_ask: '0.51' },
        { asset_id: 'tok2', price: '0.5', size: '0', side: 'SELL', hash: 'h2', best_bid: '0', best_ask: '0' },
      ],
    };
    const trade = {
      event_type: 'last_trade_price',
      market: '0xm',
      asset_id: 'tok1',
      price: '0.51',
      size: '7',
      side: 'SELL',
      fee_rate_bps: '0',
      timestamp: '1700000000125',
    };
    const bba = {
      event_type: 'best_bid_ask',
      market: '0xm',
      asset_id: 'tok1',
      best_bid: '0.5',
      best_ask: '0.51',
      spread: '0.01',
      timestamp: '1700000000126',
    };
    const extra = { x: [1, -2.5e3, { y: null, z: [true, false] }], s: 'str', n: 0 };
    const shuffle = <T extends object>(o: T, seed: number): T => {
      const keys = Object.keys(o);
      for (let i = keys.length - 1; i > 0; i--) {
        const j = (seed * (i + 7)) % (i + 1);
        [keys[i], keys[j]] = [keys[j]!, keys[i]!];
      }
      return Object.fromEntries(keys.map((k) => [k, (o as Record<string, unknown>)[k]])) as T;
    };
    for (let seed = 1; seed < 20; seed++) {
      for (const m of [book, change, trade, bba]) {
        expect(agree(JSON.stringify(shuffle({ ...m, ...extra }, seed)))).toBe(true);
        expect(agree(JSON.stringify(shuffle(m, seed)))).toBe(true);
      }
      expect(agree(JSON.stringify([shuffle(book, seed), shuffle(change, seed), trade, bba]))).toBe(true);
    }
    // no timestamp: the receive time; no spread: 0; unsorted book sides: sorted best first
    const { timestamp: _t, ...noTs } = trade;
    expect(agree(JSON.stringify(noTs))).toBe(true);
    const { spread: _s, ...noSpread } = bba;
    expect(agree(JSON.stringify(noSpread))).toBe(true);
    expect(
      agree(
        JSON.stringify({
          ...book,
          bids: [
            { price: '0.3', size: '1' },
            { price: '0.49', size: '5' },
            { price: '0.4', size: '2' },
          ],
        }),
      ),
    ).toBe(true);
  });

  it('declines, emitting nothing: duplicate keys, whitespace, escapes, other kinds, refused values, trailing text', () => {
    const trade =
      '{"event_type":"last_trade_price","market":"0xm","asset_id":"tok1","price":"0.51","size":"7","side":"SELL","timestamp":"1700000000125"}';
    expect(agree(trade)).toBe(true);
    const declined = [
      trade.replace('"size":"7"', '"size":"7","size":"8"'), // JSON.parse keeps the last: the reference decides
      trade.replace(',"side"', ', "side"'),
      trade.replace('tok1', 'to\\u006b1'),
      trade.replace('"SELL"', '"sell"'),
      trade.replace('"0.51"', '"1.5"'),
      trade.replace('"0.51"', '0.51'),
      trade + ' ',
      trade + 'x',
      `[${trade},]`,
      '[]',
      '{"event_type":"tick_size_change","market":"0xm","asset_id":"t","old_tick_size":"0.01","new_tick_size":"0.001"}',
      '{"event_type":"error","error":{"code":"X"}}',
      'not json',
      '',
    ];
    for (const raw of declined) expect(scanned(raw), raw).toBeUndefined();
  });
});
