/**
 * `mmkit backtest|sweep --config FILE` (review-2 F8): the configuration's markets (`bot.markets`, which
 * `MMKIT_MARKETS` sets too) apply when `--markets` is not given; `--risk` merges per key over
 * `bot.risk` as `--param` does over `bot.params`; with `--config` the daemon's settings in the
 * environment are read, so only `MMKIT_LOG_LEVEL` (never taken from it) is named in the warning.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backtestOptionsOf, ignoredEnvWarning, type SourceCliOptions } from '../../../src/cli/backtest.ts';

const A = '0x' + 'a'.repeat(64);
const B = '0x' + 'b'.repeat(64);
let dir: string;
let cfg: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-config-'));
  cfg = join(dir, 'run.json');
  writeFileSync(
    cfg,
    JSON.stringify({ bot: { strategy: 'bands', markets: [A], risk: { maxPositionShares: 20, maxMidDistance: 0.2 } } }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Options of `--world 1 --duration 1h` plus `more`. */
const flags = (more: Partial<SourceCliOptions> = {}): SourceCliOptions => ({
  world: 1,
  duration: '1h',
  seed: 1,
  latencyMs: 0,
  ...more,
});

describe('backtest --config: markets', () => {
  it('takes bot.markets when --markets is absent; --markets wins; MMKIT_MARKETS sets bot.markets (as mmkit run reads it)', () => {
    expect(backtestOptionsOf(flags({ config: cfg }), {}).markets).toEqual([A]);
    expect(backtestOptionsOf(flags({ config: cfg, markets: B }), {}).markets).toEqual([B]);
    expect(backtestOptionsOf(flags({ config: cfg }), { MMKIT_MARKETS: `${B}, ${A}` }).markets).toEqual([B, A]);
    // without --config the environment is not read (the warning says so)
    expect(backtestOptionsOf(flags({ strategy: 'bands' }), { MMKIT_MARKETS: B }).markets).toBeUndefined();
    // an empty bot.markets: every market of the feed (the most liquid of the world), as without --config
    writeFileSync(join(dir, 'none.json'), JSON.stringify({ bot: { markets: [] } }));
    expect(backtestOptionsOf(flags({ config: join(dir, 'none.json') }), {}).markets).toBeUndefined();
  });
});

describe('backtest --config: --risk merges per key over bot.risk', () => {
  it("keeps the configuration's other limits; a key --risk sets wins", () => {
    const merged = backtestOptionsOf(flags({ config: cfg, risk: { maxOrderSizeShares: 7 } }), {}).risk!;
    expect(merged).toMatchObject({ maxPositionShares: 20, maxMidDistance: 0.2, maxOrderSizeShares: 7 });
    const over = backtestOptionsOf(flags({ config: cfg, risk: { maxPositionShares: 5 } }), {}).risk!;
    expect(over).toMatchObject({ maxPositionShares: 5, maxMidDistance: 0.2 });
    // MMKIT_RISK_* is part of the configuration: --risk goes over it too
    const env = backtestOptionsOf(flags({ config: cfg, risk: { maxOrderSizeShares: 7 } }), {
      MMKIT_RISK_MAX_POSITION_SHARES: '9',
    }).risk!;
    expect(env).toMatchObject({ maxPositionShares: 9, maxOrderSizeShares: 7 });
    // without --config, --risk is the whole of the limits given (the others: the gate's defaults)
    expect(backtestOptionsOf(flags({ strategy: 'bands', risk: { maxOrderSizeShares: 7 } }), {}).risk).toEqual({
      maxOrderSizeShares: 7,
    });
  });
});

describe('ignoredEnvWarning', () => {
  const env = { MMKIT_MARKETS: A, MMKIT_RISK_MAX_POSITION_SHARES: '9', MMKIT_POST_ONLY: 'false' };
  it('with --config the settings are read: no warning, except for MMKIT_LOG_LEVEL (never taken)', () => {
    expect(ignoredEnvWarning('backtest', env, true)).toBeUndefined();
    expect(ignoredEnvWarning('sweep', { ...env, MMKIT_LOG_LEVEL: 'debug' }, true)).toBe(
      "mmkit sweep: warning: ignoring the environment's MMKIT_LOG_LEVEL (use --log-level): a sweep logs only with --log-level\n",
    );
  });
  it('without --config names every daemon setting set, for sweeps the log level too (sweep --log-level)', () => {
    const w = ignoredEnvWarning('sweep', { ...env, MMKIT_LOG_LEVEL: 'debug' });
    expect(w).toContain('MMKIT_MARKETS (use --markets)');
    expect(w).toContain('MMKIT_LOG_LEVEL (use --log-level)');
    expect(w).toContain('without --config a sweep takes its settings from its flags only');
  });
});
