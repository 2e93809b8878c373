/**
 * `mmkit run` against a venue that is not on loopback runs the doctor's checks first and refuses to
 * start when one fails: a paper exchange reached through this machine's network address (not
 * loopback, so the daemon treats it as a real venue) with its clock a minute off. The daemon exits 1
 * naming the check, and the exchange never saw an order of its wallet.
 */
import { networkInterfaces } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { Admin } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const lan = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
let ex: RunningExchange | undefined;
afterAll(async () => ex?.close());

describe('mmkit run: the pre-flight checks before a real venue', () => {
  it.skipIf(lan === undefined)(
    'refuses to start when a check fails (exit 1, the check named, no order sent)',
    async () => {
      ex = await startExchange({
        host: '0.0.0.0',
        port: 0,
        seed: 5,
        world: { agents: 'none', lifecycle: false },
        http: { adminToken: 'tok' },
      });
      const port = new URL(ex.urls.clob_url).port;
      const base = `http://${lan}:${port}`;
      await new Admin(base, 'tok').call('POST', '/clock', { offset_ms: 60_000 });
      const key = Wallet.createRandom().privateKey;
      const dir = mkdtempSync(join(tmpdir(), 'mmkit-preflight-'));
      const r = await runMmkit(['run', '--exchange-url', base, '--data-dir', dir, '--duration', '20s'], {
        env: { MMKIT_PRIVATE_KEY: key, MMKIT_HTTP_PORT: '0', MMKIT_LOG_PRETTY: 'false' },
        timeoutMs: 90_000,
      });
      expect(r.code, r.err).toBe(1);
      expect(r.err).toMatch(/pre-flight checks failed, not starting/);
      expect(r.err).toMatch(/clock: the venue's clock is (59|6\d)\.\d s ahead of ours/);
      expect(r.err).not.toContain(key.slice(2));
      expect(ex.exchange.openOrders(new Wallet(key).address.toLowerCase())).toEqual([]);
      // doctor.beforeRun false skips the checks (at the user's risk): no refusal then
      const skipped = await runMmkit(['run', '--exchange-url', base, '--data-dir', dir, '--duration', '1s'], {
        env: {
          MMKIT_PRIVATE_KEY: key,
          MMKIT_HTTP_PORT: '0',
          MMKIT_LOG_PRETTY: 'false',
          MMKIT_DOCTOR_BEFORE_RUN: 'false',
        },
        timeoutMs: 90_000,
      });
      expect(skipped.err).toMatch(/pre-flight checks skipped/);
      expect(skipped.err).not.toMatch(/pre-flight checks failed/);
    },
  );
});
