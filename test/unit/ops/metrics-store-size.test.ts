import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Metrics } from '../../../src/ops/metrics.ts';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('mmkit_store_size_bytes', () => {
  it("is the store file's size and its WAL's, read at scrape time; 0 without a store", async () => {
    dir = mkdtempSync(join(tmpdir(), 'mmkit-metrics-store-'));
    const file = join(dir, 'mmkit.db');
    writeFileSync(file, Buffer.alloc(4096));
    const m = new Metrics({ now: () => 0, defaultMetrics: false, info: { version: '1' } });
    expect(await m.registry.metrics()).toMatch(/^mmkit_store_size_bytes 0$/m);
    m.watchStoreFile(file);
    expect(await m.registry.metrics()).toMatch(/^mmkit_store_size_bytes 4096$/m);
    writeFileSync(`${file}-wal`, Buffer.alloc(1000));
    expect(await m.registry.metrics()).toMatch(/^mmkit_store_size_bytes 5096$/m);
  });
});
