/** A data directory's ledger id in its fleet (src/cli/run-fleet.ts fleetLedgerId): made once, then the same. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fleetLedgerId } from '../../../src/cli/run-fleet.ts';

const dirs: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'mmkit-ledger-id-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('fleetLedgerId', () => {
  it('is made on first use, kept in the data directory, the same on every later call; one per directory', () => {
    const a = dir();
    const id = fleetLedgerId(a);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(readFileSync(join(a, 'fleet-ledger.id'), 'utf8').trim()).toBe(id);
    expect(fleetLedgerId(a)).toBe(id);
    expect(fleetLedgerId(dir())).not.toBe(id);
  });
  it('a damaged file is replaced by a new id', () => {
    const a = dir();
    writeFileSync(join(a, 'fleet-ledger.id'), 'not an id!\n');
    expect(fleetLedgerId(a)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
