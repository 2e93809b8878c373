/**
 * config/polymarket.json, the profile of the public service, loads through the real config loader
 * and validates; its facts are those mmkit signs with (the doctor's contract check passes on them).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { explicitUrls } from '../../../src/cli/venue.ts';
import { doctorSettingsOf } from '../../../src/cli/doctor.ts';
import { contractsCheck } from '../../../src/ops/doctor/contracts.ts';
import { resolveRiskLimits } from '../../../src/risk/limits.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import { BANDS_PARAMS, bandsConfig } from '../../../strategies/bands.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const FILE = join(ROOT, 'config/polymarket.json');

describe('config/polymarket.json', () => {
  it('loads and validates (no secrets, every key known)', () => {
    const cfg = loadConfig(FILE, {}, {});
    expect(cfg.bot.chainId).toBe(137);
    expect(cfg.venue.protocol).toBe('2');
    expect(explicitUrls(cfg)).toEqual({
      clob: 'https://clob.polymarket.com',
      gamma: 'https://gamma-api.polymarket.com',
      data: 'https://data-api.polymarket.com',
      relayer: 'https://relayer-v2.polymarket.com',
      ws: 'wss://ws-subscriptions-clob.polymarket.com',
      rtds: 'wss://ws-live-data.polymarket.com',
    });
    expect(cfg.doctor).toMatchObject({ geoblockUrl: 'https://polymarket.com/api/geoblock', beforeRun: true });
    // a keystore wallet, never a key in the file
    expect(cfg.bot.keystoreFile).toBe('data/polymarket/keystore.json');
    expect(cfg.secrets.privateKey).toBe('');
  });

  it('its contracts are those V2 orders on chain 137 are signed for', () => {
    const cfg = loadConfig(FILE, {}, {});
    expect(cfg.venue.contracts).toEqual({
      exchange: '0xE111180000d2663C0091e4f400237545B87B996B',
      negRiskExchange: '0xe2222d279d744050d28e00520010520000310F59',
      collateral: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
    });
    expect(contractsCheck(doctorSettingsOf(cfg).contracts, 2, 137).status).toBe('pass');
  });

  it('has conservative limits: small orders, positions and loss; budgets with headroom; post-only', () => {
    const cfg = loadConfig(FILE, {}, {});
    // the risk wiring takes them (it throws on a bad limit)
    expect(() => resolveRiskLimits(cfg.bot.risk)).not.toThrow();
    expect(cfg.bot.risk.maxOrderSizeShares).toBeLessThanOrEqual(10);
    expect(cfg.bot.risk.maxLoss).toBeLessThanOrEqual(25);
    // a loss of the day stops it before the epoch's limit does
    expect(cfg.bot.risk.maxDailyLoss).toBeGreaterThan(0);
    expect(cfg.bot.risk.maxDailyLoss).toBeLessThan(cfg.bot.risk.maxLoss);
    expect(cfg.budgets).toMatchObject({ enabled: true, headroom: 0.2 });
    expect(cfg.bot.postOnly).toBe(true);
    expect(cfg.bot.marketCount).toBe(1);
  });

  it("its bands params fit its risk limits: the gate refuses and trims none of the strategy's quotes by construction", () => {
    // (findings-5 F6: the default bands' outer band and sizes were refused / trimmed on every re-quote)
    const cfg = loadConfig(FILE, {}, {});
    expect(cfg.bot.strategy).toBe('bands');
    const b = bandsConfig(resolveParams(BANDS_PARAMS, cfg.bot.params));
    const l = resolveRiskLimits(cfg.bot.risk);
    const m = l.defaults;
    // the public service's coarse tick (0.01) and usual minimum order (5 shares)
    const tick = 100;
    const minSize = 5_000_000;
    const outer = b.bands[b.bands.length - 1]!;
    // PRICE_BAND: a fresh quote sits at avgMargin (+ up to a tick of rounding away from the mid), a
    // kept one within maxMargin, both shifted by at most inventorySkew ticks
    expect(Math.max(outer.avgMargin + tick, outer.maxMargin) + b.inventorySkew * tick).toBeLessThanOrEqual(
      m.maxMidDistance,
    );
    // ORDER_SIZE: a fresh quote is at most a band's avgAmount (or the minimum order)
    for (const x of b.bands) expect(Math.max(x.avgAmount, minSize)).toBeLessThanOrEqual(m.maxOrderSize);
    // a band is quotable: its avgAmount is at least the minimum order
    for (const x of b.bands) expect(x.avgAmount).toBeGreaterThanOrEqual(minSize);
    // one side rests at most the bands' maxAmounts
    const side = b.bands.reduce((n, x) => n + x.maxAmount, 0);
    // POSITION: buys stop at the strategy's maxPosition, plus one side resting
    expect(b.maxPosition + side).toBeLessThanOrEqual(m.maxPosition);
    // NOTIONAL_MARKET: both sides resting at the highest price quoted (micro-shares x pips / 10^4)
    expect((2 * side * m.maxPrice) / 10_000).toBeLessThanOrEqual(m.maxNotional);
    // OPEN_ORDERS_MARKET: a band holds orders of at least the minimum summing to its maxAmount, plus a
    // remnant of a partial fill topped up by one new order
    const orders = 2 * b.bands.reduce((n, x) => n + Math.floor(x.maxAmount / minSize) + 1, 0);
    expect(orders).toBeLessThanOrEqual(m.maxOpenOrders);
    // the global limits hold the markets it picks
    expect(cfg.bot.marketCount * m.maxOpenOrders).toBeLessThanOrEqual(l.global.maxOpenOrders);
    expect(cfg.bot.marketCount * m.maxNotional).toBeLessThanOrEqual(l.global.maxNotional);
  });

  it('takes the keystore password from the environment', () => {
    const cfg = loadConfig(FILE, {}, { MMKIT_KEYSTORE_PASSWORD: 'correct horse battery staple' });
    expect(cfg.secrets.keystorePassword).toBe('correct horse battery staple');
  });
});
