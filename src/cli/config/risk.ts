/** The `bot.risk` section of the configuration: the limits of src/risk/limits.ts. */
import { GLOBAL_LIMITS_SCHEMA, MARKET_LIMITS_SCHEMA } from '../../risk/limits.ts';
import type { ParamSpec } from '../../strategy/api.ts';
import { boundedFormat } from './bounded.ts';

/** `bot.risk.*`: the limits of src/risk/limits.ts, one key (and env var) each, in decimal units. */
export function riskSchema() {
  const out: Record<string, { doc: string; format: unknown; default: unknown; env: string }> = {};
  for (const [k, spec] of Object.entries({ ...MARKET_LIMITS_SCHEMA, ...GLOBAL_LIMITS_SCHEMA }) as Array<
    [string, ParamSpec]
  >) {
    out[k] = {
      doc: spec.doc,
      format: boundedFormat(`risk-${k}`, spec),
      default: spec.default,
      env: `MMKIT_RISK_${k.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`,
    };
  }
  out['markets'] = {
    doc: 'Per-market overrides of the per-market limits above: {"<condition id>": {"maxPositionShares": 50, ...}} (JSON object).',
    format: 'json-object',
    default: {},
    env: 'MMKIT_RISK_MARKETS',
  };
  return out;
}

/** The `bot.risk` section: limits in decimal units (src/risk/limits.ts resolves them to integers). */
export type RiskConfig = { [K in keyof typeof MARKET_LIMITS_SCHEMA | keyof typeof GLOBAL_LIMITS_SCHEMA]: number } & {
  markets: Record<string, Record<string, number | string>>;
};
