/**
 * The README's "Envelopes" list of error codes is complete (findings-3 F3: client authors write a
 * switch on `error.code` from it). Every SCREAMING_SNAKE string literal in the exchange's sources
 * is either a code the README lists in that paragraph or one of the known non-codes below (order
 * statuses, event kinds, header names, node/fastify error codes it maps): a new literal fails here
 * until it is listed in the README or named a non-code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REJECT_MESSAGES } from '../../../src/core/order-rules.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;

/** Literals of src/exchange that are not codes the exchange answers. */
const NOT_CODES = new Set([
  // order, trade and cancel states and reasons, user-channel event kinds
  'CANCELED',
  'CANCELLATION',
  'CONFIRMED',
  'EXPIRED',
  'MARKET_CLOSED',
  'MATCHED',
  'NOT_LIVE',
  'PLACEMENT',
  'STATE_CONFIRMED',
  'UNFILLED_REMAINDER',
  'UPDATE',
  'HEARTBEAT',
  'TICK_SIZE_CHANGE',
  // asset types, relayer operations, activity kinds
  'COLLATERAL',
  'CONDITIONAL',
  'CONVERSION',
  'CONVERT',
  'REDEEM',
  'REWARD',
  'TRANSFER',
  // header names
  'POLY_ADDRESS',
  'POLY_API_KEY',
  'POLY_PASSPHRASE',
  // node / fastify error codes, mapped to the listed codes
  'ECONNRESET',
  'ERR_HTTP_REQUEST_TIMEOUT',
  'FST_ERR_BAD_URL',
  'FST_ERR_CTP_BODY_TOO_LARGE',
  'FST_ERR_MAX_PARAM_LENGTH',
  'HPE_HEADER_OVERFLOW',
]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('README error codes', () => {
  it('the Envelopes paragraph lists every code the exchange answers', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('- **Envelopes.**');
    expect(start).toBeGreaterThan(0);
    const para = readme.slice(start, readme.indexOf('\n- **', start + 1));
    const listed = new Set([...para.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
    const literals = new Set<string>();
    for (const f of sources(join(ROOT, 'src/exchange')))
      for (const m of readFileSync(f, 'utf8').matchAll(/'([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{6,})'/g)) literals.add(m[1]!);
    // the order refusal codes the engine answers, shared with the client (keys of REJECT_MESSAGES)
    for (const code of Object.keys(REJECT_MESSAGES)) literals.add(code);
    const missing = [...literals].filter((c) => !listed.has(c) && !NOT_CODES.has(c)).sort();
    expect(missing, 'list these in the README (Envelopes) or name them non-codes here').toEqual([]);
    // the ones the trial missed, and no stale entry
    for (const c of ['API_KEY_EXISTS', 'BATCH_TOO_LARGE', 'RATE_LIMIT_BURST_EXCEEDED']) expect(listed).toContain(c);
    const stale = [...listed].filter((c) => !literals.has(c)).sort();
    expect(stale, 'codes the README lists that the exchange never answers').toEqual([]);
  });
});
