/**
 * The status page in a real browser (headless Chromium, Debian's package) during a paper run of
 * `mmkit run`: the content is rendered by the page's own JavaScript from the daemon's data (the
 * served HTML holds no data at all), and it keeps updating.
 *
 *  - `chromium --dump-dom` after the page's JS ran (--virtual-time-budget): health, each traded
 *    market's question with its book top and own quotes, PnL (a decimal) with its SVG chart, the
 *    inventory, a fill in the recent fills, and several renders (it polls: `/?live=0`, because
 *    headless virtual time never advances while the event stream is open);
 *  - `chromium --screenshot --window-size=1280,900`: a PNG of the page (path printed in the log);
 *  - the live page over the DevTools protocol: the server-sent events keep re-rendering it (the
 *    render count and the snapshot time advance) and the header says `live`;
 *  - its kill button, on the page opened through a host name the operator allowed
 *    (MMKIT_STATUS_ALLOWED_HOSTS, as for a container's published port; not a loopback name): the
 *    page carries the control token, the button trips the kill switch, the daemon stops flat.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Trader } from '../integration/support/trader.ts';
import { BotHarness, botMarkets, exited, makeBotFill, sleep, waitForQuotes, waitUntil } from './support/bot-harness.ts';
import { CdpPage, findChromium, runChromium } from './support/chromium.ts';

const h = new BotHarness();
afterAll(() => h.close());

const CHROMIUM = findChromium();
const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const textOf = (dom: string, id: string): string | undefined => {
  const m = new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(dom);
  return m?.[1] === undefined ? undefined : decode(m[1]);
};

describe('status page', () => {
  it('renders markets, quotes, PnL, fills and health with JS, and updates live', async () => {
    expect(CHROMIUM, 'headless Chromium is needed: apt-get install -y chromium (.ci/run installs it)').toBeDefined();
    const bin = CHROMIUM!;
    const { ex, base } = await h.exchange(21);
    const { dir, address } = h.dataDir();
    // (a long --duration: the harness stops it; Chromium on a loaded machine takes minutes)
    // (a name the operator allowed, as for a container's published port: the kill button below uses it)
    const bot = h.startBot(base, dir, ['--duration', '900s'], { MMKIT_STATUS_ALLOWED_HOSTS: 'mmkit-box.test' });
    // daemon.json appears once the status server listens: wait until it parses
    const statusUrl = (): string | undefined => {
      try {
        return (JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')) as { statusUrl?: string }).statusUrl;
      } catch {
        return undefined; // not there yet, or half-written
      }
    };
    expect(await waitUntil(() => statusUrl() !== undefined, 60_000), bot.err().slice(-2000)).toBe(true);
    const url = statusUrl()!;
    expect(await waitForQuotes(ex, address), bot.err().slice(-2000)).toBeGreaterThan(0);
    const t = new Trader(ex.urls.clob_url);
    await t.createKey();
    expect(await makeBotFill(ex, t, address), bot.err().slice(-2000)).toBe(true);
    // healthy and the fill recorded, as the page will show it
    const ready = async (): Promise<boolean> => {
      for (const end = Date.now() + 60_000; Date.now() < end; ) {
        const s = (await (await fetch(`${url}/api/status`)).json()) as {
          health: { healthy: boolean };
          fills: { count: number };
          markets: Array<{ quotes: unknown[] }>;
        };
        if (s.health.healthy && s.fills.count > 0 && s.markets.some((m) => m.quotes.length > 0)) return true;
        await sleep(200);
      }
      return false;
    };
    expect(await ready(), bot.err().slice(-1500)).toBe(true);
    // orders go to the venue (`mode` live), and the venue says it is a paper exchange (trial 9 F2:
    // `"mode": "live"` alone made a paper run look like real money)
    expect(await (await fetch(`${url}/api/status`)).json()).toMatchObject({
      mode: 'live',
      venue: { url: base, paper: true },
    });
    const markets = botMarkets(bot.err())!;
    const questions = (
      (await (await fetch(`${url}/api/status`)).json()) as { markets: Array<{ market: string; question: string }> }
    ).markets;

    // the served document itself carries no data: everything below is rendered by its JS
    const raw = await (await fetch(`${url}/`)).text();
    for (const q of questions) expect(raw).not.toContain(q.question);
    expect(raw).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i); // no external asset

    // ---- --dump-dom after the JS ran ----------------------------------------------------------------
    const dump = await runChromium(bin, ['--virtual-time-budget=5000', '--dump-dom', `${url}/?live=0`]);
    const dom = dump.out;
    expect(dom.length, dump.err.slice(-1000)).toBeGreaterThan(1000);
    expect(textOf(dom, 'health-status')).toBe('OK');
    expect(textOf(dom, 'health-badge')).toBe('healthy');
    expect(textOf(dom, 'strategy')).toBe('bands');
    expect(textOf(dom, 'lifecycle')).toBe('running');
    expect(textOf(dom, 'pnl-total')).toMatch(/^-?\d+(\.\d+)?$/);
    expect(dom).toMatch(/<polyline id="pnl-line"[^>]* points="[\d.,\s-]+"/);
    for (const m of markets) expect(dom).toContain(`data-market="${m}"`);
    const decoded = decode(dom);
    for (const q of questions) expect(decoded).toContain(q.question);
    expect(dom).toMatch(/class="chip (bid|ask)">(Yes|No|Up|Down)[^<]* (bid|ask) 0\.\d+ × \d/); // own quotes
    expect(dom).toMatch(/<td class="num bid">0\.\d+<\/td><td class="num ask">0\.\d+<\/td>/); // book top
    expect(decoded).toContain('collateral available');
    // PnL apart and together: trading, fees, rewards paid and estimated
    const parts = decode(/<div class="kv" id="pnl-parts">([\s\S]*?)<\/div>/.exec(dom)?.[1] ?? '');
    for (const k of ['trading', 'fees', 'rewards', '· paid', '· estimated (not paid yet)']) expect(parts).toContain(k);
    const fillsBody = /<table id="fills">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(dom)?.[1] ?? '';
    expect(fillsBody).toMatch(/<td class="(bid|ask)">(BUY|SELL)<\/td>/);
    expect(Number(/data-renders="(\d+)"/.exec(dom)?.[1] ?? 0)).toBeGreaterThanOrEqual(2); // it kept polling

    // ---- --screenshot ---------------------------------------------------------------------------------
    const shotDir = mkdtempSync(join(tmpdir(), 'mmkit-status-page-'));
    const file = join(shotDir, 'status-page.png');
    const shot = await runChromium(
      bin,
      ['--virtual-time-budget=5000', '--window-size=1280,900', `--screenshot=${file}`, `${url}/?live=0`],
      60_000,
    );
    expect(existsSync(file), shot.err.slice(-1000)).toBe(true);
    const png = readFileSync(file);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.length).toBeGreaterThan(20_000);
    console.log(`status page screenshot: ${file}`);

    // ---- the live page: server-sent events keep it current --------------------------------------------
    const page = await CdpPage.open(bin, `${url}/`);
    try {
      expect(
        await page.waitFor<boolean>(
          `document.getElementById('conn').textContent === 'live' && Number(document.body.getAttribute('data-renders')) >= 2`,
          60_000,
        ),
      ).toBe(true);
      const a = await page.eval<{ renders: number; at: number; health: string }>(
        `({ renders: Number(document.body.getAttribute('data-renders')), at: Number(document.body.getAttribute('data-rendered')), health: document.getElementById('health-status').textContent })`,
      );
      // it renders again as events arrive (every status sample): wait for a later render
      expect(
        await page.waitFor<boolean>(
          `Number(document.body.getAttribute('data-renders')) > ${a.renders} && Number(document.body.getAttribute('data-rendered')) > ${a.at}`,
          60_000,
        ),
      ).toBe(true);
      const b = await page.eval<{ renders: number; at: number; markets: number }>(
        `({ renders: Number(document.body.getAttribute('data-renders')), at: Number(document.body.getAttribute('data-rendered')), markets: document.querySelectorAll('[data-market]').length })`,
      );
      expect(a.health).toBe('OK');
      expect(b.renders).toBeGreaterThan(a.renders);
      expect(b.at).toBeGreaterThan(a.at);
      expect(b.markets).toBe(markets.length);
      // own quotes and recent fills come once, then only when they change (src/ops/sse-client.ts): the
      // page keeps showing them from what it holds, render after render
      const shown = `document.querySelectorAll('.quotes .chip').length > 0 && document.querySelectorAll('#fills td.bid, #fills td.ask').length > 0`;
      expect(
        await page.waitFor<boolean>(
          `Number(document.body.getAttribute('data-renders')) > ${b.renders} + 2 && ${shown}`,
          60_000,
        ),
      ).toBe(true);
      // the PnL chart follows the series, which the stream sends whole once, then only its changes
      // (src/ops/sse-series.ts): as many points drawn as /api/status has (a sample or two apart)
      const drawn = await page.eval<number>(
        `document.getElementById('pnl-line').getAttribute('points').trim().split(' ').length`,
      );
      const served = ((await (await fetch(`${url}/api/status`)).json()) as { pnl: { series: unknown[] } }).pnl.series
        .length;
      expect(drawn).toBeGreaterThan(1);
      expect(Math.abs(served - drawn), `drawn ${drawn}, served ${served}`).toBeLessThanOrEqual(2);
      const live = await page.screenshot();
      expect(live.length).toBeGreaterThan(20_000);
    } finally {
      await page.close();
    }

    // ---- the kill button, through an allowed name that is not loopback's ----------------------------
    const port = new URL(url).port;
    const boxed = await CdpPage.open(bin, `http://mmkit-box.test:${port}/`, {
      args: ['--host-resolver-rules=MAP mmkit-box.test 127.0.0.1', '--no-proxy-server'],
    });
    try {
      expect(await boxed.waitFor<boolean>(`document.getElementById('conn').textContent === 'live'`, 60_000)).toBe(true);
      // the page carries the control token (served to an allowed Host), and its button sends it
      expect(
        await boxed.eval<boolean>(
          `/^[0-9a-f]{64}$/.test(document.querySelector('meta[name="mmkit-control-token"]').content)`,
        ),
      ).toBe(true);
      // (the answer's status recorded: the page's own header text races the event stream's end)
      await boxed.eval(
        `window.__kill = null; const f = window.fetch; window.fetch = (u, o) => f(u, o).then((r) => { if (String(u).includes('/api/kill')) window.__kill = r.status; return r; }); window.confirm = () => true; document.getElementById('kill').click(); true`,
      );
      expect(await boxed.waitFor<boolean>(`window.__kill === 200`, 120_000), bot.err().slice(-2000)).toBe(true);
    } finally {
      await boxed.close();
    }
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    expect(bot.out()).toContain('kill switch over HTTP: kill switch on the status page');
    expect(ex.exchange.openOrders(address)).toEqual([]);
  }, 480_000);
});
