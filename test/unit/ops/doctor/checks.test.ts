/** The doctor's pure judgements: clock skew, allowances, wallet, budgets, contracts, the report and its table. */
import { describe, expect, it } from 'vitest';
import { allowanceChecks, formatAllowance } from '../../../../src/ops/doctor/allowance-check.ts';
import { budgetsCheck } from '../../../../src/ops/doctor/budgets-check.ts';
import { fail, pass, report, warn } from '../../../../src/ops/doctor/check.ts';
import { clockCheck, clockOffset } from '../../../../src/ops/doctor/clock-check.ts';
import { contractsCheck, signedContracts } from '../../../../src/ops/doctor/contracts.ts';
import { renderReport } from '../../../../src/ops/doctor/render.ts';
import { walletCheck } from '../../../../src/ops/doctor/wallet-check.ts';

const MAX = '115792089237316195423570985008687907853269984665640564039457584007913129639935';
const V2 = signedContracts(2, 137);

describe('clock', () => {
  it('estimates the offset from whole seconds and the round trip', () => {
    // the venue said 1000 s while our clock read 1000.2 .. 1000.4 s: it is within a second
    expect(clockOffset(1000, 1_000_200, 1_000_400)).toEqual({ offsetMs: 200, uncertaintyMs: 600 });
    expect(clockOffset(1060, 1_000_000, 1_000_000)).toEqual({ offsetMs: 60_500, uncertaintyMs: 500 });
  });
  it('fails only when surely beyond the limit, warns past half of it', () => {
    expect(clockCheck({ offsetMs: 300, uncertaintyMs: 600 }, 5000).status).toBe('pass');
    expect(clockCheck({ offsetMs: -3000, uncertaintyMs: 600 }, 5000).status).toBe('warn');
    // 5.4 s ± 0.6: could be 4.8 s, not surely beyond 5 s
    expect(clockCheck({ offsetMs: 5400, uncertaintyMs: 600 }, 5000).status).toBe('warn');
    // ... and says so (trial 15 F9); a warning surely within the limit does not
    expect(clockCheck({ offsetMs: 5400, uncertaintyMs: 600 }, 5000).detail).toMatch(
      /maybe beyond the limit, not surely/,
    );
    expect(clockCheck({ offsetMs: -3000, uncertaintyMs: 600 }, 5000).detail).not.toMatch(/maybe beyond/);
    const f = clockCheck({ offsetMs: -60_500, uncertaintyMs: 500 }, 5000);
    expect(f).toMatchObject({ status: 'fail', id: 'clock' });
    expect(f.detail).toMatch(/60\.5 s behind ours/);
    expect(f.fix).toMatch(/NTP/);
  });
});

describe('balance and allowances', () => {
  it('formats raw 6-decimal amounts; approve(max) reads unlimited', () => {
    expect(formatAllowance(MAX)).toBe('unlimited');
    expect(formatAllowance('1500000')).toBe('1.5');
    expect(formatAllowance('0')).toBe('0');
  });
  it('one check per exchange contract, matched case-insensitively; zero fails', () => {
    const c = allowanceChecks(
      {
        balance: 25_000_000,
        allowances: { [V2.exchange.toLowerCase()]: '0', [V2.negRiskExchange.toUpperCase().replace('0X', '0x')]: MAX },
      },
      V2,
    );
    expect(c.map((x) => [x.id, x.status])).toEqual([
      ['balance', 'pass'],
      ['allowance.exchange', 'fail'],
      ['allowance.negRiskExchange', 'pass'],
    ]);
    // V2's collateral is pUSD (trial 15 F8), V1's USDC.e
    expect(c[0]!.detail).toBe('25 pUSD');
    expect(allowanceChecks({ balance: 25_000_000, allowance: '1' }, signedContracts(1, 137))[0]!.detail).toBe(
      '25 USDC.e',
    );
    expect(allowanceChecks({ balance: 25_000_000, allowance: '1' }, signedContracts(1, 80002))[0]!.detail).toBe(
      '25 USDC',
    );
  });
  it('falls back on the single allowance; none reported warns; no collateral warns', () => {
    expect(allowanceChecks({ balance: 1, allowance: '7' }, V2).map((x) => x.status)).toEqual(['pass', 'pass', 'pass']);
    expect(allowanceChecks({ balance: 0 }, V2).map((x) => x.status)).toEqual(['warn', 'warn', 'warn']);
  });
});

describe('wallet', () => {
  it('a keystore readable by others warns with the chmod; a tight one passes', () => {
    const loose = walletCheck({ kind: 'keystore', address: '0xab', file: '/k.json', mode: 0o644 }, false);
    expect(loose).toMatchObject({ status: 'warn', fix: 'chmod 600 /k.json' });
    expect(walletCheck({ kind: 'keystore', address: '0xab', file: '/k.json', mode: 0o600 }, false).status).toBe('pass');
  });
  it('a key in the environment warns on a real venue only; no wallet fails; no paper wallet yet warns', () => {
    expect(walletCheck({ kind: 'private-key', address: '0xab' }, false).status).toBe('warn');
    expect(walletCheck({ kind: 'private-key', address: '0xab' }, true).status).toBe('pass');
    expect(walletCheck({ error: 'set bot.keystoreFile' }, false).status).toBe('fail');
    expect(walletCheck({ error: 'no paper wallet', noPaperWallet: true }, true).status).toBe('warn');
  });
  it('a wrong keystore password: the fix says check MMKIT_KEYSTORE_PASSWORD first, not re-import (findings-5 P1)', () => {
    const c = walletCheck(
      {
        error:
          'config keystoreFile: cannot decrypt the keystore file /k.json: wrong password in MMKIT_KEYSTORE_PASSWORD, or not a keystore',
      },
      false,
    );
    expect(c.status).toBe('fail');
    expect(c.fix).toMatch(/^check MMKIT_KEYSTORE_PASSWORD/);
    expect(
      walletCheck({ error: 'the environment variable MMKIT_PRIVATE_KEY is not a private key' }, false).fix,
    ).toMatch(/^check MMKIT_PRIVATE_KEY/);
  });
  it('no wallet at all: the fix says how to set one up, not to check a password never given (trial 20 F6)', () => {
    const c = walletCheck(
      {
        error:
          'no wallet: set the environment variable MMKIT_PRIVATE_KEY to the private key (0x + 64 hex), or configure a keystore file and MMKIT_KEYSTORE_PASSWORD',
      },
      false,
    );
    expect(c.status).toBe('fail');
    expect(c.fix).toMatch(/^import the key once with `mmkit keys import`/);
    // as resolveWallet says it for a venue that is not a paper exchange
    const live = walletCheck(
      {
        error:
          'config bot.keystoreFile: this venue is not a paper exchange, so it needs a wallet: set bot.keystoreFile (or MMKIT_KEYSTORE_FILE, or --keystore) with MMKIT_KEYSTORE_PASSWORD, or MMKIT_PRIVATE_KEY',
      },
      false,
    );
    expect(live.fix).toMatch(/^import the key once with `mmkit keys import`/);
  });
  it('a keystore used while MMKIT_PRIVATE_KEY is set too warns, naming which one is used (findings-5 P2)', () => {
    const c = walletCheck(
      { kind: 'keystore', address: '0xab', file: '/k.json', mode: 0o600, ignoredPrivateKey: true },
      false,
    );
    expect(c.status).toBe('warn');
    expect(c.detail).toMatch(/keystore \/k\.json; MMKIT_PRIVATE_KEY is set too and ignored/);
  });
});

describe('rate-limit headroom', () => {
  const b = { enabled: true, scale: 1, headroom: 0.2, signerTier: 'auto', rateLimited: 0 };
  it('passes with budgets and headroom; budgets off fail on a real venue, warn on paper', () => {
    expect(budgetsCheck(b, false).status).toBe('pass');
    expect(budgetsCheck({ ...b, enabled: false }, false).status).toBe('fail');
    expect(budgetsCheck({ ...b, enabled: false }, true).status).toBe('warn');
  });
  it('no headroom on a real venue, or a 429 seen, warns', () => {
    expect(budgetsCheck({ ...b, headroom: 0 }, false).status).toBe('warn');
    expect(budgetsCheck({ ...b, headroom: 0 }, true).status).toBe('pass');
    expect(budgetsCheck({ ...b, rateLimited: 2 }, true).detail).toMatch(/429 to 2/);
  });
});

describe('contracts', () => {
  it('passes when unset or equal (any case); names the key that differs', () => {
    expect(contractsCheck({ exchange: '', negRiskExchange: '', collateral: '' }, 2, 137).status).toBe('pass');
    expect(
      contractsCheck({ exchange: V2.exchange.toLowerCase(), negRiskExchange: '', collateral: '' }, 2, 137).status,
    ).toBe('pass');
    // the V2 address in a profile while the venue speaks V1
    const f = contractsCheck({ exchange: V2.exchange, negRiskExchange: '', collateral: '' }, 1, 137);
    expect(f.status).toBe('fail');
    expect(f.detail).toMatch(/^venue\.contracts\.exchange is 0xE111/);
  });
});

describe('report', () => {
  it('exit 0 with warnings, 1 on a failure, 3 when a failure is the venue not answering', () => {
    const ok = pass('a', 'A', 'fine');
    const w = warn('b', 'B', 'hmm', 'do x');
    expect(report('u', true, [ok, w]).exitCode).toBe(0);
    expect(report('u', true, [ok, fail('c', 'C', 'bad', 'do y')]).exitCode).toBe(1);
    const r = report('u', false, [fail('c', 'C', 'bad', 'do y'), fail('s', 'S', 'refused', 'z', true)]);
    expect(r).toMatchObject({ exitCode: 3, summary: { pass: 0, warn: 0, fail: 2 } });
    expect(renderReport(r)).toBe(
      [
        'mmkit doctor: u',
        '',
        'FAIL  c      C: bad',
        '             fix: do y',
        'FAIL  s      S: refused',
        '             fix: z',
        '',
        '0 passed, 0 warned, 2 failed: the venue did not answer: c, s (exit 3)',
        '',
      ].join('\n'),
    );
  });
});
