/**
 * A stop asked while the daemon starts places no order (trial 13 F6: a SIGTERM 0.4 s into the start was
 * honoured only after the engine was ready, and 4 quotes went to the venue, then were cancelled). The
 * start's reconciliation is held up by a latency fault on the venue's trade history; the SIGTERM comes
 * while it waits; the daemon finishes the start, places nothing, and stops.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BotHarness, exited, logLines, recordRequests, sleep, waitUntil } from './support/bot-harness.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: a stop during the start', () => {
  it('SIGTERM while the start reconciles: no order is placed, the run ends flat, exit 0', async () => {
    const { ex, base } = await h.exchange(7);
    const seen = recordRequests(ex);
    const { dir, address } = h.dataDir();
    await sleep(500); // the agents build some books
    // the reconciliation's read of the account's trades answers 4 s late (for the next 6 s)
    ex.faults.set([{ route: 'GET /clob/data/trades', latencyMs: 4000, untilMs: Date.now() + 6000 }]);
    const bot = h.startBot(base, dir, ['--duration', '120s', '--log-format', 'json']);
    // the daemon is reconciling: its trade history read has arrived (and waits)
    expect(
      await waitUntil(() => seen.some((r) => r.method === 'GET' && r.path.startsWith('/clob/data/trades')), 60_000),
      bot.err().slice(-3000),
    ).toBe(true);
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    const lines = logLines(bot.err());
    expect(
      lines.some((l) => l.msg.startsWith('a stop was asked during the start')),
      bot.err().slice(-3000),
    ).toBe(true);
    expect(lines.some((l) => l.msg === 'engine ready: quoting allowed')).toBe(false);
    // nothing was sent: no order at the venue, ever
    expect(seen.filter((r) => r.method === 'POST' && /^\/clob\/orders?$/.test(r.path))).toEqual([]);
    expect(ex.exchange.openOrders(address)).toEqual([]);
    expect(bot.out()).toContain('mmkit run stopped (SIGTERM)');
    expect(bot.out()).toMatch(/\n {2}orders placed {5}0\n/);
  }, 180_000);
});
