/**
 * The heartbeat against a venue that hangs or refuses it (findings-6). Before: a heartbeat that got
 * no answer was retried inside one call (10 s timeouts, 40 s and more) and never counted as failed,
 * so `bot.risk.maxHeartbeatFailures` could not trip against a hung venue; and a refused heartbeat
 * said only `heartbeat refused` in its WARN and in the kill switch's reason, hiding the venue's
 * error (a clock skew's 401 POLY_TIMESTAMP).
 *
 * Each test: a daemon quotes, the fault is injected at the real paper exchange, the daemon trips
 * its kill switch on heartbeat failures, with the cause in the WARN lines and the reason, and exits 4
 * on a refusal (a risk stop), 3 when the venue never answered (an availability fault: trial 17 F1).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Admin, BotHarness, exited, logLines, waitForQuotes, type BotProcess } from './support/bot-harness.ts';

const TOKEN = 'e2e-heartbeat-faults-admin';
const h = new BotHarness();
afterAll(() => h.close());

/** Starts a quoting daemon on a fresh exchange; returns it and the exchange's admin client. */
async function quoting(seed: number): Promise<{ bot: BotProcess; admin: Admin }> {
  const { ex, base } = await h.exchange(seed, { adminToken: TOKEN });
  const admin = new Admin(base, TOKEN);
  const { dir, address } = h.dataDir();
  // (a long --duration: the kill switch stops it; on a loaded machine the steps take minutes)
  const bot = h.startBot(base, dir, ['--duration', '900s']);
  expect(await waitForQuotes(ex, address, 90_000), bot.err().slice(-3000)).toBeGreaterThan(0);
  return { bot, admin };
}

/** The daemon's heartbeat WARN lines and its kill switch reason, once it exited (its code). */
async function tripped(bot: BotProcess): Promise<{ code: number | null; warns: string[]; reason: string }> {
  const code = await exited(bot.p);
  const lines = logLines(bot.err());
  const warns = lines.filter((l) => l.msg === 'heartbeat failed: new orders paused').map((l) => String(l['error']));
  const trip = lines.find((l) => l.msg === 'kill switch tripped: stopping, cancelling all orders');
  return { code, warns, reason: String(trip?.['reason'] ?? '') };
}

describe('mmkit run: heartbeat faults', () => {
  it('a hung heartbeat counts as failed after 3 s: the kill switch trips, saying so; exit 3, a venue unavailable (trial 17 F1)', async () => {
    const { bot, admin } = await quoting(31);
    // every heartbeat answered only after 40 s (the venue's own dead-man switch fires meanwhile)
    await admin.addFault({ route: 'POST /clob/v1/heartbeats', latencyMs: 40_000 });
    const r = await tripped(bot);
    const tail = bot.err().slice(-3000);
    // flat at exit, and the venue never answered: restartable (4 is a risk breach a supervisor must not restart)
    expect(r.code, tail).toBe(3);
    expect(r.warns.length, tail).toBeGreaterThanOrEqual(3);
    for (const w of r.warns) expect(w, tail).toMatch(/no answer within 3000 ms/);
    expect(r.reason, tail).toMatch(/3 consecutive heartbeat failures \(last: .*no answer within 3000 ms\)/);
  }, 300_000);

  it("a refused heartbeat says the venue's error: a clock skew reads as the 401 POLY_TIMESTAMP", async () => {
    const { bot, admin } = await quoting(32);
    await admin.call('POST', '/clock', { offset_ms: 400_000 });
    const r = await tripped(bot);
    const tail = bot.err().slice(-3000);
    expect(r.code, tail).toBe(4);
    expect(r.warns.length, tail).toBeGreaterThanOrEqual(1);
    for (const w of r.warns) expect(w, tail).toMatch(/401 UNAUTHORIZED: POLY_TIMESTAMP/);
    expect(r.reason, tail).toMatch(/consecutive heartbeat failures \(last: .*401 UNAUTHORIZED: POLY_TIMESTAMP/);
  }, 300_000);
});
