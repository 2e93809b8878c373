/**
 * Findings-5 F7, F8, P3 against a real paper exchange on loopback, standing in for the real venue:
 *  - paper or live (src/cli/venue-kind.ts): a loopback venue with a wallet configured is live
 *    (`config check` says so, `mmkit doctor` is not "(paper exchange)", `mmkit run` runs the pre-flight
 *    checks); plain loopback stays paper; venue.kind says it outright;
 *  - the funder (src/ops/doctor/funder-check.ts): a proxy signature type without a funder, a funder
 *    that is not the signer's proxy wallet / Safe nor registered to it at the venue, a funder with
 *    eoa: `mmkit doctor` fails them (no "ready"), `mmkit run` refuses them exit 2 naming venue.funder
 *    and MMKIT_FUNDER before its pre-flight checks; the balance is the funder's.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyWalletOf, safeOf } from '../../src/exchange/accounts/funders.ts';
import { Admin, BotHarness } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

interface Report {
  exitCode: number;
  paper: boolean;
  summary: { pass: number; warn: number; fail: number };
  checks: { id: string; status: 'pass' | 'warn' | 'fail'; detail: string; fix?: string }[];
}

const TOKEN = 'doctor-funder-admin';
const h = new BotHarness();
let base: string;
let admin: Admin;
const key = new Wallet(Wallet.createRandom().privateKey);
const signer = key.address;
const OTHER = '0x1111111111111111111111111111111111111111';

beforeAll(async () => {
  ({ base } = await h.exchange(53, { adminToken: TOKEN }));
  admin = new Admin(base, TOKEN);
});
afterAll(() => h.close());

const dataDir = () => mkdtempSync(join(tmpdir(), 'mmkit-funder-'));

async function doctor(env: Record<string, string>) {
  const r = await runMmkit(['doctor', '--json', '--exchange-url', base, '--data-dir', dataDir()], {
    env: { MMKIT_PRIVATE_KEY: key.privateKey, ...env },
  });
  const report = JSON.parse(r.out) as Report;
  const check = (id: string) => report.checks.find((c) => c.id === id);
  return { code: r.code, err: r.err, report, check };
}

describe('paper or live on loopback (F8)', () => {
  it('config check: loopback with a wallet is live; plain loopback is paper; venue.kind says it', async () => {
    const dir = dataDir();
    const ks = join(dir, 'keystore.json');
    // config check never decrypts: an encrypted-keystore-shaped file is enough
    writeFileSync(ks, JSON.stringify({ address: signer.slice(2), crypto: {} }));
    const live = await runMmkit(['config', 'check'], {
      env: { MMKIT_EXCHANGE_URL: base, MMKIT_KEYSTORE_FILE: ks, MMKIT_KEYSTORE_PASSWORD: 'x'.repeat(12) },
    });
    expect(live.code, live.err).toBe(0);
    expect(live.out).toMatch(/venue {5}http:\/\/127\.0\.0\.1:\d+\/clob \(live: a wallet is configured/);
    const plain = await runMmkit(['config', 'check'], { env: { MMKIT_EXCHANGE_URL: base } });
    expect(plain.code, plain.err).toBe(0);
    expect(plain.out).toMatch(/\/clob \(paper\)/);
    const said = await runMmkit(['config', 'check', '--json'], {
      env: { MMKIT_EXCHANGE_URL: base, MMKIT_PRIVATE_KEY: key.privateKey, MMKIT_VENUE_KIND: 'paper' },
    });
    expect(JSON.parse(said.out).venue).toMatchObject({ paper: true, why: 'venue.kind paper' });
    const marked = await runMmkit(['config', 'check', '--json'], {
      env: { MMKIT_EXCHANGE_URL: base, MMKIT_EXCHANGE_CONTRACT: '0xE111180000d2663C0091e4f400237545B87B996B' },
    });
    expect(JSON.parse(marked.out).venue.paper).toBe(false);
  });

  it('doctor: a loopback venue with MMKIT_PRIVATE_KEY is checked as live; venue.kind paper makes it paper', async () => {
    const live = await doctor({});
    expect(live.report.paper).toBe(false);
    // a key in the environment of a real venue's process is a warn (prefer the keystore)
    expect(live.check('wallet')?.status).toBe('warn');
    const paper = await doctor({ MMKIT_VENUE_KIND: 'paper' });
    expect(paper.report.paper).toBe(true);
    expect(paper.check('wallet')?.status).toBe('pass');
  });

  it('run: a loopback venue with a wallet runs the pre-flight checks; plain loopback does not', async () => {
    const live = await runMmkit(['run', '--exchange-url', base, '--data-dir', dataDir(), '--duration', '1s'], {
      env: { MMKIT_PRIVATE_KEY: key.privateKey, MMKIT_HTTP_PORT: '0', MMKIT_LOG_FORMAT: 'json' },
      timeoutMs: 120_000,
    });
    expect(live.err).toMatch(/pre-flight checks passed/);
    const paper = await runMmkit(['run', '--exchange-url', base, '--data-dir', dataDir(), '--duration', '1s'], {
      env: { MMKIT_HTTP_PORT: '0', MMKIT_LOG_FORMAT: 'json' },
      timeoutMs: 120_000,
    });
    expect(paper.err).toMatch(/created a paper wallet/);
    expect(paper.err).not.toMatch(/pre-flight/);
  });
});

describe('signature type and funder (F7, P3)', () => {
  it('poly-proxy without a funder: doctor fails `funder` naming venue.funder, MMKIT_FUNDER and the proxy wallet', async () => {
    const r = await doctor({ MMKIT_SIGNATURE_TYPE: 'poly-proxy' });
    expect(r.code, r.err).toBe(1);
    const f = r.check('funder')!;
    expect(f.status).toBe('fail');
    expect(f.detail).toMatch(/venue\.funder or MMKIT_FUNDER/);
    expect(f.detail).toContain(proxyWalletOf(signer));
    const table = await runMmkit(['doctor', '--exchange-url', base, '--data-dir', dataDir()], {
      env: { MMKIT_PRIVATE_KEY: key.privateKey, MMKIT_SIGNATURE_TYPE: 'poly-proxy' },
    });
    expect(table.out).not.toMatch(/ready/);
  });

  it('gnosis-safe with a funder not the signer’s Safe nor registered: fails; the balance is the Safe’s, not the EOA’s', async () => {
    const r = await doctor({ MMKIT_SIGNATURE_TYPE: 'gnosis-safe', MMKIT_FUNDER: OTHER });
    expect(r.code, r.err).toBe(1);
    const f = r.check('funder')!;
    expect(f.status).toBe('fail');
    expect(f.detail).toMatch(/Invalid maker_address/);
    expect(f.detail).toMatch(/INVALID_ORDER_OWNER/);
    expect(f.fix).toContain(safeOf(signer));
    // the EOA holds the starting balance, its Safe nothing
    const bal = r.check('balance')!;
    expect(bal.status).toBe('warn');
    expect(bal.detail).toContain(`the signer's Safe ${safeOf(signer)}`);
  });

  it("gnosis-safe with the signer's Safe, or a funder registered to it: the funder check passes", async () => {
    const r = await doctor({ MMKIT_SIGNATURE_TYPE: 'gnosis-safe', MMKIT_FUNDER: safeOf(signer) });
    expect(r.check('funder'), r.err).toMatchObject({ status: 'pass' });
    expect(r.check('balance')?.detail).toContain(`the funder ${safeOf(signer)}, the signer's Safe`);
    const other = '0x2222222222222222222222222222222222222222';
    await admin.call('POST', '/funders', { signer, funder: other });
    const reg = await doctor({ MMKIT_SIGNATURE_TYPE: 'gnosis-safe', MMKIT_FUNDER: other, MMKIT_VENUE_KIND: 'paper' });
    expect(reg.check('funder')).toMatchObject({ status: 'pass' });
    expect(reg.check('funder')?.detail).toMatch(/registered/);
    // the balance is the registered funder's (by maker_address), not the signer's Safe's (which holds none)
    expect(reg.check('balance'), reg.err).toMatchObject({ status: 'warn' });
    expect(reg.check('balance')?.detail).toContain(`the funder ${other}`);
    await admin.call('POST', '/balances', { address: other, collateral: '123.5' });
    const funded = await doctor({
      MMKIT_SIGNATURE_TYPE: 'gnosis-safe',
      MMKIT_FUNDER: other,
      MMKIT_VENUE_KIND: 'paper',
    });
    expect(funded.check('balance'), funded.err).toMatchObject({ status: 'pass' });
    expect(funded.check('balance')?.detail).toBe(`123.5 pUSD (the funder ${other})`); // (V2: pUSD)
    // on a live venue a registered funder cannot be vouched for (the public service accepts only the derived one)
    const live = await doctor({ MMKIT_SIGNATURE_TYPE: 'gnosis-safe', MMKIT_FUNDER: other });
    expect(live.check('funder')?.status).toBe('warn');
  });

  it('a funder with eoa: config check warns, doctor fails (the signer is known)', async () => {
    const cc = await runMmkit(['config', 'check'], {
      env: { MMKIT_EXCHANGE_URL: base, MMKIT_PRIVATE_KEY: key.privateKey, MMKIT_FUNDER: OTHER },
    });
    expect(cc.code, cc.err).toBe(0);
    expect(cc.err).toMatch(/warning: config venue\.funder: .*signature type eoa/);
    const r = await doctor({ MMKIT_FUNDER: OTHER });
    expect(r.code).toBe(1);
    expect(r.check('funder')?.detail).toMatch(/signature type eoa/);
  });

  it('run: a proxy type without a funder is refused exit 2 naming venue.funder and MMKIT_FUNDER, before the pre-flight', async () => {
    const r = await runMmkit(['run', '--exchange-url', base, '--data-dir', dataDir(), '--duration', '5s'], {
      env: {
        MMKIT_PRIVATE_KEY: key.privateKey,
        MMKIT_SIGNATURE_TYPE: 'poly-proxy',
        MMKIT_HTTP_PORT: '0',
        MMKIT_LOG_FORMAT: 'json',
      },
      timeoutMs: 120_000,
    });
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/mmkit: config venue\.funder: .*MMKIT_FUNDER/);
    expect(r.err).not.toMatch(/pre-flight checks passed/);
  });

  it('run: a funder the venue does not count as the signer’s is refused by the pre-flight (exit 1), not by the kill switch', async () => {
    const r = await runMmkit(['run', '--exchange-url', base, '--data-dir', dataDir(), '--duration', '5s'], {
      env: {
        MMKIT_PRIVATE_KEY: key.privateKey,
        MMKIT_SIGNATURE_TYPE: 'gnosis-safe',
        MMKIT_FUNDER: OTHER,
        MMKIT_HTTP_PORT: '0',
        MMKIT_LOG_FORMAT: 'json',
      },
      timeoutMs: 120_000,
    });
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(/pre-flight checks failed, not starting/);
    expect(r.err).toMatch(/FAIL funder: .*Invalid maker_address/);
  });
});
