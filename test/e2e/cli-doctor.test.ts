/**
 * `mmkit doctor` against a real paper exchange: everything passes on a healthy one (the wallet's
 * API key created once: doctor derives it, never creates it, as on the public service), and each
 * failure the issue names is reported by its check, with the documented exit code: an unreachable
 * stream (3), a venue clock beyond the limit (1), a wrong API passphrase (1), a zero allowance (1).
 * The failures are made with the exchange's admin routes (clock offset, allowances, faults) or a
 * dead stream URL.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningExchange } from '../../src/exchange/server.ts';
import { Admin, BotHarness } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

interface Report {
  exitCode: number;
  summary: { pass: number; warn: number; fail: number };
  checks: { id: string; status: 'pass' | 'warn' | 'fail'; detail: string; fix?: string; unreachable?: boolean }[];
}

const TOKEN = 'doctor-admin';
const h = new BotHarness();
let base: string;
let dir: string;
let address: string;
let admin: Admin;

let ex: RunningExchange;

beforeAll(async () => {
  ({ ex, base } = await h.exchange(31, { adminToken: TOKEN }));
  ({ dir, address } = h.dataDir());
  admin = new Admin(base, TOKEN);
  // the wallet's API key, created once (doctor derives it, never creates it)
  const created = await runMmkit(['keys', 'create', '--exchange-url', base, '--data-dir', dir]);
  expect(created.code, created.err).toBe(0);
});
afterAll(() => h.close());
afterEach(async () => {
  await admin.call('POST', '/clock', { offset_ms: 0 });
  await admin.call('DELETE', '/allowances');
  await admin.clearFaults();
});

async function doctor(env: Record<string, string> = {}, extra: string[] = []) {
  const r = await runMmkit(['doctor', '--json', '--exchange-url', base, '--data-dir', dir, ...extra], { env });
  const report = JSON.parse(r.out) as Report;
  return {
    code: r.code,
    report,
    err: r.err,
    failed: report.checks.filter((c) => c.status === 'fail').map((c) => c.id),
  };
}

describe('mmkit doctor', () => {
  it('passes every check against a healthy paper exchange (exit 0), and prints a table', async () => {
    const { code, report, err } = await doctor();
    expect(code, err).toBe(0);
    expect(report.summary.fail).toBe(0);
    expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    const ids = report.checks.map((c) => c.id);
    for (const id of [
      'config',
      'api.clob',
      'api.gamma',
      'api.data',
      'clock',
      'protocol',
      'markets',
      'geoblock',
      'contracts',
      'auth.l1',
      'auth.l2',
      'closed-only',
      'balance',
      'allowance.exchange',
      'allowance.negRiskExchange',
      'stream.market',
      'stream.user',
      'stream.rtds',
      'wallet',
      'rate-limits',
    ])
      expect(ids).toContain(id);
    const table = await runMmkit(['doctor', '--exchange-url', base, '--data-dir', dir]);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toMatch(/^PASS {2}stream\.user /m);
    expect(table.out).toMatch(/20 passed, 0 warned, 0 failed: ready/);
  });

  it('no wallet: the checks that need one are not checked, and their fix does not speak of failed checks', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'mmkit-doctor-'));
    const r = await runMmkit(['doctor', '--json', '--exchange-url', base, '--data-dir', empty]);
    const report = JSON.parse(r.out) as Report;
    expect(report.summary.fail, r.out).toBe(0);
    const skipped = report.checks.filter((c) => c.detail.startsWith('not checked'));
    expect(skipped.map((c) => c.id)).toEqual(expect.arrayContaining(['auth.l1', 'auth.l2', 'stream.user']));
    for (const c of skipped) {
      expect(c.status).toBe('warn');
      expect(c.fix, c.id).not.toMatch(/failed checks|L1 check first/);
    }
  });

  it('a wallet without an API key: auth.l1 warns (create it once), and nothing is created at the venue (findings-5 P5)', async () => {
    const { dir: fresh, address: freshAddress } = h.dataDir();
    const r = await runMmkit(['doctor', '--json', '--exchange-url', base, '--data-dir', fresh]);
    const report = JSON.parse(r.out) as Report;
    expect(report.summary.fail, r.out).toBe(0);
    const l1 = report.checks.find((c) => c.id === 'auth.l1')!;
    expect(l1.status).toBe('warn');
    expect(l1.detail).toMatch(/Could not derive api key/);
    // the route said once (trial 15 F6)
    expect(l1.detail.match(/GET \/auth\/derive-api-key/g)).toHaveLength(1);
    expect(l1.fix).toMatch(/mmkit keys create/);
    // no key, so no account credited with the starting balance
    expect(ex.exchange.keys.list(freshAddress)).toEqual([]);
    expect(ex.exchange.engine.balance(freshAddress).collateral).toBe(0);
    // what needs the key is listed as not checked, the allowances too, and the verdict names them (trial 25 F3)
    const unchecked = report.checks.filter((c) => c.detail.startsWith('not checked')).map((c) => c.id);
    expect(unchecked).toEqual(
      expect.arrayContaining(['closed-only', 'balance', 'allowance.exchange', 'allowance.negRiskExchange']),
    );
    const table = await runMmkit(['doctor', '--exchange-url', base, '--data-dir', fresh]);
    expect(table.out).toMatch(
      /ready, with warnings \(not checked: [^)]*balance, allowance\.exchange, allowance\.negRiskExchange/,
    );
  });

  it('an unreachable stream: its check fails as unreachable, exit 3', async () => {
    // the market channel drops every connection
    await admin.addFault({ stream: 'market', drop: true });
    const dropped = await doctor();
    expect(dropped.code, dropped.err).toBe(3);
    expect(dropped.failed).toEqual(['stream.market']);
    expect(dropped.report.checks.find((c) => c.id === 'stream.market')).toMatchObject({ unreachable: true });
    await admin.clearFaults();
    // nothing listens at the configured stream URL
    const dead = await doctor({ MMKIT_WS_URL: 'ws://127.0.0.1:1' });
    expect(dead.code, dead.err).toBe(3);
    expect(dead.failed).toEqual(['stream.market', 'stream.user', 'stream.rtds']);
  });

  it('a venue clock beyond the limit: the clock check fails, exit 1; within it, passes', async () => {
    await admin.call('POST', '/clock', { offset_ms: 60_000 });
    const r = await doctor();
    expect(r.code, r.err).toBe(1);
    expect(r.failed).toEqual(['clock']);
    expect(r.report.checks.find((c) => c.id === 'clock')?.detail).toMatch(/ahead of ours/);
    // the limit is doctor.maxClockSkewMs
    const lenient = await doctor({ MMKIT_DOCTOR_MAX_CLOCK_SKEW_MS: '120000' });
    expect(lenient.code, lenient.err).toBe(0);
  });

  it('a wrong API passphrase: L2 authentication fails (and the user stream refuses it), exit 1', async () => {
    const keys = await runMmkit([
      'keys',
      'derive',
      '--show-secret',
      '--json',
      '--exchange-url',
      base,
      '--data-dir',
      dir,
    ]);
    expect(keys.code, keys.err).toBe(0);
    const k = JSON.parse(keys.out) as { apiKey: string; secret: string; passphrase: string };
    const env = { MMKIT_API_KEY: k.apiKey, MMKIT_API_SECRET: k.secret };
    const good = await doctor({ ...env, MMKIT_API_PASSPHRASE: k.passphrase });
    expect(good.code, good.err).toBe(0);
    const r = await doctor({ ...env, MMKIT_API_PASSPHRASE: 'not-the-passphrase' });
    expect(r.code, r.err).toBe(1);
    expect(r.failed).toEqual(['auth.l2', 'stream.user']);
    const l2 = r.report.checks.find((c) => c.id === 'auth.l2')!;
    expect(l2.fix).toMatch(/MMKIT_API_PASSPHRASE/);
    // secrets are never printed
    expect(r.err + JSON.stringify(r.report)).not.toContain(k.secret);
    expect(JSON.stringify(r.report)).not.toContain(k.passphrase);
  });

  it("another wallet's key set: L1 and L2 name the wallet as what to check, not the passphrase, and never suggest a key for it (trial 15 F11)", async () => {
    const keys = await runMmkit([
      'keys',
      'derive',
      '--show-secret',
      '--json',
      '--exchange-url',
      base,
      '--data-dir',
      dir,
    ]);
    expect(keys.code, keys.err).toBe(0);
    const k = JSON.parse(keys.out) as { apiKey: string; secret: string; passphrase: string };
    // a data dir of another wallet (its own paper wallet, no API key) given the first wallet's key set
    const { dir: other } = h.dataDir();
    const r = await runMmkit(['doctor', '--json', '--exchange-url', base, '--data-dir', other], {
      env: { MMKIT_API_KEY: k.apiKey, MMKIT_API_SECRET: k.secret, MMKIT_API_PASSPHRASE: k.passphrase },
    });
    const report = JSON.parse(r.out) as Report;
    expect(r.code, r.err).toBe(1);
    const l1 = report.checks.find((c) => c.id === 'auth.l1')!;
    expect(l1.fix).toMatch(
      /MMKIT_API_\* are set, but 0x[0-9a-fA-F]+ has no nonce-0 API key: if they are another wallet's, check the wallet/,
    );
    const l2 = report.checks.find((c) => c.id === 'auth.l2')!;
    expect(l2.status).toBe('fail');
    expect(l2.fix).toMatch(/the API key set is another wallet's, not 0x[0-9a-fA-F]+'s: check the wallet/);
    expect(l2.fix).not.toMatch(/passphrase/);
    expect(r.err + r.out).not.toContain(k.secret);
    expect(r.out).not.toContain(k.passphrase);
  });

  it("a zero allowance to an exchange contract: that contract's check fails, exit 1", async () => {
    const negRiskExchange = '0xe2222d279d744050d28e00520010520000310F59';
    await admin.call('POST', '/allowances', { address, allowance: '0', spender: negRiskExchange });
    const r = await doctor();
    expect(r.code, r.err).toBe(1);
    expect(r.failed).toEqual(['allowance.negRiskExchange']);
    expect(r.report.checks.find((c) => c.id === 'allowance.exchange')?.status).toBe('pass');
    // none to any contract: both fail
    await admin.call('POST', '/allowances', { address, allowance: '0' });
    expect((await doctor()).failed).toEqual(['allowance.exchange', 'allowance.negRiskExchange']);
  });
});
