/**
 * `mmkit run` on a data dir whose disk is full (trial 6 F2, F3), on a small tmpfs (mounted as root;
 * skipped otherwise) filled with `dd`:
 *
 *  - the disk fills while the daemon trades: the next fill (or order) that cannot be stored trips the kill
 *    switch as a store failure (`storeFailure`, not `manual`), the daemon cancels, verifies and
 *    prints its summary though its own shutdown writes to the store fail too (each one ERROR line
 *    naming the store), and exits 4 (a supervisor with `RestartPreventExitStatus=4` does not restart
 *    it into the same full disk). Before, it ended on the bare SQLite error with exit 1 and no summary;
 *  - the disk is full at start: the daemon refuses to start (exit 1) naming the data dir and the
 *    cause, before anything is sent to the venue. Before, it reconciled, quoted and took fills until
 *    the first write that failed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { Trader } from '../integration/support/trader.ts';
import { BotHarness, exited, logLines, makeBotFill, waitForQuotes, waitUntil } from './support/bot-harness.ts';

const root = process.getuid?.() === 0;
const h = new BotHarness();
const mounts: string[] = [];
afterAll(async () => {
  await h.close();
  for (const m of mounts) {
    spawnSync('umount', [m]);
    rmSync(m, { recursive: true, force: true });
  }
});

/** A data dir on a tmpfs of `size` (e.g. '4m') with a paper wallet the test knows. */
function tmpfsDataDir(size: string): { dir: string; address: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mmkit-diskfull-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  if (r.status !== 0) throw new Error(`mount tmpfs failed: ${r.stderr}`);
  mounts.push(dir);
  const bot = new Wallet(Wallet.createRandom().privateKey);
  writeFileSync(join(dir, 'paper-wallet.key'), bot.privateKey + '\n', { mode: 0o600 });
  return { dir, address: bot.address.toLowerCase() };
}

/** Fills the file system of `dir` to the last byte. */
function fillDisk(dir: string): void {
  spawnSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler')}`, 'bs=4k'], { stdio: 'ignore' });
}

describe.skipIf(!root)('mmkit run: a full disk', () => {
  it('a fill or order that cannot be stored: storeFailure trip, orderly shutdown with its summary, exit 4', async () => {
    const { ex, base } = await h.exchange(61);
    const { dir, address } = tmpfsDataDir('8m');
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    const bot = h.startBot(base, dir, ['--duration', '600s', '--log-format', 'json']);
    expect(await waitForQuotes(ex, address, 120_000), bot.err().slice(-3000)).toBeGreaterThan(0);
    fillDisk(dir);
    // the next fill (the counterparty's, or the world's) cannot be stored
    const tripped = () =>
      logLines(bot.err()).some((l) => l.msg === 'kill switch tripped: stopping, cancelling all orders');
    const end = Date.now() + 120_000;
    while (!tripped() && bot.p.exitCode === null && Date.now() < end) await makeBotFill(ex, t, address, 2_000);
    expect(await waitUntil(tripped, 30_000), bot.err().slice(-3000)).toBe(true);
    const code = await Promise.race([
      exited(bot.p),
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 120_000)),
    ]);
    expect(code, bot.err().slice(-3000)).toBe(4);
    // the first write that fails may be a fill's or an order's (both trip it: ./cli-run-order-write-failure.test.ts)
    expect(bot.out()).toMatch(/mmkit run stopped \(kill switch: storeFailure: (a fill|an order) could not be stored/);
    expect(bot.out()).toContain('open orders left  0');
    expect(ex.exchange.openOrders(address)).toEqual([]);
    const lines = logLines(bot.err());
    expect(lines.find((l) => l.msg === 'summary')).toMatchObject({
      openOrdersAtExit: 0,
      stop: { kind: 'killSwitch', trigger: 'storeFailure' },
    });
    // the shutdown's own store writes failed too: said, naming the store, not the end of the run
    const storeLines = lines.filter((l) => l.msg.startsWith('the store could not be written at shutdown'));
    expect(storeLines.length, bot.err().slice(-3000)).toBeGreaterThan(0);
    expect(storeLines[0]).toMatchObject({ level: 50, store: join(dir, 'mmkit.db') });
    expect(bot.err()).not.toContain('mmkit: database or disk is full');
  }, 300_000);

  it('a full disk at start: refused before anything is sent to the venue, naming the data dir (exit 1)', async () => {
    const { ex, base } = await h.exchange(62);
    const { dir, address } = tmpfsDataDir('2m');
    fillDisk(dir);
    const bot = h.startBot(base, dir, ['--duration', '60s', '--log-format', 'json']);
    const code = await Promise.race([
      exited(bot.p),
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 120_000)),
    ]);
    expect(code, bot.err().slice(-3000)).toBe(1);
    expect(bot.err()).toContain(`the store cannot be written: data dir ${dir}`);
    expect(bot.err()).toContain('no space left on the device (ENOSPC)');
    expect(ex.exchange.openOrders(address)).toEqual([]);
    expect(ex.exchange.tradesOf(address)).toEqual([]);
    expect(logLines(bot.err()).some((l) => l.msg === 'starting')).toBe(false);
  }, 180_000);
});
