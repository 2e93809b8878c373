/**
 * A strategy's market choice (`selectMarkets` in its definition) through `mmkit run` as a user runs
 * it: without bot.markets, the daemon trades the markets the strategy picks (at most
 * bot.marketCount, in its order, reading books through ctx.book), not the default pick.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BotHarness, exited } from './support/bot-harness.ts';

const API = pathToFileURL(fileURLToPath(new URL('../../src/strategy/index.ts', import.meta.url))).href;
const h = new BotHarness();
const tmp = mkdtempSync(join(tmpdir(), 'mmkit-select-'));
afterAll(async () => {
  await h.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('selectMarkets through mmkit run', () => {
  it('trades the markets the strategy picks (highest condition ids with a readable book), marketCount of them', async () => {
    const plugin = join(tmp, 'picky.ts');
    writeFileSync(
      plugin,
      `import { defineStrategy } from ${JSON.stringify(API)};
export default defineStrategy({
  name: 'picky',
  description: 'quotes nothing; picks the highest condition ids',
  params: {},
  async selectMarkets(markets, ctx) {
    const out = [];
    for (const m of [...markets].sort((a, b) => (a.market < b.market ? 1 : -1))) {
      const b = await ctx.book(m.tokens[0].tokenId);
      if (b !== undefined && b.bestBid !== null) out.push(m.market);
    }
    return ['0xnot-a-candidate', ...out];
  },
  create() { return { onEvent() { return undefined; } }; },
});
`,
    );
    const { ex, base } = await h.exchange(11);
    const { dir } = h.dataDir();
    const bot = h.startBot(base, dir, ['--strategy', plugin, '--duration', '3s'], { MMKIT_MARKET_COUNT: '2' });
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);
    const lines = bot
      .err()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const starting = lines.find((l) => l['msg'] === 'starting') as { markets: { market: string }[] } | undefined;
    expect(starting, bot.err().slice(-3000)).toBeDefined();
    // what the strategy should have picked: the candidates (active, ending in more than an hour), highest ids
    const res = await fetch(`${ex.urls.gamma_url}/markets?active=true&closed=false&limit=500`);
    const all = (await res.json()) as Array<{ conditionId: string; endDate: string }>;
    const want = all
      .filter((m) => Date.parse(m.endDate) - Date.now() > 3_600_000)
      .map((m) => m.conditionId)
      .sort()
      .reverse()
      .slice(0, 2);
    expect(starting!.markets.map((m) => m.market)).toEqual(want);
    expect(lines.some((l) => l['msg'] === 'selectMarkets returned markets that are not candidates: ignored')).toBe(
      true,
    );
  }, 120_000);
});
