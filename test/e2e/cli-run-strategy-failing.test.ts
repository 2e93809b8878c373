/**
 * Trial 23 F3: while the strategy errs on every evaluation, the engine pulls the quotes of its
 * markets (`strategy_failing`), and `mmkit status` said each of them was `[quoting]`. The real daemon
 * (`mmkit run`) on the paper exchange, a plugin that quotes for a few seconds and then throws.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BotHarness, sleep, waitForQuotes } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
/** Scratch space inside the project (so `mmkit/strategy` resolves). */
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(ROOT, '.tmp', 'strategy-failing-e2e-'));
const h = new BotHarness();
afterAll(async () => {
  await h.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('mmkit status while the strategy fails', () => {
  it('names the markets pulled for it "strategy failing", not quoting', async () => {
    const file = join(scratch, 'breaks.ts');
    writeFileSync(
      file,
      `import { defineStrategy, tickPips } from 'mmkit/strategy';
export default defineStrategy({ name: 'breaks', description: 'quotes, then throws on every event', params: {}, create(ctx) {
  let first;
  return { onEvent(event, state) {
    first ??= state.now;
    if (state.now - first > 4000) throw new Error('broken now');
    if (event.type !== 'timer') return undefined;
    const out = [];
    for (const m of ctx.markets.values()) {
      const yes = m.tokens[0].tokenId;
      const b = state.book(yes);
      if (!b || b.stale || b.bestBid === null) continue;
      out.push({ market: m.market, quotes: [{ tokenId: yes, side: 'BUY', price: b.bestBid - tickPips(m.tick), size: 5_000_000 }], at: state.now });
    }
    return { quotes: out };
  } };
} });
`,
    );
    const { base, ex } = await h.exchange(41);
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--strategy', file, '--duration', '120s']);
    expect(await waitForQuotes(ex, address, 60_000), bot.err().slice(-2000)).toBeGreaterThan(0);
    const statusUrl = (JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')) as { statusUrl: string }).statusUrl;
    type Mk = { market: string; quotable: boolean; why: string | null };
    let markets: Mk[] = [];
    for (let i = 0; i < 120; i++) {
      markets = ((await (await fetch(`${statusUrl}/api/status`)).json()) as { markets: Mk[] }).markets;
      if (markets.length > 0 && markets.every((m) => m.why === 'strategy failing')) break;
      await sleep(250);
    }
    expect(markets.length).toBeGreaterThan(0);
    for (const m of markets)
      expect(m, bot.err().slice(-2000)).toMatchObject({ quotable: false, why: 'strategy failing' });
    const s = await runMmkit(['status', '--data-dir', dir]);
    expect(s.out).toContain('strategy_failing');
    expect(s.out).toContain('[pulled: strategy failing]');
    expect(s.out).not.toContain('[quoting]');
    bot.p.kill('SIGTERM');
  }, 180_000);
});
