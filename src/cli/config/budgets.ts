/** The `budgets.*` section of the configuration: the client's rate budgets. */
import { SIGNER_TIER_NAMES, type BudgetSignerTier } from '../../core/signer-limits.ts';
import { boundedFormat } from './bounded.ts';

export const budgetsSchema = {
  enabled: {
    doc: "Hold every venue request until the endpoint's rate budget (spec section 8) admits it.",
    format: 'bool',
    default: true,
    env: 'MMKIT_BUDGETS',
  },
  scale: {
    doc: 'Multiplier of every rate limit the client budgets against (e.g. a venue granting more).',
    format: 'positive-number',
    default: 1,
    env: 'MMKIT_BUDGET_SCALE',
  },
  headroom: {
    doc: 'Fraction of every limit left unused (0.1: budget 90 % of it), for other clients of the same key and clock skew.',
    format: boundedFormat('budget-headroom', { type: 'number', default: 0, min: 0, max: 0.9, doc: '' }),
    default: 0,
    env: 'MMKIT_BUDGET_HEADROOM',
  },
  marginMs: {
    doc: 'Extra time a request stays counted after its window, ms.',
    format: 'nat',
    default: 50,
    env: 'MMKIT_BUDGET_MARGIN_MS',
  },
  signerTier: {
    doc: "The venue's per-signer buckets the client budgets against: auto (start at standard, the tightest, and adopt the tier the venue names in Poly-RateLimit-Tier), a tier name to start from (then adopt likewise), or off (a venue without them).",
    format: ['auto', 'off', ...SIGNER_TIER_NAMES],
    default: 'auto',
    env: 'MMKIT_BUDGET_SIGNER_TIER',
  },
};

export type BudgetsConfig = {
  enabled: boolean;
  scale: number;
  headroom: number;
  marginMs: number;
  signerTier: BudgetSignerTier;
};
