/** `mmkit status` / `mmkit kill`: which daemon they ask, the control token kill sends, and the human-readable status. */
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostname } from 'node:os';
import { controlToken, daemonUrl, deadDaemonHint, formatStatus } from '../../../src/cli/status.ts';
import {
  newControlToken,
  readControlToken,
  removeControlToken,
  sameToken,
  writeControlToken,
} from '../../../src/ops/daemon-file.ts';
import { acquireDaemonLock } from '../../../src/ops/daemon-lock.ts';
import { CliError, ExitCode } from '../../../src/cli/exit-codes.ts';
import type { StatusSnapshot } from '../../../src/ops/status.ts';

describe('daemonUrl', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mmkit-status-'));
  it('takes --url, then MMKIT_STATUS_URL, then <dataDir>/daemon.json of a living daemon, then ops.httpHost:httpPort', () => {
    expect(daemonUrl({ url: 'http://127.0.0.1:9000/whatever' }, {})).toEqual({
      url: 'http://127.0.0.1:9000',
      source: '--url',
    });
    expect(daemonUrl({ dataDir: dir }, { MMKIT_STATUS_URL: 'http://localhost:9001' }).url).toBe(
      'http://localhost:9001',
    );
    // the configured data dir (not named by --data-dir) records no daemon: the configured port
    const inEnv = { MMKIT_DATA_DIR: dir };
    expect(daemonUrl({}, inEnv).url).toBe('http://127.0.0.1:8787');
    expect(daemonUrl({}, { ...inEnv, MMKIT_HTTP_PORT: '9100' }).url).toBe('http://127.0.0.1:9100');
    expect(daemonUrl({}, { ...inEnv, MMKIT_HTTP_HOST: '0.0.0.0' }).url).toBe('http://127.0.0.1:8787');
    writeFileSync(join(dir, 'daemon.json'), JSON.stringify({ statusUrl: 'http://127.0.0.1:45678', pid: process.pid }));
    expect(daemonUrl({ dataDir: dir }, {})).toEqual({ url: 'http://127.0.0.1:45678', source: `${dir}/daemon.json` });
    // a record of a dead process is ignored
    writeFileSync(
      join(dir, 'daemon.json'),
      JSON.stringify({ statusUrl: 'http://127.0.0.1:45678', pid: 2 ** 22 + 12345 }),
    );
    expect(daemonUrl({}, inEnv).url).toBe('http://127.0.0.1:8787');
  });
  it('a data dir named by --data-dir (or --shadow) that records no daemon: nothing is asked at the configured port (trial 11 F9)', () => {
    // before: the configured port was asked, and another data dir's daemon there answered as this one's
    const d = mkdtempSync(join(tmpdir(), 'mmkit-status-'));
    for (const o of [{ dataDir: d }, { dataDir: d, shadow: true }]) {
      let e: unknown;
      try {
        daemonUrl(o, { MMKIT_HTTP_PORT: '9100' });
      } catch (x) {
        e = x;
      }
      expect(e).toBeInstanceOf(CliError);
      expect((e as CliError).exitCode).toBe(ExitCode.UNREACHABLE);
      expect((e as CliError).message).toMatch(/^no mmkit daemon of .*: it records none running/);
      expect((e as CliError).message).not.toContain('9100');
    }
    expect(
      (() => {
        try {
          daemonUrl({ dataDir: d }, {});
        } catch (x) {
          return (x as Error).message;
        }
        return '';
      })(),
    ).toContain(`mmkit positions --source store --data-dir ${d}`);
  });
  it('without daemon.json, finds the status URL in the lock of a daemon living on this host', async () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-status-'));
    const lock = await acquireDaemonLock(d);
    lock.setStatusUrl('http://127.0.0.1:45679');
    expect(daemonUrl({ dataDir: d }, { MMKIT_HTTP_PORT: '0' })).toEqual({
      url: 'http://127.0.0.1:45679',
      source: `${d}/daemon.lock`,
    });
    lock.release();
    // a lock of a process that is gone is not a daemon: its status URL, marked gone (nothing is asked there)
    writeFileSync(
      join(d, 'daemon.lock'),
      JSON.stringify({
        pid: 2 ** 22 + 12345,
        host: hostname(),
        startedAt: '2026-01-01T00:00:00.000Z',
        nonce: 'x',
        statusUrl: 'http://127.0.0.1:45679',
      }),
    );
    expect(daemonUrl({ dataDir: d }, {})).toEqual({
      url: 'http://127.0.0.1:45679',
      source: `${d}/daemon.lock`,
      gone: true,
    });
  });
  it('refuses a bad URL and a random configured port with nothing recorded (usage, exit 2)', () => {
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const a = err(() => daemonUrl({ url: 'ftp://x' }, {}));
    expect(a).toBeInstanceOf(CliError);
    expect((a as CliError).exitCode).toBe(ExitCode.USAGE);
    const b = err(() =>
      daemonUrl({}, { MMKIT_DATA_DIR: mkdtempSync(join(tmpdir(), 'mmkit-status-')), MMKIT_HTTP_PORT: '0' }),
    );
    expect((b as CliError).exitCode).toBe(ExitCode.USAGE);
  });
});

describe('controlToken (mmkit kill)', () => {
  it('takes --token, then MMKIT_CONTROL_TOKEN, then <dataDir>/control.token, sent only to the daemon that wrote it', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-token-'));
    const local = { url: 'http://127.0.0.1:45680', source: `${d}/daemon.json` };
    expect(controlToken({ token: ' t-flag ', dataDir: d }, local, { MMKIT_CONTROL_TOKEN: 't-env' })).toEqual({
      token: 't-flag',
      source: '--token',
    });
    expect(controlToken({ dataDir: d }, local, { MMKIT_CONTROL_TOKEN: 't-env' })).toEqual({
      token: 't-env',
      source: 'MMKIT_CONTROL_TOKEN',
    });
    // no file yet
    expect(controlToken({ dataDir: d }, local, {})).toEqual({
      token: undefined,
      source: `${d}/control.token`,
      why: 'not found',
    });
    writeControlToken(d, 'c'.repeat(64));
    expect(controlToken({ dataDir: d }, local, {}).token).toBe('c'.repeat(64));
    expect(controlToken({ dataDir: d }, { url: 'http://127.0.0.1:8787', source: 'config' }, {}).token).toBe(
      'c'.repeat(64),
    );
    // a URL given by hand gets the data dir's token only when it is the daemon recorded there
    const other = controlToken({ dataDir: d }, { url: 'http://10.0.0.9:8787', source: '--url' }, {});
    expect(other.token).toBeUndefined();
    expect(other.why).toContain('not sent');
    expect(JSON.stringify(other)).not.toContain('c'.repeat(64));
    writeFileSync(join(d, 'daemon.json'), JSON.stringify({ statusUrl: 'http://127.0.0.1:45680', pid: process.pid }));
    expect(controlToken({ dataDir: d }, { url: 'http://127.0.0.1:45680', source: '--url' }, {}).token).toBe(
      'c'.repeat(64),
    );
    expect(
      controlToken({ dataDir: d }, { url: 'http://127.0.0.1:45681', source: 'MMKIT_STATUS_URL' }, {}).token,
    ).toBeUndefined();
  });

  it('the token file: created 0600, replaced whole, removed only by its owner', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-token-'));
    writeControlToken(d, 'a'.repeat(64));
    expect(statSync(join(d, 'control.token')).mode & 0o777).toBe(0o600);
    expect(readControlToken(d)).toBe('a'.repeat(64));
    writeControlToken(d, 'b'.repeat(64));
    expect(statSync(join(d, 'control.token')).mode & 0o777).toBe(0o600);
    expect(readControlToken(d)).toBe('b'.repeat(64));
    expect(removeControlToken(d, 'a'.repeat(64))).toBe(false);
    expect(readControlToken(d)).toBe('b'.repeat(64));
    expect(removeControlToken(d, 'b'.repeat(64))).toBe(true);
    expect(readControlToken(d)).toBeUndefined();
    expect(removeControlToken(d)).toBe(false);
    expect(sameToken('x', 'x')).toBe(true);
    for (const bad of [undefined, '', 'X', 'xx']) expect(sameToken(bad, 'x')).toBe(false);
    expect(sameToken('', '')).toBe(false);
    expect(newControlToken()).toMatch(/^[0-9a-f]{64}$/);
    expect(newControlToken()).not.toBe(newControlToken());
  });
});

describe('formatStatus', () => {
  it('prints health with reasons, PnL, orders and each market with its book and own quotes', () => {
    const s = {
      schema: 1,
      pid: 42,
      uptimeSec: 3725,
      lifecycle: 'running',
      strategy: { name: 'bands', params: {} },
      account: { address: '0xabc' },
      venue: { url: 'http://127.0.0.1:8080' },
      health: {
        healthy: false,
        status: 'unhealthy',
        reasons: [{ code: 'feed_stale', message: 'no market data for 20.0 s' }],
      },
      pnl: { total: '-1.5', realized: '0.5', unrealized: '-2', fees: '0' },
      inventory: { collateral: { available: '9990', reserved: '10' }, positions: [] },
      orders: { open: 2, placed: 10, cancelled: 8, rejected: 0 },
      fills: {
        count: 1,
        volume: '5',
        notional: '2.25',
        recent: [
          {
            time: '2026-01-01T00:00:00.000Z',
            side: 'BUY',
            outcome: 'Yes',
            size: '5',
            price: '0.45',
            role: 'MAKER',
            question: 'Will it rain?',
          },
        ],
      },
      killSwitch: { tripped: false },
      markets: [
        {
          market: '0xm',
          question: 'Will it rain?',
          quotable: true,
          why: null,
          tokens: [{ tokenId: 't1', outcome: 'Yes', bestBid: '0.45', bestAsk: '0.47', position: '5', stale: false }],
          quotes: [{ tokenId: 't1', side: 'BUY', price: '0.44', size: '5' }],
        },
      ],
    } as unknown as StatusSnapshot;
    const text = formatStatus(s, 'http://127.0.0.1:8787');
    expect(text).toContain('mmkit daemon at http://127.0.0.1:8787: UNHEALTHY (running, up 1h 2m 5s, pid 42)');
    expect(text).toContain('! feed_stale: no market data for 20.0 s');
    expect(text).toContain('total -1.5');
    expect(text).toContain('Will it rain?  [quoting]');
    expect(text).toMatch(/Yes +bid 0\.45 +ask 0\.47 +position 5 +own: bid 0\.44x5/);
    expect(text).toContain('BUY  Yes    5 @ 0.45  MAKER');
    // a daemon of an older mmkit sends no split of the rejections
    expect(text).toMatch(/rejected 0$/m);
    // nor refusals or strategy errors: no line for them
    expect(text).not.toContain('refused');
    expect(text).not.toContain('errors');
    // an older daemon says not whether its venue is a paper exchange: no label; a newer one is labelled
    expect(text).toContain('venue http://127.0.0.1:8080\n');
    const paper = formatStatus({ ...s, venue: { url: 'http://127.0.0.1:8080', paper: true } }, 'http://x');
    expect(paper).toContain('venue http://127.0.0.1:8080 (PAPER)');
    const live = formatStatus({ ...s, venue: { url: 'https://clob.example', paper: false } }, 'http://x');
    expect(live).toContain('venue https://clob.example (LIVE)');
  });

  it("says what the risk gate refused and cut by code, recently and since the start, and the strategy's errors", () => {
    const s = {
      health: { healthy: true, status: 'healthy', reasons: [] },
      strategy: { name: 'bad', params: {} },
      account: { address: '0xabc' },
      venue: { url: 'http://127.0.0.1:8080' },
      pnl: { total: '0', realized: '0', unrealized: '0', fees: '0' },
      inventory: { collateral: { available: '1', reserved: '0' }, positions: [] },
      orders: { open: 0, placed: 0, cancelled: 0, rejected: 0 },
      fills: { count: 0, volume: '0', notional: '0', recent: [] },
      killSwitch: { tripped: false },
      markets: [],
      gate: {
        windowSec: 300,
        refused: { OFF_TICK: 1200, PRICE_BAND: 3 },
        refusedRecent: { OFF_TICK: 30 },
        trimmed: { LOT: 4 },
        trimmedRecent: {},
      },
      strategyErrors: { count: 7, recent: 2, first: { message: 'boom', at: '/x/bad.ts:15:44' } },
    } as unknown as StatusSnapshot;
    const text = formatStatus(s, 'u');
    expect(text).toContain('refused     (last 5 min) OFF_TICK x30   (since start OFF_TICK x1200, PRICE_BAND x3)\n');
    expect(text).toContain('trimmed     (last 5 min) none   (since start LOT x4)\n');
    expect(text).toContain('strategy    errors 7 (last 5 min 2); first: boom at /x/bad.ts:15:44\n');
    // nothing refused, no error: no line
    const quiet = formatStatus(
      {
        ...s,
        gate: { windowSec: 300, refused: {}, refusedRecent: {}, trimmed: {}, trimmedRecent: {} },
        strategyErrors: { count: 0, recent: 0, first: null },
      },
      'u',
    );
    expect(quiet).not.toMatch(/refused|trimmed|errors/);
  });

  it("labels the PnL as the ledger epoch's and the orders and fills as this session's, as the status page (findings-8 F9)", () => {
    const s = {
      health: { healthy: true, status: 'healthy', reasons: [] },
      strategy: { name: 'bands', params: {} },
      account: { address: '0xabc' },
      venue: { url: 'http://127.0.0.1:8080' },
      pnl: { total: '1.698299', trading: '1.698299', realized: '1.181294', unrealized: '0.517005', fees: '0' },
      inventory: { collateral: { available: '1', reserved: '0' }, positions: [] },
      orders: { open: 17, placed: 25, cancelled: 6, rejected: 0 },
      fills: { count: 2, volume: '20', notional: '10', recent: [] },
      killSwitch: { tripped: false },
      markets: [],
      ledger: {
        session: { since: '2026-11-28T11:40:00.000Z', fills: 2, externalFills: 1, ordersPlaced: 25 },
        epoch: {
          id: 1,
          venue: 'http://127.0.0.1:18808/clob#137',
          world: 'abcdef0123456789',
          since: '2026-11-28T11:20:09.000Z',
          fills: 47,
          externalFills: 0,
          adjustments: 2,
          operations: 1,
        },
      },
    } as unknown as StatusSnapshot;
    const text = formatStatus(s, 'u');
    const lines = text.split('\n');
    const pnl = lines.find((l) => l.startsWith('PnL (USDC)  total 1.698299 '));
    expect(pnl).toBeDefined();
    expect(pnl!.endsWith('   (ledger epoch 1)')).toBe(true);
    expect(lines).toContain('orders      open 17   this session: placed 25   cancelled 6   rejected 0');
    expect(text).toContain('fills       this session: 2 + 1 external   volume 20 shares   notional 10 USDC\n');
    expect(text).toContain(
      "ledger      epoch 1 (the PnL's): 47 fills, 2 adjustments, 1 split/merge/redeem since 2026-11-28T11:20:09.000Z (world abcdef01)\n",
    );
    // a daemon of an older mmkit (no ledger): the session labels only, no epoch line
    const old = formatStatus({ ...s, ledger: undefined } as unknown as StatusSnapshot, 'u');
    expect(old).not.toContain('epoch');
    expect(old).toContain('fills       this session: 2   volume');
  });

  it('lists a position held in a market no longer followed, and says an unmarked one is left out of the PnL (findings-8 F13)', () => {
    const s = {
      health: { healthy: true, status: 'healthy', reasons: [] },
      strategy: { name: 'bands', params: {} },
      account: { address: '0xabc' },
      venue: { url: 'http://127.0.0.1:8080' },
      pnl: { total: '10.5', trading: '10.5', realized: '10', unrealized: '0.5', fees: '0', unmarked: 1 },
      inventory: {
        collateral: { available: '1', reserved: '0' },
        positions: [
          {
            market: '0xm',
            question: 'Followed?',
            tokenId: 't1',
            outcome: 'Yes',
            size: '5',
            avgPrice: '0.4',
            mark: '0.5',
          },
          { market: '0xold', question: '', tokenId: 't9', outcome: '', size: '39', avgPrice: '0.047376', mark: null },
        ],
      },
      orders: { open: 0, placed: 0, cancelled: 0, rejected: 0 },
      fills: { count: 0, volume: '0', notional: '0', recent: [] },
      killSwitch: { tripped: false },
      markets: [{ market: '0xm', question: 'Followed?', quotable: true, why: null, tokens: [], quotes: [] }],
    } as unknown as StatusSnapshot;
    const text = formatStatus(s, 'u');
    expect(text).toContain('1 position(s) without a mark not counted in the unrealized PnL');
    expect(text).not.toContain('today');
    const day = { ...s.pnl, day: { date: '2026-11-29', pnl: '-3.5' } };
    expect(formatStatus({ ...s, pnl: day }, 'u')).toContain(
      "today (UTC 2026-11-29) -3.5: the daily loss limit's PnL, net of fees",
    );
    const lines = text.split('\n');
    const at = lines.indexOf('held, not followed:');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('  0xold  t9  position 39 @ avg 0.047376  mark none');
    // the followed market's position is not listed again there
    expect(lines.slice(at).some((l) => l.includes('Followed?'))).toBe(false);
    // none held elsewhere, all marked: neither line
    const quiet = formatStatus(
      { ...s, pnl: { ...s.pnl, unmarked: 0 }, inventory: { ...s.inventory, positions: [] } } as StatusSnapshot,
      'u',
    );
    expect(quiet).not.toContain('held, not followed');
    expect(quiet).not.toContain('without a mark');
  });

  it('says which rejections the kill switch does not count (sell-balance races, post-only crossings)', () => {
    const base = {
      health: { healthy: true, status: 'healthy', reasons: [] },
      strategy: { name: 'bands', params: {} },
      account: { address: '0xabc' },
      venue: { url: 'http://127.0.0.1:8080' },
      pnl: { total: '0', realized: '0', unrealized: '0', fees: '0' },
      inventory: { collateral: { available: '1', reserved: '0' }, positions: [] },
      fills: { count: 0, volume: '0', notional: '0', recent: [] },
      killSwitch: { tripped: false },
      markets: [],
    };
    const text = (orders: object) =>
      formatStatus(
        { ...base, orders: { open: 0, placed: 40, cancelled: 20, ...orders } } as unknown as StatusSnapshot,
        'u',
      );
    expect(text({ rejected: 15, notCounted: { sellBalanceRaces: 12, postOnlyCrossings: 3 } })).toContain(
      'rejected 15 (12 sell-balance races and 3 post-only crossings, not counted by the kill switch)',
    );
    expect(text({ rejected: 2, notCounted: { sellBalanceRaces: 1, postOnlyCrossings: 0 } })).toContain(
      'rejected 2 (1 sell-balance race, not counted by the kill switch)',
    );
    expect(text({ rejected: 2, notCounted: { sellBalanceRaces: 0, postOnlyCrossings: 0 } })).toContain(
      'rejected 2 (all counted by the kill switch)',
    );
  });
});

describe('deadDaemonHint (status and kill with no daemon reachable)', () => {
  const stale = (d: string, pid: number): void =>
    writeFileSync(
      join(d, 'daemon.lock'),
      JSON.stringify({ pid, host: hostname(), startedAt: '2026-11-27T15:00:00.000Z', nonce: 'x' }),
    );
  it('names the pid of a daemon that left its lock behind and points to orders / cancel-all', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-status-'));
    expect(deadDaemonHint({ dataDir: d }, { source: 'config' }, {})).toBeUndefined();
    stale(d, 2 ** 22 + 12345);
    const h = deadDaemonHint({ dataDir: d }, { source: 'config' }, {});
    expect(h).toContain(`pid ${2 ** 22 + 12345}`);
    expect(h).toContain('not running (crashed?)');
    expect(h).toContain(`\`mmkit orders --data-dir ${d}\``);
    expect(h).toContain(`\`mmkit cancel-all --data-dir ${d}\``);
    // another daemon named by --url: the data dir says nothing of it
    expect(deadDaemonHint({ dataDir: d }, { source: '--url' }, {})).toBeUndefined();
  });
  it('names the --config (and the keystore password) the daemon ran with, as its venue.json records them', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-status-'));
    stale(d, 2 ** 22 + 12347);
    writeFileSync(
      join(d, 'venue.json'),
      JSON.stringify({
        pid: 2 ** 22 + 12347,
        urls: { clob: 'https://192.0.2.2:18081/clob' },
        config: '/srv/mm/remote.json',
        keystore: '/srv/mm/keystore.json',
      }),
    );
    const h = deadDaemonHint({ dataDir: d }, { source: 'config' }, {});
    expect(h).toContain(`\`mmkit orders --config /srv/mm/remote.json --data-dir ${d}\``);
    expect(h).toContain(`\`mmkit cancel-all --config /srv/mm/remote.json --data-dir ${d}\``);
    expect(h).toContain('MMKIT_KEYSTORE_PASSWORD set for its keystore /srv/mm/keystore.json');
    expect(h).toContain('https://192.0.2.2:18081/clob');
    // none recorded: the --config given to status
    writeFileSync(join(d, 'venue.json'), JSON.stringify({ pid: 2 ** 22 + 12347, url: 'http://127.0.0.1:18090' }));
    const mine = join(d, 'my.json');
    writeFileSync(mine, '{}');
    expect(deadDaemonHint({ dataDir: d, config: mine }, { source: 'config' }, {})).toContain(
      `\`mmkit orders --config ${mine} --data-dir ${d}\``,
    );
  });
  it("a fleet member's: its markets' new holder cancels what it left; cancel-all would take every member's (trial 22 F6)", () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-status-'));
    stale(d, 2 ** 22 + 12349);
    writeFileSync(
      join(d, 'venue.json'),
      JSON.stringify({ pid: 2 ** 22 + 12349, url: 'http://127.0.0.1:18090', fleet: true }),
    );
    const h = deadDaemonHint({ dataDir: d }, { source: 'config' }, {})!;
    expect(h).toContain('it was a fleet member: a live member takes its markets over');
    expect(h).toContain(`\`mmkit fleet status --data-dir ${d}\``);
    expect(h).toContain("`mmkit cancel-all` would cancel every member's orders");
    expect(h).not.toContain('cancel them with');
  });
  it('without a lock, a daemon.json of a dead pid; a shadow run left no order at the venue', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-status-'));
    writeFileSync(join(d, 'daemon.json'), JSON.stringify({ statusUrl: 'http://127.0.0.1:9', pid: 2 ** 22 + 7 }));
    expect(deadDaemonHint({ dataDir: d }, { source: 'config' }, {})).toContain(`pid ${2 ** 22 + 7}`);
    const s = mkdtempSync(join(tmpdir(), 'mmkit-status-'));
    mkdirSync(join(s, 'shadow'));
    stale(join(s, 'shadow'), 2 ** 22 + 8);
    const h = deadDaemonHint({ dataDir: s, shadow: true }, { source: 'config' }, {});
    expect(h).toContain('a shadow run sends no order to the venue');
    expect(h).not.toContain('cancel-all');
  });
});
