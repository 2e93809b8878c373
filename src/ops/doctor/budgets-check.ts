/**
 * The rate-limit headroom check: the request budgets the client keeps (budgets.*: every request
 * waits for its endpoint's budget, so the venue never has to answer 429) and the 429s the venue
 * answered during the doctor's own requests.
 */
import { fail, pass, warn, type Check } from './check.ts';

export interface BudgetFacts {
  readonly enabled: boolean;
  /** budgets.scale: the spec's limits are multiplied by it. */
  readonly scale: number;
  /** budgets.headroom: the fraction of every limit left unused. */
  readonly headroom: number;
  readonly signerTier: string;
  /** 429 answers the venue gave to the doctor's requests. */
  readonly rateLimited: number;
}

const ID = 'rate-limits';
const TITLE = 'rate-limit headroom';

/** Against a real venue: budgets off fail, no headroom or a 429 seen warn. On paper only warns. */
export function budgetsCheck(b: BudgetFacts, paper: boolean): Check {
  const used = Math.round(b.scale * (1 - b.headroom) * 100);
  const desc = `budgets ${b.enabled ? 'on' : 'off'}, ${used} % of the spec's limits (scale ${b.scale}, headroom ${b.headroom}), signer tier ${b.signerTier}`;
  if (!b.enabled)
    return (paper ? warn : fail)(
      ID,
      TITLE,
      desc,
      'set budgets.enabled true: without budgets bursts go out as fast as they come and the venue answers 429 (and may block the key)',
    );
  if (b.rateLimited > 0)
    return warn(
      ID,
      TITLE,
      `${desc}; the venue answered 429 to ${b.rateLimited} of the doctor's requests: another client uses this key or address`,
      'raise budgets.headroom (e.g. 0.3), or stop the other client',
    );
  if (!paper && b.headroom < 0.1)
    return warn(
      ID,
      TITLE,
      desc,
      'leave some of every limit unused for other clients of the key and for clock skew: budgets.headroom 0.1 to 0.2',
    );
  if (b.scale > 1 && !paper)
    return warn(
      ID,
      TITLE,
      desc,
      'budgets.scale above 1 budgets more than the published limits: keep it only if the venue granted them',
    );
  return pass(ID, TITLE, desc);
}
