/**
 * The checks that need a second node process (moved out of the unit tier, which starts none): the
 * crypto backend chosen at load by env, a writer killed with SIGKILL, and the strategy loader under
 * node + tsx as the `mmkit` bin's source fallback runs it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import { openStore } from '../../src/store/store.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-child-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fast-crypto', () => {
  it('MMKIT_PURE_JS_CRYPTO=1 selects the pure-JS backend at load', () => {
    const script =
      "const m = await import('./src/api/signing/fast-crypto.ts'); const o = await import('./src/api/orders.ts');" +
      "const b = new o.OrderBuilder({ wallet: '" +
      PK +
      "', chainId: 137, protocol: 1, salt: () => 7 });" +
      "const x = b.buildLimit({ tokenId: '1234', side: 'BUY', price: '0.56', size: '21.04', tick: '0.01', negRisk: false });" +
      'console.log(JSON.stringify({ name: m.cryptoBackend().name, id: x.id, sig: x.signature }));';
    const run = (env: Record<string, string>) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout.trim().split('\n').pop()!) as { name: string; id: string; sig: string };
    };
    const js = run({ MMKIT_PURE_JS_CRYPTO: '1' });
    const nat = run({ MMKIT_PURE_JS_CRYPTO: '' });
    expect(js.name).toBe('pure-js');
    expect(nat.name).toBe('native');
    expect(js.id).toBe(nat.id);
    expect(js.sig).toBe(nat.sig);
  }, 60_000);
});

describe('store crash safety', () => {
  it('a killed process leaves every committed fill on disk (kill -9 of a child writer)', () => {
    const file = join(dir, 'killed.db');
    const script = `
      import { openStore } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src/store/store.ts')).href)};
      const s = openStore(${JSON.stringify(file)});
      for (let i = 0; i < 50; i++) {
        s.recordFill({ tradeId: 't' + i, orderId: '0xa', market: 'm', tokenId: 'y', side: 'BUY', price: 5000, size: 10000, fee: 0, role: 'MAKER', status: 'MATCHED', matchTime: i });
      }
      process.kill(process.pid, 'SIGKILL');
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(r.signal).toBe('SIGKILL');
    const store = openStore(file, { clock: new VirtualClock(0) });
    try {
      expect(store.fills()).toHaveLength(50);
      expect(store.positions()[0]?.size).toBe(500_000);
    } finally {
      store.close();
    }
  });
});

describe('loadStrategy under node + tsx (as the mmkit bin runs it)', () => {
  it('loads a .ts plugin from a folder without a package.json (an ES module all the same: src/strategy/plugin-format.ts)', () => {
    const api = pathToFileURL(join(ROOT, 'src/strategy/api.ts')).href;
    writeFileSync(
      join(dir, 'mine.ts'),
      `import { defineStrategy } from ${JSON.stringify(api)};
const size: number = 3;
export default defineStrategy({
  name: 'mine',
  description: 'a test plugin',
  params: { size: { type: 'number', default: size, min: 1, doc: 'shares' } },
  create() { return { onEvent() { return undefined; } }; },
});
`,
    );
    const loader = pathToFileURL(join(ROOT, 'src/strategy/loader.ts')).href;
    const script = `const { loadStrategy } = await import(${JSON.stringify(loader)});
const d = await loadStrategy('./mine.ts', { cwd: ${JSON.stringify(dir)} });
const b = await loadStrategy('bands');
console.log(JSON.stringify([d.name, d.params.size.default, b.name]));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual(['mine', 3, 'bands']);
  });
});
