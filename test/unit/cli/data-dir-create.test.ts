/**
 * The data directory's check before it is created (src/cli/data-dir-create.ts, trial 7 F10): a path
 * under /proc or /sys (Node's recursive mkdir loops forever under /proc), also through a symbolic
 * link, a path that is a file or goes through one, and a parent that cannot be written are refused
 * with a ConfigError naming bot.dataDir and the reason, before any mkdir; a good path is created
 * owner-only, an existing directory kept as it is.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { dataDirProblem, ensureDataDir } from '../../../src/cli/data-dir-create.ts';

const root = mkdtempSync(join(tmpdir(), 'mmkit-data-dir-'));
afterAll(() => {
  if (existsSync(join(root, 'ro'))) chmodSync(join(root, 'ro'), 0o700);
  rmSync(root, { recursive: true, force: true });
});

function refusal(dir: string): ConfigError {
  try {
    ensureDataDir(dir);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error(`${dir} was not refused`);
}

describe('ensureDataDir', () => {
  it('refuses a path under /proc or /sys at once (no mkdir: it would spin forever)', () => {
    for (const dir of ['/proc/nope', '/proc/self/nope/deeper', '/sys/x', '/proc']) {
      const e = refusal(dir);
      expect(e.key).toBe('bot.dataDir');
      expect(e.message).toMatch(/is under \/(proc|sys), a kernel file system/);
    }
    // a link to it too
    symlinkSync('/proc', join(root, 'to-proc'));
    expect(refusal(join(root, 'to-proc', 'nope')).message).toMatch(/leads to \/proc, under \/proc/);
  });

  it('refuses a file, or a path through a file, naming it', () => {
    const file = join(root, 'ex.db');
    writeFileSync(file, 'x');
    expect(refusal(file).message).toBe(
      `config bot.dataDir: ${file} is a file, not a directory: choose another path, or move the file away`,
    );
    expect(refusal(join(file, 'a', 'b')).message).toBe(
      `config bot.dataDir: ${join(file, 'a', 'b')} cannot be created: ${file} is a file, not a directory`,
    );
  });

  it.skipIf(process.getuid?.() === 0)('refuses to create a directory in one that is not writable', () => {
    const ro = join(root, 'ro');
    mkdirSync(ro, { mode: 0o500 });
    expect(refusal(join(ro, 'data')).message).toMatch(/cannot be created: .*ro is not writable by this user$/);
    // an existing directory is left to the store's probe (which names the cause): no refusal here
    expect(dataDirProblem(ro)).toBeUndefined();
  });

  it('creates a good path owner-only, with its parents; an existing directory is kept', () => {
    const dir = join(root, 'new', 'data');
    ensureDataDir(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    ensureDataDir(dir);
    expect(dataDirProblem('relative/data')).toBeUndefined();
  });
});
