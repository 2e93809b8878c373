/**
 * What a shadow run (`mmkit run --shadow`) says to its operator is true of a shadow run:
 *  - no "reconciled with the venue" nor "restart reconciliation done" in its log (there is no
 *    reconciliation with the venue's account);
 *  - `mmkit kill --shadow` says the orders were simulated (not "zero open orders at the venue");
 *  - `mmkit status` / `mmkit kill` without --shadow say a SHADOW daemon runs on the data dir;
 *  - the exit summary names the positions held as `mmkit run` does ("Yes · Will …"), never by a
 *    token id;
 *  - a market the venue closes is pulled (its re-read of the markets, venue.marketRefreshMs).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Admin, BotHarness, exited, logLines, sleep, waitUntil } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const TOKEN = 'e2e-shadow-ops-admin';
const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run --shadow: what it tells the operator', () => {
  it('no reconciliation wording, a kill message true for shadow, positions held by label', async () => {
    const { base } = await h.exchange(23, { rate: 4, adminToken: TOKEN });
    const { dir } = h.dataDir();
    const bot = h.startBot(base, dir, ['--shadow', '--duration', '120s'], {
      MMKIT_LOG_FORMAT: 'json',
      MMKIT_MARKET_REFRESH_MS: '1000',
    });
    const shadowDir = join(dir, 'shadow');
    expect(await waitUntil(() => existsSync(join(shadowDir, 'daemon.json')), 60_000), bot.err().slice(-2000)).toBe(
      true,
    );
    // until the simulated account holds a position (a fill), up to 60 s
    const held = await waitUntil(
      () =>
        logLines(bot.err()).some(
          (l) => l.msg === 'status (SHADOW)' && Array.isArray(l.positions) && l.positions.length > 0,
        ),
      60_000,
    );
    expect(held, 'no simulated fill within 60 s').toBe(true);
    // a market the venue closes is pulled by the shadow run's re-read of its markets (public REST)
    const started = logLines(bot.err()).find((l) => l.msg === 'starting (SHADOW)');
    const closed = (started?.['markets'] as Array<{ market: string }> | undefined)?.[0]?.market;
    expect(closed, 'the markets the shadow run trades').toBeDefined();
    await new Admin(base, TOKEN).call('POST', `/markets/${closed}/close`, {});
    expect(
      await waitUntil(
        () =>
          logLines(bot.err()).some(
            (l) => l.msg === 'pulling quotes' && l['market'] === closed && /market closed/.test(String(l['why'])),
          ),
        30_000,
      ),
      bot.err().slice(-3000),
    ).toBe(true);
    await sleep(200);
    // without --shadow no live daemon answers (a port nothing listens on): the hint names the shadow run
    for (const cmd of ['status', 'kill']) {
      const s = await runMmkit([cmd, '--data-dir', dir], { timeoutMs: 60_000, env: { MMKIT_HTTP_PORT: '9' } });
      expect(s.code, s.err).toBe(3);
      expect(s.err).toContain('a SHADOW daemon runs on this data dir');
      expect(s.err).toContain('add --shadow');
    }
    const k = await runMmkit(['kill', '--shadow', '--data-dir', dir], { timeoutMs: 60_000 });
    expect(k.code, k.err).toBe(0);
    expect(k.out).toContain('(SHADOW)');
    expect(k.out).toContain('no order was sent to the venue');
    expect(k.out).not.toContain('zero open orders at the venue');
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);
    const msgs = logLines(bot.err()).map((l) => l.msg);
    // every line names its component (README "Logs"), in shadow mode too
    expect(
      logLines(bot.err())
        .filter((l) => typeof l['component'] !== 'string')
        .map((l) => l.msg),
    ).toEqual([]);
    expect(msgs).not.toContain('reconciled with the venue');
    expect(msgs).not.toContain('restart reconciliation done');
    const line = bot
      .out()
      .split('\n')
      .find((l) => l.trimStart().startsWith('positions held'));
    expect(line, bot.out()).toBeDefined();
    expect(line).not.toBe('  positions held    none');
    expect(line).toContain(' · ');
    expect(line).not.toMatch(/\d{20,}/);
  }, 240_000);
});
