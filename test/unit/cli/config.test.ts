import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describeConfig,
  loadConfig,
  loadConfigDetailed,
  redactConfig,
  REDACTED,
  schemaLeaves,
} from '../../../src/cli/config.ts';
import { checkConfig } from '../../../src/cli/config-check.ts';
import { apiCredentialsOf, budgetsOf, resolveVenue, writeDaemonVenue } from '../../../src/cli/venue.ts';
import { ConfigError, NetworkError } from '../../../src/core/errors.ts';
import { ExitCode, exitCodeOf } from '../../../src/cli/exit-codes.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mmkit-cfg-'));
let n = 0;
const file = (body: unknown, name = `f${n++}.json`) => {
  const p = join(dir, name);
  writeFileSync(p, typeof body === 'string' ? body : JSON.stringify(body));
  return p;
};
const KEY = '0x' + 'ab'.repeat(32);

/** The ConfigError `f` throws. */
function configError(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('no ConfigError thrown');
}

describe('config: precedence', () => {
  it('loads defaults, then a file, then env, then flags', () => {
    expect(loadConfig(undefined, {}, {}).exchange.port).toBe(8080);
    const f = file({ exchange: { port: 9001, seed: 5 } });
    expect(loadConfig(f, {}, {}).exchange).toMatchObject({ port: 9001, seed: 5 });
    expect(loadConfig(f, {}, { MMKIT_EXCHANGE_PORT: '9002' }).exchange.port).toBe(9002);
    expect(loadConfig(f, { 'exchange.port': 9003 }, { MMKIT_EXCHANGE_PORT: '9002' }).exchange.port).toBe(9003);
  });

  it('applies the same order to nested sections (risk limits, JSON objects) and reports each source', () => {
    const f = file({
      bot: {
        risk: { maxLoss: 50, maxPositionShares: 60, markets: { ['0x' + '1'.repeat(64)]: { maxOrderSizeShares: 3 } } },
        params: { bands: 2 },
      },
    });
    const r = loadConfigDetailed(
      f,
      { 'bot.risk.maxPositionShares': '80' },
      { MMKIT_RISK_MAX_LOSS: '40', MMKIT_LOG_LEVEL: 'warn' },
    );
    expect(r.config.bot.risk).toMatchObject({ maxLoss: 40, maxPositionShares: 80, maxOrderSizeShares: 100 });
    expect(r.config.bot.risk.markets).toEqual({ ['0x' + '1'.repeat(64)]: { maxOrderSizeShares: 3 } });
    expect(r.config.bot.params).toEqual({ bands: 2 });
    expect(r.sources).toMatchObject({
      'bot.risk.maxLoss': 'env',
      'bot.risk.maxPositionShares': 'flag',
      'bot.risk.markets': `file:${f}`,
      'log.level': 'env',
      'exchange.port': 'file:config/default.json',
      'bot.marketCount': 'default',
    });
    // env beats a file for JSON-object keys too
    expect(loadConfig(f, {}, { MMKIT_STRATEGY_PARAMS: '{"bands":4}' }).bot.params).toEqual({ bands: 4 });
    expect(r.files).toEqual(['config/default.json', f]);
  });

  it('has an MMKIT_* environment variable for every key, all distinct, documented', () => {
    const leaves = schemaLeaves();
    expect(leaves.length).toBeGreaterThan(60);
    const envs = leaves.map((l) => l.env);
    for (const l of leaves) {
      expect(l.env, l.key).toMatch(/^MMKIT_[A-Z0-9_]+$/);
      expect(l.doc.length, l.key).toBeGreaterThan(10);
    }
    expect(new Set(envs).size).toBe(envs.length);
    const doc = describeConfig();
    for (const line of doc.split('\n').slice(2)) expect(line).toMatch(/^\| `[\w.]+` \| `MMKIT_\w+` \|/);
    expect(doc).toContain(
      '| `log.level` | `MMKIT_LOG_LEVEL` | `"info"` | `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent` |',
    );
    expect(doc).toContain('| `bot.risk.maxLoss` | `MMKIT_RISK_MAX_LOSS` | `100` | number 0 to 1000000000 |');
    // a secret's default is never printed
    expect(doc).toContain('| `secrets.privateKey` | `MMKIT_PRIVATE_KEY` | `""` |');
    // every secret (refused in a file) says so, fleet.redisUrl and exchange.adminToken included (findings 2 F10)
    expect(doc).toContain('| `fleet.redisUrl` | `MMKIT_REDIS_URL` | `""` | string (env only) |');
    expect(doc).toContain('| `exchange.adminToken` | `MMKIT_ADMIN_TOKEN` | `""` | string (env only) |');
  });
});

describe('config: comments and secrets in files', () => {
  it('drops keys starting with // or _comment at any depth', () => {
    const f = file({
      '//': 'top',
      _comment: 'x',
      bot: {
        '//strategy': 'why',
        _comment_2: 'y',
        risk: { _comment: 'z', maxLoss: 7 },
        params: { '//bands': 'c', bands: 2 },
      },
    });
    const c = loadConfig(f, {}, {});
    expect(c.bot.risk.maxLoss).toBe(7);
    expect(c.bot.params).toEqual({ bands: 2 });
  });

  it('refuses a secret set in a file, naming the key and its variable', () => {
    const e = configError(() => loadConfig(file({ secrets: { privateKey: KEY } }), {}, {}));
    expect(e.key).toBe('secrets.privateKey');
    expect(e.message).toContain('MMKIT_PRIVATE_KEY');
    expect(e.message).not.toContain(KEY.slice(2));
    expect(configError(() => loadConfig(file({ exchange: { adminToken: 'tok' } }), {}, {})).key).toBe(
      'exchange.adminToken',
    );
    // an empty one is fine (documents the key)
    expect(loadConfig(file({ secrets: { apiKey: '' } }), {}, {}).secrets.apiKey).toBe('');
    expect(loadConfig(undefined, {}, { MMKIT_PRIVATE_KEY: KEY }).secrets.privateKey).toBe(KEY);
  });

  it('says which file is missing or not JSON', () => {
    expect(configError(() => loadConfig(join(dir, 'missing.json'), {}, {})).key).toBe('--config');
    const e = configError(() => loadConfig(file('{"bot": '), {}, {}));
    expect(e.message).toContain('not valid JSON');
  });
});

describe('config: a JSON variable that is not JSON (trial 13 F12)', () => {
  it('names the key and the variable, never the value', () => {
    const bad = (env: Record<string, string>) => {
      try {
        loadConfig(undefined, {}, env);
      } catch (e) {
        return (e as ConfigError).problems;
      }
      return [];
    };
    const one = bad({ MMKIT_STRATEGY_PARAMS: '{fakSize:3}' });
    expect(one).toHaveLength(1);
    expect(one[0]!.key).toBe('bot.params');
    expect(one[0]!.message).toMatch(/^MMKIT_STRATEGY_PARAMS is not valid JSON: Expected property name .* position 1/);
    const two = bad({ MMKIT_STRATEGY_PARAMS: 'secretish', MMKIT_RISK_MARKETS: '[1' });
    expect(two.map((p) => p.key)).toEqual(['bot.params', 'bot.risk.markets']);
    expect(JSON.stringify(two)).not.toContain('secretish');
  });
});

describe('config: strict validation names the key and what is allowed', () => {
  it.each([
    [{ exchange: { port: 70000 } }, 'exchange.port', /an integer from 0 to 65535: value was 70000/],
    [{ exchange: { prot: 1 } }, 'exchange.prot', /allowed under exchange: host, port, seed/],
    [{ botx: {} }, 'botx', /allowed at the top level: exchange, bot, venue/],
    [{ bot: { risk: { maxLos: 1 } } }, 'bot.risk.maxLos', /maxLoss/],
    [{ exchange: { startingBalance: '10.1234567' } }, 'exchange.startingBalance', /at most 6 decimals/],
    [{ exchange: { rateLimits: { scale: 0 } } }, 'exchange.rateLimits.scale', /positive number/],
    [
      { log: { level: 'loud' } },
      'log.level',
      /one of the possible values: \["fatal","error","warn","info","debug","trace","silent"\]/,
    ],
    [{ log: { pretty: 'yes' } }, 'log.pretty', /"auto","true","false"/],
    [{ log: { format: 'fancy' } }, 'log.format', /"auto","pretty","json"/],
    [{ bot: { risk: { maxLoss: -1 } } }, 'bot.risk.maxLoss', /a number in \[0, 1000000000\]/],
    [{ bot: { risk: { maxOpenOrdersGlobal: 1.5 } } }, 'bot.risk.maxOpenOrdersGlobal', /an integer in \[0, 100000\]/],
    [{ bot: { restartPolicy: 'keep' } }, 'bot.restartPolicy', /\["cancel","adopt"\]/],
    [{ bot: { foreignOrders: 'ignore' } }, 'bot.foreignOrders', /\["leave","cancel","adopt"\]/],
    [{ bot: { postOnly: 'yes' } }, 'bot.postOnly', /true or false/],
    [{ bot: { exchangeUrl: 'ftp://x' } }, 'bot.exchangeUrl', /http:\/\/ or https:\/\/ URL/],
    [{ venue: { wsUrl: 'http://x' } }, 'venue.wsUrl', /ws:\/\/ or wss:\/\//],
    [{ venue: { funder: '0x12' } }, 'venue.funder', /0x \+ 40 hex/],
    [{ venue: { signatureType: 'proxy' } }, 'venue.signatureType', /"eoa","poly-proxy","gnosis-safe"/],
    [{ budgets: { headroom: 0.95 } }, 'budgets.headroom', /\[0, 0.9\]/],
    [{ bot: { duration: 'soon' } }, 'bot.duration', /30s, 5m/],
    // 0 markets would pass here and stop `run` later, blaming the filters
    [{ bot: { marketCount: 0 } }, 'bot.marketCount', /\[1, inf\]/],
  ] as const)('%j → %s', (body, key, allowed) => {
    const e = configError(() => loadConfig(file(body), {}, {}));
    expect(e.key).toBe(key);
    expect(e.message).toMatch(allowed);
  });

  it('reports every bad key, not only the first (schema, unknown keys, secrets in a file)', () => {
    const e = configError(() =>
      loadConfig(file({ log: { level: 'loud' }, bot: { risk: { maxLoss: -5 } }, exchange: { prot: 1 } }), {}, {}),
    );
    expect(e.key).toBe('log.level');
    expect(e.problems.map((p) => p.key).sort()).toEqual(['bot.risk.maxLoss', 'exchange.prot', 'log.level']);
    expect(e.problems.find((p) => p.key === 'bot.risk.maxLoss')?.message).toMatch(/a number in \[0, 1000000000\]/);
    expect(e.message).toContain('config bot.risk.maxLoss: ');
    const s = configError(() => loadConfig(file({ secrets: { privateKey: KEY, apiSecret: 'c2VjcmV0' } }), {}, {}));
    expect(s.problems.map((p) => p.key)).toEqual(['secrets.privateKey', 'secrets.apiSecret']);
    expect(JSON.stringify(s.problems)).not.toContain(KEY.slice(2));
    // a single problem is one entry too
    expect(configError(() => loadConfig(file({ log: { level: 'loud' } }), {}, {})).problems).toHaveLength(1);
  });

  it("a scalar where a section is: one problem naming the section, its keys and the value's type", () => {
    const e = configError(() => loadConfig(file({ bot: { tolerance: 7 } }), {}, {}));
    expect(e.problems).toEqual([
      { key: 'bot.tolerance', message: 'must be an object {priceTicks, sizeFraction}: value was a number' },
    ]);
    const m = configError(() => loadConfig(file({ log: 3, exchange: { rateLimits: true } }), {}, {}));
    expect(m.problems.map((p) => p.key).sort()).toEqual(['exchange.rateLimits', 'log']);
    expect(m.message).not.toMatch(/unknown key|did you override|config config/);
  });

  it('a scalar in place of a section that holds secrets: the error names its type, never the value', () => {
    const redis = 'redis://:hunter2@redis:6379';
    const e = configError(() => loadConfig(file({ secrets: KEY, fleet: redis }), {}, {}));
    expect(e.problems).toEqual([
      {
        key: 'secrets',
        message:
          'must be an object {privateKey, keystorePassword, apiKey, apiSecret, apiPassphrase}: value was a string',
      },
      { key: 'fleet', message: 'must be an object {redisUrl, member, maxMembers, reserve}: value was a string' },
    ]);
    expect(e.message).not.toContain(KEY.slice(2));
    expect(e.message).not.toContain('hunter2');
    const a = configError(() => loadConfig(file({ secrets: [KEY], fleet: [redis] }), {}, {}));
    expect(a.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/: value was an array$/),
      expect.stringMatching(/: value was an array$/),
    ]);
    expect(JSON.stringify(a.problems)).not.toMatch(new RegExp(`${KEY.slice(2)}|hunter2`));
  });

  it('cross-key risk checks are reported with the schema problems, in one run', () => {
    const e = configError(() =>
      loadConfig(file({ bot: { risk: { minPrice: 0.9, maxPrice: 0.1 } }, log: { level: 'loud' } }), {}, {}),
    );
    expect(e.problems.map((p) => p.key)).toEqual(['log.level', 'bot.risk.minPrice']);
    expect(e.problems[1]!.message).toBe('must not exceed maxPrice (0.1), got 0.9');
  });

  it('whole numbers and ports: worded as `config docs` says, with the value', () => {
    const nat = configError(() => loadConfig(file({ bot: { tolerance: { priceTicks: -1 } } }), {}, {}));
    expect(nat.problems).toEqual([
      { key: 'bot.tolerance.priceTicks', message: 'must be an integer >= 0: value was -1' },
    ]);
    const port = configError(() => loadConfig(file({ ops: { httpPort: 'abc' } }), {}, {}));
    expect(port.problems).toEqual([
      { key: 'ops.httpPort', message: 'must be a port, an integer from 0 to 65535: value was "abc"' },
    ]);
    expect(configError(() => loadConfig(undefined, {}, { MMKIT_HTTP_PORT: '99999' })).problems[0]!.message).toBe(
      'must be a port, an integer from 0 to 65535: value was 99999',
    );
    // no longer parseInt's reading: "12abc" is not 12
    expect(configError(() => loadConfig(undefined, {}, { MMKIT_HTTP_PORT: '12abc' })).key).toBe('ops.httpPort');
    expect(loadConfig(file({ ops: { httpPort: '9100' } }), {}, { MMKIT_EXCHANGE_SEED: ' 7 ' })).toMatchObject({
      ops: { httpPort: 9100 },
      exchange: { seed: 7 },
    });
  });

  it('validates environment values strictly (no "ture" is true) and never echoes a secret', () => {
    expect(configError(() => loadConfig(undefined, {}, { MMKIT_EXCHANGE_LIFECYCLE: 'ture' })).key).toBe(
      'exchange.lifecycle',
    );
    expect(loadConfig(undefined, {}, { MMKIT_EXCHANGE_LIFECYCLE: 'false' }).exchange.lifecycle).toBe(false);
    expect(loadConfig(undefined, {}, { MMKIT_BUDGETS: '0' }).budgets.enabled).toBe(false);
    const e = configError(() => loadConfig(undefined, {}, { MMKIT_PRIVATE_KEY: 'deadbeef-not-a-key' }));
    expect(e.key).toBe('secrets.privateKey');
    expect(e.message).not.toContain('deadbeef');
    expect(configError(() => loadConfig(undefined, {}, { MMKIT_RISK_MAX_LOSS: 'lots' })).key).toBe('bot.risk.maxLoss');
  });

  it('bot.postOnly (default true) and bot.foreignOrders (default leave), from files and the environment', () => {
    const d = loadConfig(undefined, {}, {});
    expect(d.bot.postOnly).toBe(true);
    expect(d.bot.foreignOrders).toBe('leave');
    expect(d.bot.restartPolicy).toBe('cancel');
    const e = loadConfig(undefined, {}, { MMKIT_POST_ONLY: 'false', MMKIT_FOREIGN_ORDERS: 'cancel' });
    expect(e.bot.postOnly).toBe(false);
    expect(e.bot.foreignOrders).toBe('cancel');
    expect(loadConfig(file({ bot: { foreignOrders: 'adopt', postOnly: false } }), {}, {}).bot).toMatchObject({
      foreignOrders: 'adopt',
      postOnly: false,
    });
  });

  it('exchange.protocol: 2 by default (CLOB V2), 1 or 2 from files, env and flags', () => {
    expect(loadConfig(undefined, {}, {}).exchange.protocol).toBe(2);
    expect(loadConfig(undefined, {}, { MMKIT_EXCHANGE_PROTOCOL: '1' }).exchange.protocol).toBe(1);
    expect(loadConfig(file({ exchange: { protocol: 1 } }), {}, {}).exchange.protocol).toBe(1);
    expect(loadConfig(undefined, { 'exchange.protocol': 1 }, { MMKIT_EXCHANGE_PROTOCOL: '2' }).exchange.protocol).toBe(
      1,
    );
    for (const bad of ['3', 'v2', '2.0'])
      expect(configError(() => loadConfig(undefined, {}, { MMKIT_EXCHANGE_PROTOCOL: bad })).key).toBe(
        'exchange.protocol',
      );
    expect(configError(() => loadConfig(file({ exchange: { protocol: 3 } }), {}, {})).key).toBe('exchange.protocol');
  });

  it('validates flags the same way', () => {
    expect(configError(() => loadConfig(undefined, { 'bot.marketCount': 'three' }, {})).key).toBe('bot.marketCount');
  });
});

describe('config: the shipped files', () => {
  it('default, paper and live.example load', () => {
    expect(loadConfig(undefined, {}, {}).bot.strategy).toBe('bands');
    expect(loadConfig(join(ROOT, 'config/paper.json'), {}, {}).exchange.seed).toBe(42);
    const live = loadConfig(join(ROOT, 'config/live.example.json'), {}, {});
    expect(live.venue.clobUrl).toMatch(/^https:\/\//);
    expect(live.budgets.headroom).toBe(0.2);
  });

  it('live.example.json passes `config check` pointed at paper URLs, and needs a wallet for a real venue', async () => {
    const body = {
      venue: {
        clobUrl: 'http://127.0.0.1:8080/clob',
        gammaUrl: 'http://127.0.0.1:8080/gamma',
        dataUrl: 'http://127.0.0.1:8080/data',
        contentUrl: 'http://127.0.0.1:8080/content',
        relayerUrl: 'http://127.0.0.1:8080/relayer',
        wsUrl: 'ws://127.0.0.1:8080',
        rtdsUrl: 'ws://127.0.0.1:8080/rtds',
      },
    };
    const merged = JSON.parse(
      JSON.stringify(
        await import('../../../config/live.example.json', { with: { type: 'json' } }).then((m) => m.default),
      ),
    );
    Object.assign(merged.venue, body.venue);
    const f = file(merged);
    const paper = await checkConfig(loadConfig(f, {}, {}), [f]);
    expect(paper.problems).toEqual([]);
    expect(paper).toMatchObject({
      ok: true,
      wallet: 'paper',
      venue: { inProcess: false, paper: true },
      strategy: { name: 'bands' },
    });
    const real = await checkConfig(loadConfig(join(ROOT, 'config/live.example.json'), {}, {}), []);
    expect(real.ok).toBe(false);
    expect(real.problems.map((p) => p.key)).toEqual(['bot.keystoreFile']);
    const withKey = await checkConfig(
      loadConfig(join(ROOT, 'config/live.example.json'), {}, { MMKIT_PRIVATE_KEY: KEY }),
      [],
    );
    expect(withKey).toMatchObject({ ok: true, wallet: 'private-key' });
    expect(withKey.warnings).toEqual([]);
    // real money without a (daily) loss limit: said, not refused; a paper venue: nothing said
    const noLimits = await checkConfig(
      loadConfig(
        join(ROOT, 'config/live.example.json'),
        {},
        { MMKIT_PRIVATE_KEY: KEY, MMKIT_RISK_MAX_LOSS: '0', MMKIT_RISK_MAX_DAILY_LOSS: '0' },
      ),
      [],
    );
    expect(noLimits.ok).toBe(true);
    expect(noLimits.warnings.map((w) => w.key)).toEqual(['bot.risk.maxLoss', 'bot.risk.maxDailyLoss']);
    expect(noLimits.warnings[1]?.message).toMatch(/no daily loss limit.*not a paper exchange/);
    const paperNoLimits = await checkConfig(loadConfig(f, {}, { MMKIT_RISK_MAX_DAILY_LOSS: '0' }), [f]);
    expect(paperNoLimits.warnings).toEqual([]);
  });

  it('check warns when a keystore and MMKIT_PRIVATE_KEY are both set, naming the one used (findings-5 P2)', async () => {
    const ks = join(dir, 'both-keystore.json');
    writeFileSync(ks, JSON.stringify({ crypto: {} }));
    const cfg = loadConfig(
      file({ bot: { keystoreFile: ks } }),
      {},
      { MMKIT_PRIVATE_KEY: KEY, MMKIT_KEYSTORE_PASSWORD: 'a-password' },
    );
    const r = await checkConfig(cfg, []);
    expect(r).toMatchObject({ ok: true, wallet: 'keystore' });
    expect(r.warnings).toEqual([
      {
        key: 'secrets.privateKey',
        message: expect.stringMatching(
          /MMKIT_PRIVATE_KEY is set too and ignored: the keystore .*both-keystore\.json is the wallet used/,
        ),
      },
    ]);
  });

  it("check runs the strategy's create() as `mmkit run` does: a bands file it cannot read or parse is a problem (trial 7 F11)", async () => {
    const check = (params: Record<string, unknown>) =>
      checkConfig(loadConfig(file({ bot: { strategy: 'bands', params } }), {}, {}), []);
    // a file that is not JSON (here one that holds a key): named, its content never quoted
    const secret = join(dir, 'wallet.key');
    writeFileSync(secret, 'secretvalue-not-json\n');
    const notJson = await check({ bandsFile: secret });
    expect(notJson.ok).toBe(false);
    expect(notJson.problems).toEqual([{ key: 'bot.params.bandsFile', message: `${secret}: not valid JSON` }]);
    // missing, and a band create() refuses: the same messages as `mmkit run`'s
    const missing = await check({ bandsFile: join(dir, 'none.json') });
    expect(missing.problems).toEqual([
      { key: 'bot.params.bandsFile', message: `${join(dir, 'none.json')}: cannot read the bands file (no such file)` },
    ]);
    const bad = join(dir, 'bad-bands.json');
    writeFileSync(bad, JSON.stringify({ bands: [{ minMargin: 0.02, avgMargin: 0.02, maxMargin: 0.01 }] }));
    expect((await check({ bandsFile: bad })).problems[0]?.key).toBe('bot.params.bandsFile');
    // both set: create()'s cross-parameter check
    expect((await check({ bandsFile: bad, bandsJson: '[]' })).problems).toEqual([
      { key: 'bot.params.bandsFile', message: 'set bandsFile or bandsJson, not both' },
    ]);
    // a good file passes
    const good = join(dir, 'good-bands.json');
    writeFileSync(
      good,
      JSON.stringify({
        bands: [{ minMargin: 0.01, avgMargin: 0.02, maxMargin: 0.03, minAmount: 5, avgAmount: 10, maxAmount: 15 }],
      }),
    );
    expect(await check({ bandsFile: good })).toMatchObject({ ok: true, problems: [] });
  });

  it('check names problems beyond the schema with their config keys', async () => {
    const cfg = loadConfig(
      file({
        bot: {
          params: { bands: 99 },
          risk: { markets: { ['0x' + '2'.repeat(64)]: { maxOrderSizeShares: 0 } } },
          keystoreFile: join(dir, 'nope.json'),
          markets: ['abc'],
        },
        venue: { signatureType: 'gnosis-safe' },
      }),
      {},
      { MMKIT_API_KEY: 'k' },
    );
    const r = await checkConfig(cfg, []);
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => p.key).sort()).toEqual(
      [
        'bot.risk.markets.0x' + '2'.repeat(64) + '.maxOrderSizeShares',
        'bot.params.bands',
        'bot.keystoreFile',
        'secrets.keystorePassword',
        'secrets.apiSecret',
        'venue.funder',
        'bot.markets',
      ].sort(),
    );
    expect(r.problems.find((p) => p.key === 'bot.params.bands')!.message).toMatch(/<= 10/);
  });
});

describe('config print: redaction', () => {
  it('shows set secrets as [redacted], unset ones as "", and masks URL passwords', () => {
    const cfg = loadConfig(
      undefined,
      { 'bot.exchangeUrl': 'http://user:hunter2@127.0.0.1:8080' },
      { MMKIT_PRIVATE_KEY: KEY, MMKIT_API_SECRET: 's3cr3t', MMKIT_ADMIN_TOKEN: 'adm1n' },
    );
    const red = redactConfig(cfg) as any;
    expect(red.secrets).toEqual({
      privateKey: REDACTED,
      keystorePassword: '',
      apiKey: '',
      apiSecret: REDACTED,
      apiPassphrase: '',
    });
    expect(red.exchange.adminToken).toBe(REDACTED);
    expect(red.bot.exchangeUrl).toBe('http://user:***@127.0.0.1:8080/');
    const text = JSON.stringify(red);
    for (const s of [KEY.slice(2), 's3cr3t', 'adm1n', 'hunter2']) expect(text).not.toContain(s);
    // the configuration itself is untouched
    expect(cfg.secrets.apiSecret).toBe('s3cr3t');
  });
});

describe('venue resolution', () => {
  it('derives every API from one base URL, lets venue.*Url override, and otherwise uses the paper exchange of the config', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-venue-'));
    const def = resolveVenue(loadConfig(undefined, { 'bot.dataDir': d }, {}));
    expect(def).toMatchObject({
      source: 'default',
      paper: true,
      urls: { clob: 'http://127.0.0.1:8080/clob', ws: 'ws://127.0.0.1:8080' },
    });
    const one = resolveVenue(
      loadConfig(
        undefined,
        { 'bot.exchangeUrl': 'https://venue.example', 'venue.dataUrl': 'https://data.venue.example/' },
        {},
      ),
    );
    expect(one).toMatchObject({
      source: 'config',
      paper: false,
      urls: {
        clob: 'https://venue.example/clob',
        ws: 'wss://venue.example',
        data: 'https://data.venue.example',
        relayer: 'https://venue.example/relayer',
      },
    });
    const relayer = resolveVenue(
      loadConfig(
        undefined,
        { 'bot.exchangeUrl': 'https://venue.example', 'venue.relayerUrl': 'https://relayer.venue.example/' },
        {},
      ),
    );
    expect(relayer.urls.relayer).toBe('https://relayer.venue.example');
    expect(
      configError(() => resolveVenue(loadConfig(undefined, { 'venue.clobUrl': 'https://clob.example' }, {}))).key,
    ).toBe('venue.gammaUrl');
    // a running daemon's in-process exchange is found through its data directory
    writeDaemonVenue(d, 'http://127.0.0.1:45678');
    expect(resolveVenue(loadConfig(undefined, { 'bot.dataDir': d }, {}))).toMatchObject({
      source: 'daemon',
      urls: { clob: 'http://127.0.0.1:45678/clob' },
    });
    // ...and so is the venue a daemon was given (--exchange-url, venue.*Url), without any credentials
    const d2 = mkdtempSync(join(tmpdir(), 'mmkit-venue-'));
    writeDaemonVenue(d2, 'https://user:pw@venue.example/?key=k1', { relayer: 'https://r.example/x?token=t1' });
    const rec = readFileSync(join(d2, 'venue.json'), 'utf8');
    for (const secret of ['user', 'pw', 'k1', 't1']) expect(rec).not.toContain(secret);
    expect(resolveVenue(loadConfig(undefined, { 'bot.dataDir': d2 }, {}))).toMatchObject({
      source: 'daemon',
      urls: { clob: 'https://venue.example/clob', relayer: 'https://r.example/x' },
    });
    const d3 = mkdtempSync(join(tmpdir(), 'mmkit-venue-'));
    const per = { clob: 'https://clob.example', gamma: 'https://g.example', data: 'https://d.example' };
    writeDaemonVenue(d3, undefined, { ...per, content: 'https://c.example', ws: 'wss://ws.example' });
    expect(resolveVenue(loadConfig(undefined, { 'bot.dataDir': d3 }, {}))).toMatchObject({
      source: 'daemon',
      urls: { ...per, ws: 'wss://ws.example' },
    });
  });

  it('the content API is optional: the live profile (contentUrl "") resolves; a missing API names what to set', () => {
    const live = resolveVenue(loadConfig('config/polymarket.json', {}, {}));
    expect(live).toMatchObject({ source: 'explicit', paper: false, urls: { clob: 'https://clob.polymarket.com' } });
    expect(live.urls.content).toBeUndefined();
    const e = configError(() =>
      resolveVenue(
        loadConfig(undefined, { 'venue.clobUrl': 'https://clob.example', 'venue.gammaUrl': 'https://g.example' }, {}),
      ),
    );
    expect(e.key).toBe('venue.dataUrl');
    expect(e.message).toContain('venue.clobUrl, venue.gammaUrl, venue.dataUrl and venue.wsUrl');
    expect(e.message).not.toContain('set both');
  });

  it('budgets apply scale and headroom; API credentials are all or none', () => {
    expect(
      budgetsOf(loadConfig(undefined, {}, { MMKIT_BUDGET_SCALE: '2', MMKIT_BUDGET_HEADROOM: '0.25' })),
    ).toMatchObject({ enabled: true, scale: 1.5 });
    expect(apiCredentialsOf(loadConfig(undefined, {}, {}))).toBeUndefined();
    expect(
      apiCredentialsOf(
        loadConfig(undefined, {}, { MMKIT_API_KEY: 'k', MMKIT_API_SECRET: 'c2VjcmV0', MMKIT_API_PASSPHRASE: 'p' }),
      ),
    ).toEqual({ apiKey: 'k', secret: 'c2VjcmV0', passphrase: 'p' });
    expect(
      configError(() =>
        apiCredentialsOf(loadConfig(undefined, {}, { MMKIT_API_KEY: 'k', MMKIT_API_SECRET: 'c2VjcmV0' })),
      ).key,
    ).toBe('secrets.apiPassphrase');
  });

  it('an API secret that is not base64 is refused at load, naming the key and never echoing it (trial 7)', () => {
    for (const bad of ['not base64 !!X', 's', 'abc$def', '====']) {
      const e = configError(() =>
        loadConfig(undefined, {}, { MMKIT_API_KEY: 'k', MMKIT_API_SECRET: bad, MMKIT_API_PASSPHRASE: 'p' }),
      );
      expect(e.key).toBe('secrets.apiSecret');
      expect(e.message).toContain('must be the API secret in base64');
      if (bad.length > 4) expect(e.message).not.toContain(bad);
    }
    // both alphabets (the public service's secrets are url-safe base64)
    for (const good of ['c2VjcmV0LXNlY3JldA==', 'ab-_cd12', 'ab+/cd12'])
      expect(loadConfig(undefined, {}, { MMKIT_API_SECRET: good }).secrets.apiSecret).toBe(good);
  });
});

describe('exit codes', () => {
  it('maps config errors to 2, an unreachable venue to 3, the rest to 1', () => {
    expect(exitCodeOf(new ConfigError('x', 'y'))).toBe(ExitCode.USAGE);
    expect(exitCodeOf(new NetworkError('down'))).toBe(ExitCode.UNREACHABLE);
    expect(exitCodeOf(new Error('bug'))).toBe(ExitCode.FAILURE);
  });
});

describe('config: the market silence deadline against the health (findings-6 F1)', () => {
  it('by default the books go stale (quotes pulled) no later than /healthz reports feed_stale', () => {
    const c = loadConfig(undefined, {}, {});
    expect(c.venue.marketSilenceMs).toBeGreaterThan(0);
    expect(c.venue.marketSilenceMs).toBeLessThanOrEqual(c.ops.feedStaleMs);
  });

  it.each([
    [{ venue: { marketSilenceMs: 30_000 } }, /at most ops.feedStaleMs \(15000\).*but is 30000/],
    [{ venue: { marketSilenceMs: 0 } }, /at most ops.feedStaleMs \(15000\).*but is 0 \(no silence deadline/],
    [{ ops: { feedStaleMs: 4000 } }, /at most ops.feedStaleMs \(4000\).*but is 15000/],
  ] as const)('%j is refused, naming venue.marketSilenceMs (exit 2)', (body, why) => {
    const e = configError(() => loadConfig(file(body), {}, {}));
    expect(e.key).toBe('venue.marketSilenceMs');
    expect(e.message).toMatch(why);
    expect(exitCodeOf(e)).toBe(ExitCode.USAGE);
  });

  it('agreeing values pass, and ops.feedStaleMs 0 (no feed_stale) allows any', () => {
    expect(
      loadConfig(file({ venue: { marketSilenceMs: 5000 }, ops: { feedStaleMs: 5000 } }), {}, {}).venue.marketSilenceMs,
    ).toBe(5000);
    expect(
      loadConfig(file({ venue: { marketSilenceMs: 0 }, ops: { feedStaleMs: 0 } }), {}, {}).venue.marketSilenceMs,
    ).toBe(0);
    expect(
      loadConfig(undefined, {}, { MMKIT_MARKET_SILENCE_MS: '60000', MMKIT_FEED_STALE_MS: '0' }).ops.feedStaleMs,
    ).toBe(0);
  });
});
