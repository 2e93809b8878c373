import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliError, ExitCode } from '../../../src/cli/exit-codes.ts';
import { probeStoreWritable } from '../../../src/cli/run-disk-probe.ts';

// (a full disk itself: test/e2e/cli-run-disk-full.test.ts, on a tmpfs as root)
describe('the start-up probe of the store directory', () => {
  it('passes on a writable directory and leaves nothing behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-probe-'));
    probeStoreWritable(dir, join(dir, 'mmkit.db'), 200_000);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses with exit 1, naming the data dir, the store and the cause', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-probe-'));
    const store = join(dir, 'gone', 'mmkit.db');
    let err: unknown;
    try {
      probeStoreWritable(dir, store);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(ExitCode.FAILURE);
    expect((err as CliError).message).toContain(`the store cannot be written: data dir ${dir} (store ${store})`);
    expect((err as CliError).message).toContain('its directory does not exist (ENOENT)');
    expect((err as CliError).message).toContain('Nothing was traded.');
  });
});
