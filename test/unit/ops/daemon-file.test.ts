import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DAEMON_FILE, removeDaemonFile } from '../../../src/ops/daemon-file.ts';

describe('daemon.json', () => {
  it('is removed only by the daemon that wrote it (its pid)', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-daemon-file-'));
    const f = join(d, DAEMON_FILE);
    expect(removeDaemonFile(d)).toBe(false); // none
    writeFileSync(f, JSON.stringify({ statusUrl: 'http://127.0.0.1:1', pid: process.pid + 1 }));
    expect(removeDaemonFile(d)).toBe(false);
    expect(existsSync(f)).toBe(true);
    writeFileSync(f, JSON.stringify({ statusUrl: 'http://127.0.0.1:1', pid: process.pid }));
    expect(removeDaemonFile(d)).toBe(true);
    expect(existsSync(f)).toBe(false);
  });
});
