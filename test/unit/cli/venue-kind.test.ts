/**
 * Paper or live (src/cli/venue-kind.ts, findings-5 F8): loopback alone is paper only without a
 * wallet or a live marker; venue.kind says it outright; the in-process exchange is always paper.
 * And the funder's contradictions (src/ops/doctor/funder-check.ts, F7) with the derivation the
 * paper exchange checks orders with.
 */
import { Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { venueKind, type VenueKindInput } from '../../../src/cli/venue-kind.ts';
import { proxyWalletOf, safeOf } from '../../../src/exchange/accounts/funders.ts';
import { derivedFunderOf, funderProblem } from '../../../src/ops/doctor/funder-check.ts';

const loop = ['http://127.0.0.1:8080/clob', 'ws://localhost:8080', ''];
const base: VenueKindInput = { setting: 'auto', urls: loop, inProcess: false, wallet: false, liveMarkers: false };

describe('venueKind', () => {
  it('plain loopback is paper; a wallet or a live marker makes it live; a remote URL is live', () => {
    expect(venueKind(base).paper).toBe(true);
    expect(venueKind({ ...base, wallet: true })).toMatchObject({ paper: false, why: /wallet/ });
    expect(venueKind({ ...base, liveMarkers: true }).paper).toBe(false);
    expect(venueKind({ ...base, urls: [...loop, 'https://clob.example.com'] }).paper).toBe(false);
  });
  it('venue.kind says it; the in-process exchange is paper whatever is set', () => {
    expect(venueKind({ ...base, wallet: true, setting: 'paper' }).paper).toBe(true);
    expect(venueKind({ ...base, setting: 'live' }).paper).toBe(false);
    expect(venueKind({ ...base, setting: 'live', wallet: true, inProcess: true }).paper).toBe(true);
  });
});

describe('funderProblem', () => {
  const signer = new Wallet(Wallet.createRandom().privateKey).address;
  it('derives what the paper exchange accepts', () => {
    expect(derivedFunderOf('poly-proxy', signer)).toBe(proxyWalletOf(signer));
    expect(derivedFunderOf('gnosis-safe', signer)).toBe(safeOf(signer));
  });
  it('a proxy type without a funder is certain, naming venue.funder and MMKIT_FUNDER', () => {
    const p = funderProblem('gnosis-safe', '', signer);
    expect(p).toMatchObject({ key: 'venue.funder', certain: true });
    expect(p?.message).toMatch(/venue\.funder or MMKIT_FUNDER/);
    expect(p?.message).toContain(safeOf(signer));
  });
  it('a funder with eoa: a warning without the signer, certain when it is not the signer', () => {
    const other = '0x1111111111111111111111111111111111111111';
    expect(funderProblem('eoa', other)?.certain).toBe(false);
    expect(funderProblem('eoa', other, signer)?.certain).toBe(true);
    expect(funderProblem('eoa', signer.toLowerCase(), signer)).toBeUndefined();
    expect(funderProblem('eoa', '', signer)).toBeUndefined();
    expect(funderProblem('poly-proxy', other, signer)).toBeUndefined();
  });
});
