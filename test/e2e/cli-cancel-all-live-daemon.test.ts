/**
 * `mmkit cancel-all` while a daemon runs on the data dir: the daemon quotes again at its next intent,
 * and the command says so, with the way to stop it (trial 13 F4: it printed "0 open now" and the
 * orders were back 3 s later without a word); the daemon's log says its orders were cancelled outside it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BotHarness, exited, waitForQuotes, waitUntil } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit cancel-all with a daemon running', () => {
  it('cancels, and says that the daemon of the data dir will quote again and how to stop it', async () => {
    const { ex, base } = await h.exchange(7);
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--duration', '120s']);
    expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);
    const r = await runMmkit(['cancel-all', '--data-dir', dir, '--exchange-url', base]);
    expect(r.out).toMatch(/^canceled \d+ order\(s\) of 0x[0-9a-fA-F]+; \d+ open now\n/);
    expect(r.err).toMatch(
      /a daemon runs on this data dir \(pid \d+ on host .*\) and will quote again: `mmkit kill --data-dir .*` stops it/,
    );
    // the daemon says it too (trial 15 F5: its orders went without a word in its log)
    const said = () => bot.err().includes('order cancelled at the venue, not by the daemon');
    expect(await waitUntil(said, 15_000), bot.err().slice(-3000)).toBe(true);
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    // stopped: nothing said any more
    const after = await runMmkit(['cancel-all', '--data-dir', dir, '--exchange-url', base]);
    expect(after.err).not.toContain('a daemon runs on this data dir');
    expect(after.err).not.toContain('fleet');
    // with a fleet configured, its members elsewhere quote again: the way to stop them all (trial 14 F9)
    const fleet = await runMmkit(['cancel-all', '--data-dir', dir, '--exchange-url', base], {
      env: { MMKIT_REDIS_URL: 'redis://127.0.0.1:1' },
    });
    expect(fleet.err).toContain(
      "the account's fleet members (on any machine) will quote again; `mmkit kill --fleet` stops them all",
    );
  }, 180_000);
});
