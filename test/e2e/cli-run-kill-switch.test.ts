/**
 * The kill switch through the daemon: failing heartbeats (the venue's dead-man switch) trip it;
 * within 2 s every order of the bot is gone from the venue, and the daemon exits saying why: 3 here
 * (README "Exit codes": the venue answered 500, unavailable, and the daemon is flat: restartable, not 0,
 * so a supervisor can tell it from a clean stop; a refused heartbeat exits 4, a risk stop:
 * cli-run-heartbeat-faults). An
 * operator's `mmkit kill` still exits 0 (test/e2e/cli-run-lock.test.ts, cli-run-status.test.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BotHarness, exited, logLines, sleep, waitForQuotes, waitUntil, watchFlat } from './support/bot-harness.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: kill switch', () => {
  it('trips on failed heartbeats, leaves zero open orders within 2 s, and exits 3 (the venue unavailable)', async () => {
    const { ex, base } = await h.exchange(5);
    const { dir, address } = h.dataDir();
    // (a long --duration: the kill switch stops it; under load the steps before it take a while)
    const bot = h.startBot(base, dir, ['--duration', '600s'], { MMKIT_RISK_MAX_HEARTBEAT_FAILURES: '2' });
    expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);
    // the venue's dead-man switch endpoint starts failing (injected fault): after 2 failed heartbeats
    // the kill switch trips
    // (watched from the exchange's side: the moment the bot's last order left, whenever this test looks)
    const flat = watchFlat(ex, address);
    ex.faults.add({ route: 'POST /clob/v1/heartbeats', status: 500 });
    // the trip, as the daemon logged it (its time is when the daemon began to flatten)
    const tripLine = () => logLines(bot.err()).find((l) => JSON.stringify(l).includes('kill switch'));
    // (each failed heartbeat is retried with backoff first: two failures can take ~20 s; more under load)
    expect(await waitUntil(() => tripLine() !== undefined, 90_000), bot.err().slice(-2000)).toBe(true);
    const trippedAt = tripLine()!.time;
    expect(await waitUntil(() => flat.flatSince(trippedAt) > 0, 30_000), bot.err().slice(-2000)).toBe(true);
    expect(ex.exchange.openOrders(address)).toEqual([]);
    expect(flat.flatSince(trippedAt) - trippedAt).toBeLessThanOrEqual(2000);
    flat.stop();
    // the daemon exits right after the kill switch, often before this line: `exited` sees that
    const done = await Promise.race([exited(bot.p).then((code) => ({ code })), sleep(60_000).then(() => undefined)]);
    expect(done, `the bot did not exit within 60 s of the kill switch:\n${bot.err().slice(-4000)}`).toBeDefined();
    const code = done!.code;
    expect(code, bot.err().slice(-2000)).toBe(3);
    expect(bot.out()).toContain('kill switch: heartbeatFailure');
    expect(bot.out()).toContain('open orders left  0');
    // after the same orderly shutdown as any stop, and the daemon's files are gone
    expect(logLines(bot.err()).find((l) => l.msg === 'summary')).toMatchObject({
      openOrdersAtExit: 0,
      stop: { kind: 'killSwitch', trigger: 'heartbeatFailure' },
    });
    for (const f of ['daemon.lock', 'daemon.json']) expect(existsSync(join(dir, f)), f).toBe(false);
    const lines = logLines(bot.err());
    // the bot stopping itself on a risk limit is an ERROR (a WARN+ filter or an alert sees it)
    expect(tripLine(), bot.err().slice(-2000)).toMatchObject({ level: 50, component: 'daemon' });
    expect(tripLine()!.msg).toBe('kill switch tripped: stopping, cancelling all orders');
    // each failed heartbeat is logged once (the keeper's line, with the count), not also by the venue
    const failed = lines.filter((l) => l.msg.startsWith('heartbeat failed'));
    expect(failed.length, bot.err().slice(-2000)).toBeGreaterThanOrEqual(2);
    expect(failed.every((l) => l.msg === 'heartbeat failed: new orders paused')).toBe(true);
    expect(new Set(failed.map((l) => l['failures'])).size).toBe(failed.length);
  }, 240_000);
});
