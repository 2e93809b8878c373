import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/store.ts';

describe('Store.fileProblem (findings-6 F9: the store file deleted or replaced while open)', () => {
  it('none while the path names the opened file; says gone or replaced otherwise; none in memory', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-storefile-'));
    const file = join(d, 'mmkit.db');
    const s = openStore(file, { checkpoint: 'auto' });
    expect(s.fileProblem()).toBeUndefined();
    renameSync(file, join(d, 'moved.db'));
    expect(s.fileProblem()).toBe(
      `the store file ${file} is gone (deleted or moved while the daemon runs): what it writes now is lost`,
    );
    // another store now at the path
    const other = openStore(file, { checkpoint: 'auto' });
    expect(s.fileProblem()).toContain(`the store file ${file} is another file now (replaced`);
    expect(other.fileProblem()).toBeUndefined();
    other.close();
    s.close();
    rmSync(d, { recursive: true, force: true });
    const m = openStore(':memory:');
    expect(m.fileProblem()).toBeUndefined();
    m.close();
  });
});
