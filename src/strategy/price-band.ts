/**
 * The check of a strategy's own risk price band (`riskPriceBand` of a definition, src/strategy/api.ts):
 * what the loader refuses, one message per problem. Pure.
 */
import type { RiskPriceBand } from './api.ts';

const KEYS: readonly (keyof RiskPriceBand)[] = ['min', 'max', 'maxMidDistance'];

/**
 * The problems of a `riskPriceBand` value (empty: valid). Valid: an object with only `min`, `max`
 * and `maxMidDistance`, each a finite number when given: min and max in (0, 1) with min <= max,
 * maxMidDistance in (0, 1].
 */
export function riskPriceBandProblems(band: unknown): string[] {
  if (typeof band !== 'object' || band === null || Array.isArray(band))
    return ['`riskPriceBand`, when given, must be an object { min?, max?, maxMidDistance? } in price units'];
  const b = band as Record<string, unknown>;
  const out: string[] = [];
  for (const k of Object.keys(b))
    if (!(KEYS as readonly string[]).includes(k))
      out.push(`\`riskPriceBand.${k}\` is not a band field (known: ${KEYS.join(', ')})`);
  const num = (k: keyof RiskPriceBand, lo: number, hiIncl: boolean): number | undefined => {
    const v = b[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= lo || (hiIncl ? v > 1 : v >= 1)) {
      out.push(`\`riskPriceBand.${k}\` must be a number in (0, 1${hiIncl ? ']' : ')'}, got ${JSON.stringify(v)}`);
      return undefined;
    }
    return v;
  };
  const min = num('min', 0, false);
  const max = num('max', 0, false);
  num('maxMidDistance', 0, true);
  if (min !== undefined && max !== undefined && min > max)
    out.push(`\`riskPriceBand.min\` (${min}) must not exceed \`riskPriceBand.max\` (${max})`);
  return out;
}
