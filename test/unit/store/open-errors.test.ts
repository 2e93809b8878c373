import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { storeOpenError } from '../../../src/store/open-errors.ts';
import { checkStoreOpens, openStore } from '../../../src/store/store.ts';

describe('a store SQLite cannot open (findings-6 F5)', () => {
  it('a file that is not a database: ConfigError bot.storeFile naming the file and the way forward', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-open-'));
    const file = join(d, 'mmkit.db');
    writeFileSync(file, Buffer.alloc(8192, 0x41));
    let err: unknown;
    try {
      checkStoreOpens(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('bot.storeFile');
    expect((err as Error).message).toContain(`the store ${file} cannot be read: file is not a database`);
    expect((err as Error).message).toContain(`mv ${file} ${file}.damaged`);
  });

  it('no file: nothing checked, nothing created; a sound store opens', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-open-'));
    const file = join(d, 'mmkit.db');
    checkStoreOpens(file);
    expect(() => openStore(file, { checkpoint: 'auto' }).close()).not.toThrow();
    expect(() => checkStoreOpens(file)).not.toThrow();
  });

  it('read-only: names the permissions; other errors unchanged', () => {
    const ro = Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' });
    const e = storeOpenError('/x/mmkit.db', ro);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as Error).message).toContain('the store /x/mmkit.db cannot be opened for writing');
    const other = new Error('newer schema');
    expect(storeOpenError('/x/mmkit.db', other)).toBe(other);
  });
});
