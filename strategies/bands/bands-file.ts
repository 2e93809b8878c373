/**
 * The bands of `bands` (strategies/bands.ts) given explicitly: poly-market-maker's bands file
 * (`bandsFile`: `{"bands": [{minMargin, avgMargin, maxMargin, minAmount, avgAmount, maxAmount}, ...]}`,
 * price units and shares) or the same inline (`bandsJson`), parsed and checked into integer units
 * (margins in pips, amounts in micro-shares). An invalid file refuses the start with a ConfigError
 * naming the field (poly-market-maker would run with no bands). Apart from the quoting logic, which
 * only sees the bands it yields; a module of the plugin's own (strategies/bands/: only bands.ts and
 * its tests import it, and `mmkit strategy list` lists the top-level plugins only). It imports only
 * the plugin API ('mmkit/strategy').
 */
import { readFileSync } from 'node:fs';
import { AMOUNT_SCALE, ConfigError, LOT_MICRO, lotsDown, PRICE_SCALE } from 'mmkit/strategy';

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
 * @param key the ConfigError key (`strategy.params.bandsJson` or `strategy.params.bandsFile`)
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

/**
 * The bands of `bandsJson` (the bands file's document inline, or the bare array of bands; see `parseBands`).
 * @throws ConfigError (key `strategy.params.bandsJson`) when it is not JSON, naming the field when a band is invalid
 */
export function parseBandsJson(s: string): Band[] {
  const key = 'strategy.params.bandsJson';
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
 * @throws ConfigError (key `strategy.params.bandsFile`) naming the path when the file cannot be
 * read or is not JSON, and the field when a band is invalid
 */
export function loadBandsFile(path: string): Band[] {
  const key = 'strategy.params.bandsFile';
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
    throw new ConfigError(key, `${path}: not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  if (Array.isArray(raw) || typeof raw !== 'object' || raw === null)
    throw new ConfigError(key, `${path}: expected a poly-market-maker bands file, {"bands": [...]}`);
  return parseBands(raw, key, path);
}

/**
 * Our checks of one band in integer units, the file's bands' and the generated ones' (`bandsConfig`):
 * minMargin <= avgMargin <= maxMargin, margins in (0, 1), minAmount <= avgAmount <= maxAmount, avgAmount
 * at least one lot. Returns the band.
 * @param what what the message names (`bands[1]`, `band 0`)
 * @throws ConfigError (key `key`) saying what is wrong
 */
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
