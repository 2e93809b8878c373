/**
 * Band ladders as poly-market-maker writes them (the `bands` strategy's `bandsFile` / `bandsJson`, and
 * any plugin that quotes bands): one `Band` per margin window, in integer units; `parseBands` checks
 * a parsed bands document, `loadBandsFile` reads one (the only I/O here: once, when a strategy is
 * created), `checkBand` the rules every band keeps, `rewardBands` the innermost band bent into a
 * market's liquidity-reward band. Exported by the plugin API ('mmkit/strategy').
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../core/errors.ts';
import { AMOUNT_SCALE, LOT_MICRO, PRICE_SCALE } from '../core/units.ts';
import { lotsDown } from './quoting.ts';
import type { RewardTarget } from './reward-quoting.ts';

/** One band in integer units: margins in pips, amounts in micro-shares. */
export interface Band {
  readonly minMargin: number;
  readonly avgMargin: number;
  readonly maxMargin: number;
  readonly minAmount: number;
  readonly avgAmount: number;
  readonly maxAmount: number;
}

const pips = (x: number): number => Math.round(x * PRICE_SCALE);
const micro = (x: number): number => Math.round(x * AMOUNT_SCALE);
const lotDown = lotsDown;

const BAND_KEYS = ['minMargin', 'avgMargin', 'maxMargin', 'minAmount', 'avgAmount', 'maxAmount'] as const;

/** At most this many explicit bands. */
const MAX_BANDS = 20;

function shown(x: unknown): string {
  if (typeof x === 'string') return JSON.stringify(x.length > 30 ? `${x.slice(0, 30)}...` : x);
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'object') return 'an object';
  return String(x);
}

/**
 * Explicit bands out of a parsed JSON document: poly-market-maker's bands file
 * (`{"bands": [band, ...]}`) or the bare array of bands. Each band has exactly the six keys
 * (numbers: margins in price units, amounts in shares), read by name. The checks are
 * poly-market-maker's (minMargin <= avgMargin <= maxMargin with minMargin < maxMargin, minAmount <=
 * avgAmount <= maxAmount, no two bands' margin windows overlap; touching is fine) and ours
 * (`checkBand`: margins in (0, 1), avgAmount at least one lot).
 * @param key the ConfigError key (`bot.params.bandsJson` or `bot.params.bandsFile`)
 * @param where what the message names first (a file path), or '' for none
 * @throws ConfigError naming the field (`bands[1].maxMargin`) and what is wrong
 */
export function parseBands(doc: unknown, key: string, where = ''): Band[] {
  const at = (what: string, msg: string) => new ConfigError(key, `${where === '' ? '' : `${where}: `}${what}${msg}`);
  let list: unknown = doc;
  let prefix = '';
  if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) {
    const o = doc as Record<string, unknown>;
    for (const k of Object.keys(o)) if (k !== 'bands') throw at(k, ': unknown key (a bands file has only "bands")');
    if (!('bands' in o)) throw at('bands', ': missing (expected {"bands": [...]})');
    list = o['bands'];
    prefix = 'bands';
  }
  const bandName = (i: number) => (prefix === '' ? `band ${i}` : `${prefix}[${i}]`);
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_BANDS)
    throw at(prefix === '' ? 'bands' : prefix, `: expected an array of 1 to ${MAX_BANDS} bands, got ${shown(list)}`);
  const out = list.map((b: unknown, i) => {
    const name = bandName(i);
    if (typeof b !== 'object' || b === null || Array.isArray(b)) throw at(name, ' must be an object');
    const o = b as Record<string, unknown>;
    for (const k of Object.keys(o))
      if (!(BAND_KEYS as readonly string[]).includes(k))
        throw at(name, `: unknown key ${k} (expected ${BAND_KEYS.join(', ')})`);
    const v = {} as Record<(typeof BAND_KEYS)[number], number>;
    for (const k of BAND_KEYS) {
      const x = o[k];
      if (typeof x !== 'number' || !Number.isFinite(x) || x < 0)
        throw at(`${name}.${k}`, ` must be a non-negative number, got ${x === undefined ? 'nothing' : shown(x)}`);
      v[k] = x;
    }
    if (!(v.minMargin < v.maxMargin)) throw at(name, ': need minMargin < maxMargin');
    const band: Band = {
      minMargin: pips(v.minMargin),
      avgMargin: pips(v.avgMargin),
      maxMargin: pips(v.maxMargin),
      minAmount: micro(v.minAmount),
      avgAmount: lotDown(micro(v.avgAmount)),
      maxAmount: micro(v.maxAmount),
    };
    return checkBand(band, `${where === '' ? '' : `${where}: `}${name}`, key);
  });
  // poly-market-maker refuses overlapping margin windows (touching ones are fine)
  for (let i = 0; i < out.length; i++)
    for (let j = i + 1; j < out.length; j++) {
      const x = out[i]!;
      const y = out[j]!;
      if (x.minMargin < y.maxMargin && y.minMargin < x.maxMargin) {
        throw at(`${bandName(i)} and ${bandName(j)}`, ': margin windows overlap (poly-market-maker refuses that too)');
      }
    }
  // innermost first, whatever the file's order (poly-market-maker's does not matter either)
  return out.sort((x, y) => x.minMargin - y.minMargin);
}

export function parseBandsJson(s: string): Band[] {
  const key = 'bot.params.bandsJson';
  let raw: unknown;
  try {
    raw = JSON.parse(s);
  } catch (e) {
    throw new ConfigError(key, `not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  return parseBands(raw, key);
}

/**
 * The bands of a poly-market-maker bands file (see `parseBands`).
 * @throws ConfigError (key `bot.params.bandsFile`) naming the path when the file cannot be
 * read or is not JSON, and the field when a band is invalid
 */
export function loadBandsFile(path: string): Band[] {
  const key = 'bot.params.bandsFile';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError(
      key,
      `${path}: cannot read the bands file (${code === 'ENOENT' ? 'no such file' : (code ?? (e as Error).message)})`,
      { cause: e },
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    // JSON.parse's message quotes the start of the text ("vm\n" is not valid JSON): a file named by
    // mistake may hold a secret, so only the position is said, never its content
    const at = /position (\d+)/.exec((e as Error).message);
    throw new ConfigError(key, `${path}: not valid JSON${at === null ? '' : ` (at position ${at[1]})`}`, {
      cause: e,
    });
  }
  if (Array.isArray(raw) || typeof raw !== 'object' || raw === null)
    throw new ConfigError(key, `${path}: expected a poly-market-maker bands file, {"bands": [...]}`);
  return parseBands(raw, key, path);
}

export function checkBand(b: Band, what: string, key: string): Band {
  if (!(b.minMargin <= b.avgMargin && b.avgMargin <= b.maxMargin))
    throw new ConfigError(key, `${what}: need minMargin <= avgMargin <= maxMargin`);
  if (b.avgMargin <= 0 || b.maxMargin >= PRICE_SCALE)
    throw new ConfigError(key, `${what}: avgMargin must be at least 0.0001 and maxMargin below 1`);
  if (!(b.minAmount <= b.avgAmount && b.avgAmount <= b.maxAmount))
    throw new ConfigError(key, `${what}: need minAmount <= avgAmount <= maxAmount`);
  if (b.avgAmount < LOT_MICRO) throw new ConfigError(key, `${what}: avgAmount must be at least 0.01 shares`);
  return b;
}

/**
 * The bands of a rewarded market around `center` (pips): the innermost band's margins capped so its
 * quotes and the orders it keeps stay inside the reward band (`target.bidFloor`..`askCeiling`, both
 * sides), its amounts raised to the reward size. Unchanged when the center is outside the band.
 */
export function rewardBands(bands: readonly Band[], center: number, target: RewardTarget): readonly Band[] {
  const m = Math.min(center - target.bidFloor, target.askCeiling - center);
  const b = bands[0];
  if (!(m > 0) || b === undefined) return bands;
  const avgMargin = Math.min(b.avgMargin, m);
  const avgAmount = Math.max(b.avgAmount, target.size);
  return [
    {
      minMargin: Math.min(b.minMargin, avgMargin),
      avgMargin,
      maxMargin: Math.min(b.maxMargin, m),
      minAmount: Math.max(b.minAmount, target.size),
      avgAmount,
      maxAmount: Math.max(b.maxAmount, avgAmount),
    },
    ...bands.slice(1),
  ];
}
