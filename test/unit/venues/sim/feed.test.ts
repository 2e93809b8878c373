import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  feedRewardConfig,
  formatT,
  frameLine,
  headerLine,
  marketLine,
  parseLine,
  statusLine,
  stringFrameLine,
  type FeedHeader,
} from '../../../../src/venues/sim/feed.ts';
import type { MarketInfo } from '../../../../src/core/venue.ts';

const market = {
  market: '0xabc',
  question: 'Will it rain?',
  tokens: [
    { tokenId: '111', outcome: 'Yes' },
    { tokenId: '222', outcome: 'No' },
  ],
  tick: '0.01',
  minOrderSize: 5_000_000,
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '2030-01-01T00:00:00Z',
} as unknown as MarketInfo;

describe('formatT', () => {
  it('keeps at most microseconds, never exponent notation, no trailing zeros', () => {
    expect(formatT(1_760_000_000_123)).toBe('1760000000123');
    expect(formatT(1_760_000_000_123.4567)).toBe('1760000000123.457');
    expect(formatT(1_760_000_000_123.5)).toBe('1760000000123.5');
    expect(formatT(1_760_000_000_123.1004)).toBe('1760000000123.1');
    expect(formatT(1_760_000_000_123.9999)).toBe('1760000000124');
    expect(formatT(0)).toBe('0');
    expect(formatT(0.000001)).toBe('0');
    expect(formatT(999_999_999_999_999)).toBe('999999999999999');
  });

  it('refuses negative and non-finite times', () => {
    expect(() => formatT(-1)).toThrow(RangeError);
    expect(() => formatT(Number.NaN)).toThrow(RangeError);
    expect(() => formatT(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => formatT(1e21)).toThrow(RangeError); // String(1e21) is "1e+21": never written
  });

  it('round-trips through parseLine to the microsecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000_000 }), (us) => {
        const t = us / 1000;
        const it = parseLine(frameLine(t, 'm', '{"a":1}'));
        expect(it?.kind).toBe('frame');
        expect(Math.abs(it!.t - t)).toBeLessThan(0.0005 + t * 1e-15);
      }),
    );
  });
});

describe('line formats round-trip through parseLine', () => {
  it('frame in the f form: the raw bytes come back exactly', () => {
    const raw = '{"event_type":"book","asset_id":"1","bids":[{"price":"0.5","size":"10"}],"q":"caf\u00e9 \u2603"}';
    const line = frameLine(1_760_000_000_000.25, 'm', raw);
    expect(line).toBe(`{"t":1760000000000.25,"c":"m","f":${raw}}`);
    expect(parseLine(line)).toEqual({ kind: 'frame', t: 1_760_000_000_000.25, ch: 'm', raw });
  });

  it('an array frame and an RTDS frame', () => {
    const raw = '[{"event_type":"book"},{"event_type":"book"}]';
    expect(parseLine(frameLine(5, 'm', raw))).toEqual({ kind: 'frame', t: 5, ch: 'm', raw });
    const p = '{"topic":"crypto_prices","type":"update","payload":{"symbol":"btcusdt","value":95000.5}}';
    expect(parseLine(frameLine(6.001, 'r', p))).toEqual({ kind: 'frame', t: 6.001, ch: 'r', raw: p });
  });

  it('frame in the s form: text that is not one-line JSON is kept exactly', () => {
    for (const raw of ['not json', '{"a":\n1}', 'PONG', '  ', '"quoted" \\ back\u2028slash']) {
      const line = stringFrameLine(7, 'r', raw);
      expect(line).not.toContain('\n');
      expect(parseLine(line)).toEqual({ kind: 'frame', t: 7, ch: 'r', raw });
    }
  });

  it('status lines', () => {
    expect(parseLine(statusLine(8.5, 'm', 'disconnect', 'closed 1006'))).toEqual({
      kind: 'status',
      t: 8.5,
      ch: 'm',
      status: 'disconnect',
      reason: 'closed 1006',
    });
    // a new world behind the venue after a reconnect (mmkit record, src/backtest/recorder.ts)
    expect(parseLine(statusLine(9, 'm', 'world', 'new world b (was a)'))).toEqual({
      kind: 'status',
      t: 9,
      ch: 'm',
      status: 'world',
      reason: 'new world b (was a)',
    });
    expect(parseLine(statusLine(9, 'r', 'connect'))).toEqual({
      kind: 'status',
      t: 9,
      ch: 'r',
      status: 'connect',
      reason: '',
    });
    expect(parseLine(statusLine(9, 'm', 'disconnect', 'quote " and \n newline'))).toMatchObject({
      reason: 'quote " and \n newline',
    });
  });

  it('header lines carry the MarketInfo exactly', () => {
    const h: FeedHeader = {
      h: 1,
      t: 1_760_000_000_000.5,
      part: 2,
      source: 'http://127.0.0.1:1',
      recorder: 'mmkit/0.1.0',
      markets: [market],
    };
    const line = headerLine(h);
    expect(line).not.toContain('\n');
    const it = parseLine(line);
    expect(it).toEqual({ kind: 'header', t: h.t, header: h });
  });
});

describe('market lines', () => {
  it('carry the MarketInfo exactly, on the market channel', () => {
    const info = { ...market, active: false, rewards: { maxSpread: 300, minSize: 20_000_000, dailyRate: 144_000_000 } };
    const line = marketLine(1_760_000_000_000.25, info as MarketInfo);
    expect(line.startsWith('{"t":1760000000000.25,"c":"m","mi":{')).toBe(true);
    expect(parseLine(line)).toEqual({ kind: 'market', t: 1_760_000_000_000.25, ch: 'm', info });
  });

  it('a market line without a market id, without two token ids, or on another channel is malformed', () => {
    const bad = [
      { ...market, market: 7 },
      { ...market, tokens: [{ tokenId: '111', outcome: 'Yes' }] },
      { ...market, tokens: [{ tokenId: '111' }, { outcome: 'No' }] },
      null,
      [market],
      'x',
    ];
    for (const mi of bad) expect(parseLine(`{"t":5,"c":"m","mi":${JSON.stringify(mi)}}`)).toBeUndefined();
    expect(parseLine(`{"t":5,"c":"r","mi":${JSON.stringify(market)}}`)).toBeUndefined();
  });
});

describe('parseLine on malformed input', () => {
  const bad = [
    '',
    'garbage',
    '{',
    '[]',
    'null',
    '42',
    '"string"',
    '{"t":1,"c":"m","f":}', // empty raw
    '{"t":1,"c":"m","f":{"a":1', // cut short: no closing brace
    '{"t":1,"c":"x","f":{}}', // unknown channel
    '{"t":-1,"c":"m","f":{}}', // negative time
    '{"t":"1","c":"m","s":"x"}', // time as a string
    '{"c":"m","s":"x"}', // no time
    '{"t":1,"c":"m"}', // neither f, s nor e
    '{"t":1,"c":"m","e":"reconnect"}', // unknown status
    '{"t":1.23456,"c":"m","f":{}}', // more than microseconds
    '{"h":1,"t":1,"part":0}', // header without markets
    '{"h":1,"t":1,"markets":[]}', // header without part
    '{"t":1,"c":"m","s":5}', // s not a string
    '{"t":1e400,"c":"m","s":"x"}', // infinite time
  ];
  for (const line of bad) {
    it(`refuses ${JSON.stringify(line)}`, () => {
      expect(parseLine(line)).toBeUndefined();
    });
  }

  it("does not validate the raw frame (the consumer's decoder counts bad frames): only the line shape", () => {
    // a line cut inside the frame that happens to end with a brace still has the frame shape
    expect(parseLine('{"t":1,"c":"m","f":{"a":{"b":1}')).toEqual({ kind: 'frame', t: 1, ch: 'm', raw: '{"a":{"b":1' });
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const r = parseLine(s);
        if (r !== undefined) expect(['frame', 'status', 'header']).toContain(r.kind);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('reward configs in feed headers', () => {
  const cfg = { maxSpread: 350, minSize: 50_000_000, dailyRate: 25_000_000 };

  it('a header keeps a market reward config through the line, exactly', () => {
    const h: FeedHeader = {
      h: 1,
      t: 1,
      part: 0,
      source: 's',
      recorder: 'r',
      markets: [{ ...market, rewards: cfg } as MarketInfo],
    };
    const item = parseLine(headerLine(h));
    expect(item?.kind === 'header' && item.header.markets[0]?.rewards).toEqual(cfg);
    expect(feedRewardConfig(item?.kind === 'header' ? item.header.markets[0]?.rewards : undefined)).toEqual(cfg);
  });

  it('absent or null is no rewards; a multiplier is kept; unknown keys are dropped', () => {
    expect(feedRewardConfig(undefined)).toBeNull();
    expect(feedRewardConfig(null)).toBeNull();
    expect(feedRewardConfig({ ...cfg, multiplier: 2, extra: 'x' })).toEqual({ ...cfg, multiplier: 2 });
  });

  it('a malformed config is a ValidationError naming the field', () => {
    expect(() => feedRewardConfig('x')).toThrow(/rewards: must be an object/);
    expect(() => feedRewardConfig([])).toThrow(/rewards: must be an object/);
    expect(() => feedRewardConfig({ ...cfg, maxSpread: 0 })).toThrow(/rewards\.maxSpread/);
    expect(() => feedRewardConfig({ ...cfg, maxSpread: 10_001 })).toThrow(/rewards\.maxSpread/);
    expect(() => feedRewardConfig({ ...cfg, minSize: 1.5 })).toThrow(/rewards\.minSize/);
    expect(() => feedRewardConfig({ ...cfg, dailyRate: -1 })).toThrow(/rewards\.dailyRate/);
    expect(() => feedRewardConfig({ ...cfg, dailyRate: '5' })).toThrow(/rewards\.dailyRate/);
    expect(() => feedRewardConfig({ ...cfg, multiplier: 0 })).toThrow(/rewards\.multiplier/);
  });
});
