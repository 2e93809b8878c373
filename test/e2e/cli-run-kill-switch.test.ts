/**
 * The kill switch through the daemon: failing heartbeats (the venue's dead-man switch) trip it;
 * within 2 s every order of the bot is gone from the venue, and the daemon exits 0 saying why.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BotHarness, exited, sleep, waitForQuotes } from './support/bot-harness.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: kill switch', () => {
  it('trips on failed heartbeats and leaves zero open orders within 2 s', async () => {
    const { ex, base } = await h.exchange(5);
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--duration', '60s'], { MMKIT_RISK_MAX_HEARTBEAT_FAILURES: '2' });
    expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);
    // the venue's dead-man switch endpoint starts failing (injected fault): after 2 failed heartbeats
    // the kill switch trips
    ex.faults.add({ route: 'POST /clob/v1/heartbeats', status: 500 });
    let trippedAt = 0;
    // (each failed heartbeat is retried with backoff first: two failures can take ~20 s)
    for (let i = 0; i < 800 && trippedAt === 0; i++) {
      if (bot.err().includes('kill switch')) trippedAt = Date.now();
      else await sleep(50);
    }
    expect(trippedAt, bot.err().slice(-2000)).toBeGreaterThan(0);
    while (ex.exchange.openOrders(address).length > 0 && Date.now() - trippedAt < 5000) await sleep(20);
    expect(ex.exchange.openOrders(address)).toEqual([]);
    expect(Date.now() - trippedAt).toBeLessThanOrEqual(2000);
    // the daemon exits right after the kill switch, often before this line: `exited` sees that
    const done = await Promise.race([exited(bot.p).then((code) => ({ code })), sleep(30_000).then(() => undefined)]);
    expect(done, `the bot did not exit within 30 s of the kill switch:\n${bot.err().slice(-4000)}`).toBeDefined();
    const code = done!.code;
    expect(code).toBe(0);
    expect(bot.out()).toContain('kill switch: heartbeatFailure');
    expect(bot.out()).toContain('open orders left  0');
  }, 150_000);
});
