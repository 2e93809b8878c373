/**
 * The terminal view of the log (src/ops/terminal): deterministic JSON lines in, the exact text a
 * person sees out (the snapshot); colours only when asked, NO_COLOR respected; the format switch
 * and its alias; a logger in the pretty format still redacts and scrubs secrets, and one in the
 * JSON format writes exactly the lines it wrote before (no field of the view's).
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSecrets, registerSecret } from '../../../../src/core/secrets.ts';
import { distinctShortQuestions, shortQuestion } from '../../../../src/core/labels.ts';
import { createLogger, prettyOnly, terminalView } from '../../../../src/ops/logger.ts';
import { logFormatOf, resolveLogFormat } from '../../../../src/ops/terminal/log-format.ts';
import { PrettyView, colorWanted } from '../../../../src/ops/terminal/pretty-view.ts';

const M1 = '0x' + '1c03'.repeat(16);
const M2 = '0x' + '6866'.repeat(16);
const M3 = '0x' + 'beef'.repeat(16); // not a market of the run: shown by its id, whole
const Y1 = '1528478504862875707737414370437596914377091533684752008774753476937584583747';
const N1 = '3193188524734167466099162545878904889558816923733152554418094415915330462435';
const Y2 = '10831224198611610828237671854038552930979346697198473110019983128758191030532';
const Q1 = 'Will Apple announce a smart home display in 2026?';
const Q2 = 'Will the Federal Reserve raise interest rates by 25+ bps at its December meeting?';
const T = Date.UTC(2026, 10, 27, 8, 3, 15);
const base = { pid: 4242, hostname: 'box' };

const LINES: Record<string, unknown>[] = [
  {
    level: 30,
    time: T,
    ...base,
    // the daemon's own lines name their component (JSON); the view does not print this one
    component: 'daemon',
    address: '0xabc',
    strategy: 'bands',
    markets: [
      { market: M1, question: Q1 },
      { market: M2, question: Q2 },
    ],
    msg: 'starting',
  },
  {
    level: 30,
    time: T + 1000,
    ...base,
    component: 'executor',
    market: M1,
    trade: 't-1',
    order: '0xord',
    side: 'BUY',
    price: '0.3686',
    size: '10',
    role: 'MAKER',
    status: 'MATCHED',
    source: 'bot',
    token: Y1,
    msg: 'fill',
  },
  {
    level: 30,
    time: T + 2000,
    ...base,
    component: 'executor',
    market: M2,
    trade: 't-2',
    order: '0xord2',
    side: 'SELL',
    price: '0.12',
    size: '5.5',
    role: 'TAKER',
    status: 'MATCHED',
    source: 'bot',
    backfilled: true,
    token: Y2,
    msg: 'fill',
  },
  {
    level: 30,
    time: T + 5000,
    ...base,
    open: 6,
    fills: 2,
    positions: [
      { token: '1528478504', size: '10' },
      { token: '1083122419', size: '-5.5' },
    ],
    realized: '0.66',
    unrealized: '-0.08',
    markets: 2,
    fees: '0.013',
    msg: 'status',
  },
  {
    level: 30,
    time: T + 10000,
    ...base,
    open: 0,
    fills: 0,
    positions: [],
    realized: '0',
    unrealized: '0',
    rewards: '1.5',
    markets: 1,
    fees: '0',
    day: '-2.345',
    msg: 'status',
  },
  {
    level: 40,
    time: T + 11000,
    ...base,
    component: 'ledger',
    market: M2,
    token: Y2,
    size: '5',
    price: '0.1',
    priceSource: 'mid',
    cause: 'venue_reset',
    msg: "position adjusted to the venue's holdings",
  },
  {
    level: 40,
    time: T + 11500,
    ...base,
    component: 'executor',
    market: M3,
    token: '999',
    code: 'INVALID_ORDER_MIN_SIZE',
    msg: 'order refused',
  },
  {
    level: 50,
    time: T + 12000,
    ...base,
    err: { type: 'Error', message: 'no answer within 5000 ms', stack: 'Error: ...' },
    msg: 'could not backfill fills at shutdown',
  },
  {
    level: 20,
    time: T + 13000,
    ...base,
    component: 'executor',
    market: M1,
    cycle: { sent: 2, tokens: [Y1, N1] },
    msg: 'execution cycle',
  },
  {
    level: 30,
    time: T + 14000,
    ...base,
    component: 'daemon',
    fills: 2,
    session: { fills: 2, volume: '15.5' },
    noOrdersLeft: true,
    reason: 'SIGTERM',
    msg: 'summary',
  },
];

const EXPECTED = `08:03:15 INFO  starting: 2 markets: "Will Apple announce a smart home display in 2026?", "Will the Federal Reserve raise interest rates by 25+…"  address=0xabc strategy=bands
08:03:16 INFO  fill    BUY  10 Yes @ 0.3686 · Will Apple announce a smart home display in 2026?  (maker)
08:03:17 INFO  fill    SELL 5.5 Yes @ 0.12 · Will the Federal Reserve raise interest rates by 25+…  (taker, backfilled)
08:03:20 INFO  status  2 markets · 6 open orders · 2 fills this session · 2 positions · PnL +0.57 USDC (trading +0.58, fees -0.01)
08:03:25 INFO  status  1 market · 0 open orders · 0 fills this session · 0 positions · PnL +1.50 USDC (trading +0.00, fees +0.00, rewards +1.50) · today -2.35
08:03:26 WARN  ledger · Will the Federal Reserve raise interest rates by 25+…: position adjusted to the venue's holdings  token="Yes · Will the Federal Reserve raise interest rates by 25+…" size=5 price=0.1 priceSource=mid cause=venue_reset
08:03:26 WARN  executor · ${M3}: order refused  token=999 code=INVALID_ORDER_MIN_SIZE
08:03:27 ERROR could not backfill fills at shutdown  err="no answer within 5000 ms"
08:03:28 DEBUG executor · Will Apple announce a smart home display in 2026?: execution cycle  cycle={"sent":2,"tokens":["Yes · Will Apple announce a smart home display in 2026?","No · Will Apple announce a smart home display in 2026?"]}
08:03:29 INFO  summary  fills=2 noOrdersLeft=true reason=SIGTERM
a line that is not JSON
`;

function view(color = false): PrettyView {
  const v = new PrettyView({ timeZone: 'utc', color });
  v.setMarkets([
    {
      market: M1,
      question: Q1,
      tokens: [
        { tokenId: Y1, outcome: 'Yes' },
        { tokenId: N1, outcome: 'No' },
      ],
    },
    { market: M2, question: Q2, tokens: [{ tokenId: Y2, outcome: 'Yes' }] },
  ]);
  return v;
}

const renderAll = (v: PrettyView): string =>
  [...LINES.map((l) => `${JSON.stringify(l)}\n`), 'a line that is not JSON\n'].map((l) => v.render(l)).join('');

describe('terminal view: the snapshot', () => {
  it('renders status, fills, warnings and errors as one compact line each, ids named by question and outcome', () => {
    expect(renderAll(view())).toBe(EXPECTED);
  });

  it('has no ANSI codes without colour, and highlights warnings (yellow) and errors (red) with it', () => {
    expect(renderAll(view())).not.toContain('\u001b[');
    const lines = renderAll(view(true)).split('\n');
    expect(lines[5]).toContain('\u001b[1;33mWARN ');
    expect(lines[7]).toContain('\u001b[1;31mERROR');
    expect(lines[7]).toContain('\u001b[31mcould not backfill');
    // with the codes taken out, the coloured text is the plain one
    expect(lines.join('\n').replace(/\u001b\[[\d;]*m/g, '')).toBe(EXPECTED);
  });

  it('learns the questions from the daemon\'s "starting" line when not told the markets', () => {
    const v = new PrettyView({ timeZone: 'utc' });
    v.render(JSON.stringify(LINES[0]));
    expect(v.render(JSON.stringify(LINES[1]))).toBe(
      `08:03:16 INFO  fill    BUY  10 token ${Y1} @ 0.3686 · Will Apple announce a smart home display in 2026?  (maker)\n`,
    );
  });
});

describe('terminal view: a position at exit', () => {
  it('names its token as `token=` (outcome and question), not under `tokenId=` (trial 15 F7)', () => {
    const v = view();
    const line = v.render(
      JSON.stringify({
        level: 30,
        time: T,
        market: M1,
        tokenId: N1,
        size: '5',
        avgPrice: '0.4',
        msg: 'position at exit',
      }),
    );
    expect(line).toContain('token="No · Will Apple announce a smart home display in 2026?" size=5 avgPrice=0.4');
    expect(line).not.toContain('tokenId=');
    // an unknown token keeps its key
    expect(v.render(JSON.stringify({ level: 30, time: T, tokenId: '999', msg: 'position at exit' }))).toContain(
      'tokenId=999',
    );
  });
});

describe('terminal view: a shadow run', () => {
  it("renders its status, fills and start as a real run's, marked SHADOW", () => {
    const v = new PrettyView({ timeZone: 'utc' });
    const r = (o: Record<string, unknown>) => v.render(JSON.stringify({ level: 30, time: T, ...o }));
    expect(
      r({ shadow: true, strategy: 'bands', markets: [{ market: M1, question: Q1 }], msg: 'starting (SHADOW)' }),
    ).toBe(
      '08:03:15 INFO  starting (SHADOW): 1 market: "Will Apple announce a smart home display in 2026?"  shadow=true strategy=bands\n',
    );
    expect(
      r({ shadow: true, open: 2, fills: 1, positions: [], realized: '0.5', unrealized: '0', msg: 'status (SHADOW)' }),
    ).toBe(
      '08:03:15 INFO  status  SHADOW 2 open orders · 1 fill this session · 0 positions · PnL +0.50 USDC (trading +0.50)\n',
    );
    expect(
      r({
        market: M1,
        side: 'SELL',
        price: '0.4',
        size: '3',
        role: 'MAKER',
        status: 'MATCHED',
        shadow: true,
        msg: 'fill (SHADOW: simulated)',
      }),
    ).toBe('08:03:15 INFO  fill    SHADOW SELL 3 @ 0.4 · Will Apple announce a smart home display in 2026?  (maker)\n');
  });
});

describe('terminal view: colours and format', () => {
  it('colours only on a terminal, never with NO_COLOR', () => {
    expect(colorWanted(true, {})).toBe(true);
    expect(colorWanted(false, {})).toBe(false);
    expect(colorWanted(true, { NO_COLOR: '1' })).toBe(false);
    expect(colorWanted(true, { NO_COLOR: '' })).toBe(true);
  });

  it('log.format wins; log.pretty is its alias when it is auto; auto follows the terminal', () => {
    expect(resolveLogFormat('json', 'true', true)).toBe('json');
    expect(resolveLogFormat('pretty', 'false', false)).toBe('pretty');
    expect(resolveLogFormat('auto', 'true', false)).toBe('pretty');
    expect(resolveLogFormat('auto', 'false', true)).toBe('json');
    expect(resolveLogFormat('auto', 'auto', true)).toBe('pretty');
    expect(resolveLogFormat(undefined, undefined, false)).toBe('json');
    expect(logFormatOf({ format: 'auto', pretty: 'true' })).toBe('pretty');
    expect(logFormatOf({ format: 'json', pretty: 'true' })).toBe('json');
    expect(logFormatOf({ format: 'auto', pretty: 'auto' })).toBe('auto');
  });

  it('shortens questions at a word boundary, never cutting one that fits', () => {
    expect(shortQuestion(Q1, 60)).toBe(Q1);
    expect(shortQuestion(Q2, 30)).toBe('Will the Federal Reserve…');
    expect(shortQuestion('  a\n b  ', 10)).toBe('a b');
    expect(shortQuestion('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('keeps two markets apart when their short questions would read the same', () => {
    const a = 'Will the price of Ethereum be above $3,750 on November 27?';
    const b = 'Will the price of Ethereum be above $3,500 on November 27?';
    expect(distinctShortQuestions([a, b, Q1, a], 28)).toEqual([
      'Will the price of Ethereum be above $3,750…',
      'Will the price of Ethereum be above $3,500…',
      'Will Apple announce a smart…',
      'Will the price of Ethereum be above $3,750…',
    ]);
    const v = new PrettyView({ timeZone: 'utc', questionMax: 28 });
    v.setMarkets([
      { market: M1, question: a },
      { market: M2, question: b },
    ]);
    const line = (m: string) => v.render(JSON.stringify({ level: 30, time: T, market: m, msg: 'x' }));
    expect(line(M1)).toBe('08:03:15 INFO  Will the price of Ethereum be above $3,750…: x\n');
    expect(line(M2)).toBe('08:03:15 INFO  Will the price of Ethereum be above $3,500…: x\n');
  });
});

function capture(format: 'pretty' | 'json' | 'auto') {
  let text = '';
  const dest = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  });
  const log = createLogger({ level: 'info', destination: dest as never, format, color: false });
  return { log, text: () => text };
}

afterEach(() => clearSecrets());

describe('logger: the pretty format', () => {
  it('writes through the view, redacting and scrubbing secrets as the JSON lines do', () => {
    const secret = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtMTIzNDU2Nzg5MA==';
    registerSecret(secret);
    const c = capture('pretty');
    expect(terminalView(c.log)).toBeInstanceOf(PrettyView);
    expect(terminalView(c.log.child({ component: 'x' }))).toBe(terminalView(c.log));
    c.log.warn({ passphrase: 'hunter2-long-passphrase', note: `key ${secret}` }, 'careful');
    expect(c.text()).toMatch(/^\d\d:\d\d:\d\d WARN {2}careful {2}passphrase=\[redacted\] note="key \[redacted\]"\n$/);
    expect(c.text()).not.toContain('hunter2');
    expect(c.text()).not.toContain(secret);
  });

  it('auto on a stream that is not a terminal: JSON lines, with no field only the view reads', () => {
    for (const format of ['json', 'auto'] as const) {
      const c = capture(format);
      expect(terminalView(c.log)).toBeUndefined();
      c.log.info({ open: 1, ...prettyOnly(c.log, { markets: 3, fees: '0.01' }) }, 'status');
      const line = JSON.parse(c.text()) as Record<string, unknown>;
      expect(Object.keys(line)).toEqual(['level', 'time', 'pid', 'hostname', 'open', 'msg']);
    }
    const p = capture('pretty');
    p.log.info({ open: 1, ...prettyOnly(p.log, { markets: 3 }) }, 'status');
    expect(p.text()).toContain('status  3 markets · 1 open order');
  });
});
