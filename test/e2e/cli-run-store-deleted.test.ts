/**
 * The store file deleted while the daemon runs (findings-6 F9): what the daemon writes then goes to
 * a file nobody opens again, so within a few seconds it notices (the store path no longer names the
 * file it opened) and trips the kill switch, as a fill that could not be stored does: orderly
 * shutdown, zero open orders, exit 4, the reason naming the file. Real paper exchange, real daemon.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BotHarness, exited, logLines, sleep, waitForQuotes, waitUntil } from './support/bot-harness.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: the store file deleted while it runs', () => {
  it('trips the kill switch naming the file, cancels everything and exits 4', async () => {
    const { ex, base } = await h.exchange(7);
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--duration', '600s']);
    expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);
    const file = join(dir, 'mmkit.db');
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    const tripLine = () => logLines(bot.err()).find((l) => l.msg.startsWith('kill switch tripped'));
    // (checked every 5 s; generous under load)
    expect(await waitUntil(() => tripLine() !== undefined, 90_000), bot.err().slice(-2000)).toBe(true);
    expect(String(tripLine()!['reason'])).toContain(`the store file ${file} is gone (deleted or moved`);
    const done = await Promise.race([exited(bot.p).then((code) => ({ code })), sleep(90_000).then(() => undefined)]);
    expect(done, `the bot did not exit within 90 s of the kill switch:\n${bot.err().slice(-4000)}`).toBeDefined();
    expect(done!.code, bot.err().slice(-2000)).toBe(4);
    expect(bot.out()).toContain('open orders left  0');
    expect(ex.exchange.openOrders(address)).toEqual([]);
  }, 240_000);
});
